from django.urls import path

from tables import stats, views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("lobby.json", views.lobby_state, name="lobby_state"),
    path("tables/new/", views.table_new, name="table_new"),
    path("play/<slug:variant>/", views.quick_start, name="quick_start"),
    path("rules/", views.rules_index, name="rules_index"),
    path("rules/<slug:variant>/", views.rules, name="rules"),
    path("games/<int:game_id>/record.json", views.game_record_download, name="game_record"),
    path("stats/", stats.stats_page, name="stats"),
    path("stats/<str:username>/", stats.stats_of, name="stats_of"),
]
