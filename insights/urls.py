"""A player's statistics, and the coach of the training tables."""

from django.urls import path

from insights import coach, stats

urlpatterns = [
    path("stats/", stats.stats_page, name="stats"),
    path("ratings/bots/", stats.bot_ratings, name="bot_ratings"),
    path("stats/<str:username>/", stats.stats_of, name="stats_of"),
    path("tables/<int:table_id>/coach.json", coach.coach_state, name="coach_state"),
]
