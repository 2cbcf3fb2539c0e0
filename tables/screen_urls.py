"""classic's shared screen for a TV, with a QR code to join."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
