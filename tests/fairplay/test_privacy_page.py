"""The privacy note (issue 32, item 5) states what fair play records and for how long,
from the settings, in the visitor's language, linked from every page's footer."""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.urls import reverse

pytestmark = pytest.mark.django_db


@override_settings(FAIRPLAY_TRACE_RETENTION_DAYS=91, CHAT_RETENTION_DAYS=30)
def test_the_privacy_note_states_the_retention_from_the_settings(client):
    page = client.get(reverse("privacy")).content.decode()
    assert "t21_device" in page and "хеша" in page
    assert "через 91 день после последнего входа" in page
    assert "хранятся 30 дней" in page
    assert "только модераторы" in page
    assert f'href="{reverse("privacy")}"' in client.get(reverse("rules_index")).content.decode()


def test_the_privacy_note_in_english(client):
    client.cookies["django_language"] = "en"
    page = client.get(reverse("privacy")).content.decode()
    assert "Only moderators see these records." in page
    assert "90 days after the last sign-in" in page
