from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from tables.selectors import lobby_tables, table_stakes_label
from tables.variants import VARIANTS


def lobby(request: HttpRequest) -> HttpResponse:
    tables = [(t, table_stakes_label(t)) for t in lobby_tables()]
    return render(request, "tables/lobby.html", {"tables": tables, "variants": VARIANTS.values()})
