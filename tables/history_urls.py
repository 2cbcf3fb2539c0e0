"""A player's hand history, the replay of a game and its «Проверить» view."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
