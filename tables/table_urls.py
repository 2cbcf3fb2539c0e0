"""The table page (templates/tables/table.html)."""

from django.urls import path

from tables import pages

urlpatterns = [
    path("tables/<int:table_id>/", pages.table_page, name="table"),
]
