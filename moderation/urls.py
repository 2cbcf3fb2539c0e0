"""«Пожаловаться» and the notices of moderators' decisions."""

from django.urls import path

from moderation import views

app_name = "moderation"

urlpatterns = [
    path("report/", views.report, name="report"),
    path("moderation/notices/<int:pk>/read/", views.notice_read, name="notice_read"),
]
