"""A player's hand history, the replay of a game and its «Проверить» view."""

from django.urls import path

from tables import history

urlpatterns = [
    path("history/", history.history_list, name="history"),
    path("history/<int:game_id>/", history.game_replay, name="game_replay"),
    path("history/<int:game_id>/replay.json", history.game_replay_data, name="game_replay_data"),
]
