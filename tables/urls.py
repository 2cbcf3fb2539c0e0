from django.urls import path

from tables import views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("games/<int:game_id>/record.json", views.game_record_download, name="game_record"),
]
