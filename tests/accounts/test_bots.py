"""Bot accounts (docs/protocol.md §9.1): registered by a person, no chips of the house's,
seated only where the table allows bots, marked wherever they show, rated apart."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.test import Client
from django.urls import reverse

from accounts import bots, tokens
from accounts.bonus import BonusForBots, daily_bonus_claim, daily_bonus_claimable
from accounts.models import AccessToken, User
from accounts.services import wallet_for
from play.services import seating
from play.services.errors import SeatError
from tables import services as table_services
from tests.accounts.test_token_sockets import Bot

pytestmark = pytest.mark.django_db


def test_a_person_registers_bots_up_to_the_limit_and_a_bot_none(make_user, settings):
    settings.BOTS_PER_PLAYER = 2
    ann = make_user("ann")
    first = bots.bot_create(owner=ann, username="ann-bot-1")
    bots.bot_create(owner=ann, username="ann-bot-2")
    with pytest.raises(bots.BotRefused) as refused:
        bots.bot_create(owner=ann, username="ann-bot-3")
    assert refused.value.code == "too_many_bots"
    with pytest.raises(bots.BotRefused) as refused:
        bots.bot_create(owner=first, username="bot-of-a-bot")
    assert refused.value.code == "bot_owns_no_bot"
    with pytest.raises(bots.BotRefused) as refused:
        bots.bot_create(owner=make_user("bob"), username="ANN-BOT-1")
    assert refused.value.code == "name_taken"
    assert first.is_bot and first.bot_owner == ann and not first.has_usable_password()


def test_a_bot_gets_no_welcome_chips_and_no_daily_bonus(make_user):
    bot = bots.bot_create(owner=make_user("ann"), username="ann-bot")
    assert wallet_for(bot).balance == 0
    assert daily_bonus_claimable(user=bot) is False
    with pytest.raises(BonusForBots):
        daily_bonus_claim(user=bot, time_zone=None)


def test_the_owner_makes_and_revokes_the_bots_tokens_and_nobody_else_sees_them(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    bot = bots.bot_create(owner=ann, username="ann-bot")
    owner = Client()
    owner.force_login(ann)
    made = owner.post(
        reverse("bot_tokens", args=[bot.pk]), {"name": "runner", "scopes": ["read", "play"]}
    )
    assert made.status_code == 201
    token = AccessToken.objects.get(user=bot)
    assert token.name == "runner" and token.scope_list == ["read", "play"]
    stranger = Client()
    stranger.force_login(bob)
    assert stranger.get(reverse("bot_tokens", args=[bot.pk])).status_code == 404
    assert stranger.post(reverse("access_token_revoke", args=[token.pk])).status_code == 404
    revoked = owner.post(reverse("access_token_revoke", args=[token.pk]))
    assert revoked.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None


def test_the_bots_page_registers_a_bot_and_lists_it(make_user):
    client = Client()
    client.force_login(make_user("ann"))
    answer = client.post(reverse("bot_accounts"), {"username": "ann-bot"})
    bot = User.objects.get(username="ann-bot")
    assert answer.status_code == 302 and answer["Location"] == reverse("bot_tokens", args=[bot.pk])
    page = client.get(reverse("bot_accounts")).content.decode()
    assert "ann-bot" in page and "bot-mark" in page


def test_a_bot_sits_only_where_the_table_allows_bots(make_user):
    bot = bots.bot_create(owner=make_user("ann"), username="ann-bot")
    classic = table_services.table_create(variant="classic", name="c")
    assert classic.allows_bots
    seating.seat_take(table=classic, player=bot)
    closed_to_bots = table_services.table_create(variant="classic", name="no", bots_allowed=False)
    with pytest.raises(SeatError) as refused:
        seating.seat_take(table=closed_to_bots, player=bot)
    assert refused.value.code == "bots_not_allowed"
    # At a chip table bots are kept out unless its host lets them in.
    bank = table_services.table_create(variant="banker36", name="b", stake=10, entry_limit=100)
    assert not bank.allows_bots
    with pytest.raises(SeatError) as refused:
        seating.seat_take(table=bank, player=bot)
    assert refused.value.code == "bots_not_allowed"


@pytest.mark.django_db(transaction=True)
def test_a_bots_seat_and_chat_message_are_marked_in_the_frames(make_user):
    bot = bots.bot_create(owner=make_user("ann"), username="ann-bot")
    _token, secret = tokens.token_create(user=bot, name="t", scopes=["read", "play", "chat"])
    table = table_services.table_create(variant="classic", name="c")

    async def play() -> tuple[dict[str, Any], dict[str, Any]]:
        socket = await Bot.open(f"/ws/tables/{table.pk}/", secret)
        await socket.recv()  # the snapshot
        assert (await socket.answer({"type": "sit", "id": "s1"}))["type"] == "ack"
        update = await socket.recv()
        await socket.answer({"type": "chat", "id": "m1", "text": "привет"})
        chat = await socket.recv()
        await socket.close()
        return update, chat

    update, chat = async_to_sync(play)()
    seat = next(s for s in update["table"]["seats"] if s["name"] == "ann-bot")
    assert seat["bot"] is True and update["table"]["bots"] is True
    assert chat["type"] == "chat" and chat["message"]["bot"] is True


def test_a_friend_bot_is_not_invited_to_a_private_table_closed_to_bots(make_user):
    from people import friends

    ann = make_user("ann")
    bot = bots.bot_create(owner=ann, username="ann-bot")
    friends.friend_request_send(sender=ann, recipient=bot)
    friends.friend_request_accept(recipient=bot, sender=ann)
    table = table_services.table_create(
        variant="classic", name="p", private=True, created_by=ann, bots_allowed=False
    )
    with pytest.raises(friends.PeopleError) as refused:
        friends.invite_send(sender=ann, recipient=bot, table=table)
    assert refused.value.code == "bots_not_allowed"


def test_a_bots_profile_says_bot_and_whose(make_user):
    ann = make_user("ann")
    bots.bot_create(owner=ann, username="ann-bot")
    page = Client().get(reverse("people:profile", args=["ann-bot"])).content.decode()
    assert 'class="bot-mark"' in page and 'data-bot-owner="ann"' in page
    person = Client().get(reverse("people:profile", args=["ann"])).content.decode()
    assert 'class="bot-mark"' not in person


def test_an_admin_suspends_a_bot_and_its_token_stops_working(make_user):
    owner = make_user("ann")
    bot = bots.bot_create(owner=owner, username="ann-bot")
    _token, secret = tokens.token_create(user=bot, name="t", scopes=["read"])
    assert tokens.token_authenticate(secret) is not None
    admin = make_user("root", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(admin)
    answer = client.post(
        reverse("admin:accounts_user_changelist"),
        {"action": "suspend", "_selected_action": [bot.pk]},
    )
    assert answer.status_code == 302
    bot.refresh_from_db()
    assert bot.is_active is False
    assert tokens.token_authenticate(secret) is None
    assert Client().get(reverse("people:profile", args=["ann-bot"])).status_code == 404


def test_a_program_reads_the_daily_bonus_and_a_bots_refusal_as_json(make_user, settings):
    from contract.http import BonusGranted, ErrorBody
    from tests.contract.http_bodies import assert_body

    ann = make_user("ann")
    settings.DAILY_BONUS_FLOOR = 20_000  # above ann's 10,000: a bonus is due
    person = Client()
    person.force_login(ann)
    answer = person.post(
        reverse("bonus_claim"), {"time_zone": "Europe/Moscow"}, HTTP_ACCEPT="application/json"
    )
    granted = assert_body(answer, BonusGranted)
    assert answer.status_code == 200 and (granted.amount, granted.balance) == (10_000, 20_000)
    again = person.post(reverse("bonus_claim"), {}, HTTP_ACCEPT="application/json")
    assert again.status_code == 409
    assert assert_body(again, ErrorBody).error.code == "bonus_claimed_today"
    program = Client()
    program.force_login(bots.bot_create(owner=ann, username="ann-bot"))
    refused = program.post(reverse("bonus_claim"), {}, HTTP_ACCEPT="application/json")
    assert refused.status_code == 409
    assert assert_body(refused, ErrorBody).error.code == "bonus_not_for_bots"
