from django.urls import path

from tournaments import views

urlpatterns = [
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/<int:tournament_id>/", views.tournament_page, name="tournament"),
    path(
        "tournaments/<int:tournament_id>/register/",
        views.tournament_register,
        name="tournament_register",
    ),
    path(
        "tournaments/<int:tournament_id>/compare/",
        views.tournament_compare,
        name="tournament_compare",
    ),
    path(
        "tournaments/<int:tournament_id>/withdraw/",
        views.tournament_withdraw,
        name="tournament_withdraw",
    ),
]
