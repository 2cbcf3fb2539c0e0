"""A player's public profile."""

from django.urls import path

from people import views

urlpatterns = [
    path("players/<str:username>/", views.player_profile, name="player_profile"),
]
