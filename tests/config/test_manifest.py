"""The web app manifest (config/urls.py: web_manifest) and the icons it names."""

from __future__ import annotations

import json
import struct

from django.conf import settings
from django.contrib.staticfiles import finders

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(path: str) -> tuple[int, int]:
    with open(path, "rb") as file:
        head = file.read(24)
    assert head[:8] == PNG_SIGNATURE and head[12:16] == b"IHDR", path
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def manifest(client) -> dict:
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    return json.loads(response.content)


def test_the_manifest_is_json_with_what_an_install_needs(client, db):
    data = manifest(client)
    assert data["name"] == "Двадцать одно" and data["short_name"]
    assert data["start_url"] == "/" and data["display"] == "standalone"
    assert data["theme_color"] == "#0f5132" and data["background_color"] == "#f8f6f1"
    purposes = {(icon["sizes"], icon["purpose"]) for icon in data["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= purposes


def test_the_manifest_follows_the_visitors_language(client, db):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    assert manifest(client)["name"] == "Twenty-One"


def test_every_declared_icon_exists_at_its_declared_size(client, db):
    for icon in manifest(client)["icons"]:
        name = icon["src"].removeprefix("/" + settings.STATIC_URL.lstrip("/"))
        path = finders.find(name)
        assert path, icon["src"]
        if icon["type"] == "image/png":
            width, height = png_size(path)
            assert f"{width}x{height}" == icon["sizes"], icon["src"]
        else:
            with open(path) as file:
                assert file.read().startswith("<svg"), icon["src"]


def test_every_page_links_the_manifest_the_theme_colour_and_a_touch_icon(client, db):
    page = client.get("/").content.decode()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    assert '<meta name="theme-color" content="#0f5132">' in page
    assert 'rel="apple-touch-icon"' in page
    path = finders.find("img/apple-touch-icon.png")
    assert path and png_size(path) == (180, 180)
