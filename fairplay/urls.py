from django.urls import path

from fairplay import views

urlpatterns = [
    path("privacy/", views.privacy, name="privacy"),
]
