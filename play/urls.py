"""The table page (templates/play/table.html), and classic's shared screen for a TV with
a QR code to join."""

from django.urls import path

from play.edge import pages, screen

urlpatterns = [
    path("tables/<int:table_id>/", pages.table_page, name="table"),
    path("tables/<int:table_id>/screen/", screen.screen, name="table_screen"),
    path("tables/<int:table_id>/qr.svg", screen.qr_svg, name="table_qr"),
]
