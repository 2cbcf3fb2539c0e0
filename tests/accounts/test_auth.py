"""Sign-up, sign-in, sign-out, password change/reset, and the chip statement's privacy."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core import mail
from django.urls import reverse

from accounts.models import LedgerEntry, User
from accounts.services import chips_transfer, escrow_account, wallet_for

pytestmark = pytest.mark.django_db

PASSWORD = "Tuz-i-desyatka-21"


def test_sign_up_logs_in_and_credits_10000_welcome_chips(client):
    response = client.post(
        reverse("signup"),
        {
            "username": "anna",
            "email": "anna@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
        follow=True,
    )
    assert response.status_code == 200
    user = User.objects.get(username="anna")
    assert response.context["user"] == user
    assert wallet_for(user).balance == 10_000
    assert LedgerEntry.objects.filter(reason="welcome_grant", destination__owner=user).count() == 1
    assert 'data-balance="10000"' in response.content.decode()


def test_sign_up_refuses_mismatched_passwords(client, make_user):
    response = client.post(
        reverse("signup"),
        {
            "username": "boris2",
            "email": "boris2@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD + "x",
        },
    )
    assert response.status_code == 200
    assert "password2" in response.context["form"].errors
    assert not User.objects.filter(username="boris2").exists()


def test_sign_up_with_a_taken_e_mail_reveals_nothing_and_tells_the_owner(
    client, make_user, django_capture_on_commit_callbacks
):
    make_user("boris", email="boris@example.com")
    fresh = client.post(
        reverse("signup"),
        {
            "username": "fresh",
            "email": "fresh@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    client.post(reverse("logout"))
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        taken = client.post(
            reverse("signup"),
            {
                "username": "boris2",
                "email": "BORIS@example.com",
                "password1": PASSWORD,
                "password2": PASSWORD,
            },
        )
    # The page answers exactly as for a free address: signed in, on to the chips.
    assert (taken.status_code, taken["Location"]) == (fresh.status_code, fresh["Location"])
    assert int(client.session["_auth_user_id"]) == User.objects.get(username="boris2").pk
    # The new account has no address (it belongs to boris); boris hears of it by e-mail.
    assert User.objects.get(username="boris2").email == ""
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["boris@example.com"]
    assert "boris2" in mail.outbox[0].body and "«boris»" in mail.outbox[0].body


def test_sign_in_and_sign_out(client, make_user):
    make_user("vera", password=PASSWORD)
    response = client.post(reverse("login"), {"username": "vera", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == reverse("lobby")
    assert client.get(reverse("chips")).status_code == 200
    assert client.post(reverse("logout")).status_code == 302
    assert client.get(reverse("chips")).status_code == 302


def test_wrong_password_does_not_sign_in(client, make_user):
    make_user("vera", password=PASSWORD)
    response = client.post(reverse("login"), {"username": "vera", "password": "nope"})
    assert response.status_code == 200
    assert not response.context["user"].is_authenticated


def test_password_change(client, make_user):
    user = make_user("gleb", password=PASSWORD)
    client.force_login(user)
    response = client.post(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "Novyi-parol-777",
            "new_password2": "Novyi-parol-777",
        },
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password("Novyi-parol-777")


def test_password_reset_by_e_mail(client, make_user):
    user = make_user("dina", password=PASSWORD)
    response = client.post(reverse("password_reset"), {"email": "dina@example.com"})
    assert response.status_code == 302
    (message,) = mail.outbox
    link = re.search(r"https?://[^/]+(/password/reset/\S+/\S+/)", message.body).group(1)
    response = client.get(link, follow=True)
    form_url = response.redirect_chain[-1][0]
    response = client.post(
        form_url, {"new_password1": "Svezhii-parol-555", "new_password2": "Svezhii-parol-555"}
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password("Svezhii-parol-555")


def test_statement_needs_sign_in(client):
    response = client.get(reverse("chips"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_statement_shows_only_the_owners_entries(client, make_user):
    anna, boris = make_user("anna"), make_user("boris")
    chips_transfer(
        source=wallet_for(anna),
        destination=escrow_account("escrow:round:7"),
        amount=123,
        reason="stake",
        idempotency_key="anna-bet",
        round_ref="7",
    )
    boris_entry = LedgerEntry.objects.get(destination__owner=boris)
    anna_bet = LedgerEntry.objects.get(idempotency_key="anna-bet")

    client.force_login(boris)
    page = client.get(reverse("chips"))
    shown = [entry.pk for entry, _amount, _after in page.context["rows"]]
    assert shown == [boris_entry.pk]
    assert "-123" not in page.content.decode()
    # Another player's entry is not there for him, not even by its address.
    assert client.get(reverse("chips_entry", args=[anna_bet.pk])).status_code == 404
    assert client.get(reverse("chips_entry", args=[boris_entry.pk])).status_code == 200

    client.force_login(anna)
    page = client.get(reverse("chips"))
    rows = page.context["rows"]
    assert next((e.pk, amount, after) for e, amount, after in rows) == (anna_bet.pk, -123, 9_877)
    assert len(rows) == 2
    assert client.get(reverse("chips_entry", args=[anna_bet.pk])).status_code == 200


def test_statement_is_newest_first_and_paginated(client, make_user):
    user = make_user()
    wallet, pot = wallet_for(user), escrow_account("escrow:many")
    for i in range(30):
        chips_transfer(
            source=wallet, destination=pot, amount=1, reason="stake", idempotency_key=f"many:{i}"
        )
    client.force_login(user)
    first = client.get(reverse("chips"))
    ids = [e.pk for e, _a, _b in first.context["rows"]]
    assert len(ids) == 25 and ids == sorted(ids, reverse=True)
    assert first.context["wallet"].balance == 9_970
    second = client.get(reverse("chips") + "?page=2")
    rest = [e.reason for e, _a, _b in second.context["rows"]]
    assert len(rest) == 6 and rest[-1] == "welcome_grant"


class CountingHasher(MD5PasswordHasher):
    """The tests' hasher, counting the passwords it hashes."""

    encoded = 0

    def encode(self, password: str, salt: str) -> str:
        CountingHasher.encoded += 1
        return super().encode(password, salt)


def test_sign_up_hashes_the_password_once_whether_or_not_the_e_mail_is_taken(
    client, make_user, settings
):
    settings.PASSWORD_HASHERS = [f"{__name__}.CountingHasher"]
    make_user("boris", email="boris@example.com")
    hashed = {}
    for name, email in (("fresh", "fresh@example.com"), ("boris2", "Boris@example.com")):
        client.post(reverse("logout"))
        CountingHasher.encoded = 0
        response = client.post(
            reverse("signup"),
            {"username": name, "email": email, "password1": PASSWORD, "password2": PASSWORD},
        )
        assert response.status_code == 302
        hashed[email] = CountingHasher.encoded
    # The same work on both paths: a taken address is not slower to answer.
    assert hashed == {"fresh@example.com": 1, "Boris@example.com": 1}
    assert User.objects.get(username="boris2").check_password(PASSWORD)


@pytest.fixture
def queued_mail(monkeypatch):
    """The mail handed to the worker (accounts.tasks.mail_send), held instead of sent."""
    from accounts.tasks import mail_send

    queued: list[dict] = []
    monkeypatch.setattr(mail_send, "delay", lambda **kwargs: queued.append(kwargs))
    return queued


def test_the_note_to_a_taken_addresss_owner_is_mailed_by_the_worker_not_the_request(
    client, make_user, queued_mail, django_capture_on_commit_callbacks
):
    make_user("boris", email="boris@example.com")
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("signup"),
            {
                "username": "boris2",
                "email": "boris@example.com",
                "password1": PASSWORD,
                "password2": PASSWORD,
            },
        )
    # Sent in the request, the mail server's round trip would time the taken address.
    assert mail.outbox == []
    (note,) = queued_mail
    assert note["to"] == ["boris@example.com"] and "«boris»" in note["body"]


def test_the_password_reset_link_is_mailed_by_the_worker_not_the_request(
    client, make_user, queued_mail
):
    make_user("dina", email="dina@example.com")
    assert client.post(reverse("password_reset"), {"email": "dina@example.com"}).status_code == 302
    assert mail.outbox == []
    (link,) = queued_mail
    assert link["to"] == ["dina@example.com"] and "/password/reset/" in link["body"]
    from accounts.tasks import mail_send

    mail_send.run(**link)  # what the worker does with it
    assert mail.outbox[0].to == ["dina@example.com"] and mail.outbox[0].body == link["body"]
