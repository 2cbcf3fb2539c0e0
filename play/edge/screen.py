"""classic's shared screen: the table for a TV at a party, in large type, with a QR code
that phones scan to join (docs/rules/classic.md: the shared screen shows the table, and
every player holds their own cards on their phone).

The screen shows public information only: its page connects to the table socket with
`?view=spectator` (docs/protocol.md §2.1), so a TV signed in as a seated player is still
sent the spectators' frames. The QR code is made here with segno and served as an SVG
from our own origin (the CSP allows images from 'self' only).
"""

from __future__ import annotations

import io
from urllib.parse import urlencode

import segno
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from play.edge.pages import may_watch
from tables.models import Table
from tables.variants import CLASSIC


def _screen_table(request: HttpRequest, table_id: int) -> Table:
    """The classic table the request may show. A private table only to those who may
    watch it (docs/protocol.md §2.4): with its invite code, or as the host, a seated
    player or staff; to everyone else it does not exist."""
    table = get_object_or_404(Table.objects.select_related("created_by"), pk=table_id)
    if table.variant != CLASSIC:
        raise Http404("the shared screen is classic's")
    # Who may watch a private table is the table page's rule (its socket's, §2.4).
    if not may_watch(table, request.user, request.GET.get("invite", "")[:64]):
        raise Http404("no such table")
    return table


def join_url(request: HttpRequest, table: Table) -> str:
    """The absolute address phones open to sit down at the table: the table page with
    `?sit=1`, and the invite code of a private table."""
    query = {"sit": "1"}
    if table.private:
        query["invite"] = table.invite_code
    return request.build_absolute_uri(reverse("table", args=[table.pk])) + "?" + urlencode(query)


@require_GET
def screen(request: HttpRequest, table_id: int) -> HttpResponse:
    table = _screen_table(request, table_id)
    qr_query = f"?{urlencode({'invite': table.invite_code})}" if table.private else ""
    return render(
        request,
        "play/screen.html",
        {
            "table": table,
            "join_url": join_url(request, table),
            "qr_url": reverse("table_qr", args=[table.pk]) + qr_query,
            "screen_config": {
                "table": table.pk,
                "invite": table.invite_code if table.private else "",
            },
        },
    )


@require_GET
def qr_svg(request: HttpRequest, table_id: int) -> HttpResponse:
    """The join address as a QR code, an SVG image (no inline styles, no scripts)."""
    table = _screen_table(request, table_id)
    code = segno.make(join_url(request, table), error="m")
    out = io.BytesIO()
    code.save(out, kind="svg", scale=8, border=4, dark="#000", light="#fff", omitsize=True)
    response = HttpResponse(out.getvalue(), content_type="image/svg+xml")
    # The address holds the host the TV opened the page at, and a private table's code.
    response["Cache-Control"] = "private, max-age=300"
    return response
