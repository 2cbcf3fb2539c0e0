"""The lobby, opening tables, and the rules of the variants."""

from django.urls import path

from lobby import views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("lobby.json", views.lobby_state, name="lobby_state"),
    path("tables/new/", views.table_new, name="table_new"),
    path("play/<slug:variant>/", views.quick_start, name="quick_start"),
    path("quick/<slug:variant>/", views.quick_seat, name="quick_seat"),
    path("rules/", views.rules_index, name="rules_index"),
    path("rules/<slug:variant>/", views.rules, name="rules"),
]
