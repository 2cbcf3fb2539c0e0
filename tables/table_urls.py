"""The table page (templates/tables/table.html)."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
