"""The table page (templates/tables/table.html)."""

from django.urls import path

from tables import coach, pages

urlpatterns = [
    path("tables/<int:table_id>/", pages.table_page, name="table"),
    path("tables/<int:table_id>/coach.json", coach.coach_state, name="coach_state"),
]
