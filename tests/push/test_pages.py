"""The service worker at the site's root, the offline page it keeps, the opt-in button
(shown only when push is configured) and the key pair command."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from py_vapid import Vapid

pytestmark = pytest.mark.django_db


def test_the_service_worker_is_served_at_the_root_for_the_whole_site(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Service-Worker-Allowed"] == "/"
    assert response["Cache-Control"] == "no-cache"
    script = response.content.decode()
    for handled in ('"push"', '"notificationclick"', '"fetch"', '"install"'):
        assert f"addEventListener({handled}" in script
    assert '"/offline/"' in script and "css/site.css" in script


def test_the_offline_page_needs_no_database_and_follows_the_language(
    client, django_assert_num_queries, make_user
):
    client.force_login(make_user("ann"))
    with django_assert_num_queries(0):
        russian = client.get("/offline/")
    assert russian.status_code == 200
    assert "Нет связи с сервером" in russian.content.decode()
    client.cookies["django_language"] = "en"
    english = client.get("/offline/")
    assert english["Content-Language"] == "en"
    assert "No connection to the server" in english.content.decode()


def test_the_opt_in_button_is_shown_to_the_player_only_with_push_configured(
    make_user, settings, vapid
):
    make_user("bob")
    client = Client()
    client.force_login(make_user("ann"))
    for path in ("/chips/", "/players/ann/"):
        page = client.get(path).content.decode()
        assert "data-push-optin" in page and f'data-public-key="{vapid[0]}"' in page, path
    assert "data-push-optin" not in client.get("/players/bob/").content.decode()
    settings.WEBPUSH_VAPID_PUBLIC_KEY = ""
    assert "data-push-optin" not in client.get("/chips/").content.decode()


def test_webpush_keys_prints_a_pair_pywebpush_signs_with():
    out = StringIO()
    call_command("webpush_keys", stdout=out)
    lines = dict(line.split("=", 1) for line in out.getvalue().split())
    key = Vapid.from_string(private_key=lines["WEBPUSH_VAPID_PRIVATE_KEY"])
    assert key.public_key is not None
    assert len(lines["WEBPUSH_VAPID_PUBLIC_KEY"]) == 87  # 65 bytes, base64url
