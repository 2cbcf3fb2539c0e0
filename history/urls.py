"""A player's hand history, the replay of a game and its «Проверить» view, and a game's
hand record to download."""

from django.urls import path

from history import views

urlpatterns = [
    path("history/", views.history_list, name="history"),
    path("history/<int:game_id>/", views.game_replay, name="game_replay"),
    path("history/<int:game_id>/replay.json", views.game_replay_data, name="game_replay_data"),
    path("games/<int:game_id>/record.json", views.game_record_download, name="game_record"),
]
