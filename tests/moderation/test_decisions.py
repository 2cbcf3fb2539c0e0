"""The moderation queue in Django admin and the decisions taken there (issue 21, item 2):
each recorded with who, when and why, and told to the player in their language."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from moderation.models import Report, Sanction
from moderation.services import (
    PERIODS,
    ModerationError,
    report_create,
    sanction_apply,
    sanction_lift,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def moderator(make_user: Any) -> Any:
    return make_user("mod", is_staff=True, is_superuser=True)


@pytest.fixture
def report(conversation: dict[str, Any]) -> Report:
    return report_create(
        reporter=conversation["ann"],
        reason="insult",
        note="грубит",
        message_id=conversation["rude"].pk,
    )


def _signed_in(user: Any, language: str = "ru") -> Client:
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = language
    return client


# --- the queue -----------------------------------------------------------------------------


def test_the_queue_lists_open_reports_first(conversation, moderator, make_user):
    older_open = report_create(reporter=conversation["ann"], reason="spam", player_name="bob")
    handled = report_create(
        reporter=conversation["ann"], reason="insult", message_id=conversation["rude"].pk
    )
    sanction_apply(
        kind="dismiss", player=conversation["bob"], by=moderator, reason="шутка", report=handled
    )
    newer_open = report_create(reporter=conversation["bob"], reason="other", player_name="ann")
    Report.objects.filter(pk=older_open.pk).update(
        created_at=timezone.now() - datetime.timedelta(days=1)
    )
    page = _signed_in(moderator).get(reverse("admin:moderation_report_changelist"))
    assert page.status_code == 200
    order = [row.pk for row in page.context["cl"].result_list]
    assert order == [newer_open.pk, older_open.pk, handled.pk]
    filtered = _signed_in(moderator).get(
        reverse("admin:moderation_report_changelist"), {"status__exact": "handled"}
    )
    assert [row.pk for row in filtered.context["cl"].result_list] == [handled.pk]
    by_reason = _signed_in(moderator).get(
        reverse("admin:moderation_report_changelist"), {"reason__exact": "spam"}
    )
    assert [row.pk for row in by_reason.context["cl"].result_list] == [older_open.pk]


def test_a_reports_page_shows_the_messages_around_it_and_links(conversation, moderator, report):
    page = _signed_in(moderator).get(reverse("admin:moderation_report_change", args=[report.pk]))
    text = page.content.decode()
    assert page.status_code == 200
    for line in ("Удачи!", "Спасибо", "Ещё партию?", "ты дурак", "Зачем так?"):
        assert line in text
    assert "ты *****" in text  # what players were shown, beside the original
    assert "грубит" in text
    assert 'href="/players/bob/"' in text
    assert reverse("admin:tables_table_change", args=[conversation["table"].pk]) in text
    assert f"?reported__id__exact={conversation['bob'].pk}" in text
    assert f"?player__id__exact={conversation['bob'].pk}" in text
    assert reverse("admin:moderation_report_act", args=[report.pk]) in text
    assert "Сейчас действует" not in text


def test_a_reports_page_shows_the_players_restrictions_in_force(conversation, moderator, report):
    sanction_apply(
        kind="mute", player=conversation["bob"], by=moderator, reason="Ранее", period=PERIODS["7d"]
    )
    text = (
        _signed_in(moderator)
        .get(reverse("admin:moderation_report_change", args=[report.pk]))
        .content.decode()
    )
    assert "Сейчас действует: запрет писать в чат до" in text


def test_the_reports_page_links_the_game(conversation, moderator, make_user):
    from play.models import Game

    game = Game.objects.create(
        table=conversation["table"],
        number=1,
        variant="banker36",
        players=[],
        options={},
        seed="s",
        commitment="c",
    )
    message = conversation["rude"]
    message.game = game
    message.save()
    filed = report_create(reporter=conversation["ann"], reason="collusion", message_id=message.pk)
    assert filed.evidence["game"] == {"id": game.pk, "number": 1}
    text = (
        _signed_in(moderator)
        .get(reverse("admin:moderation_report_change", args=[filed.pk]))
        .content.decode()
    )
    assert reverse("admin:play_game_change", args=[game.pk]) in text
    assert reverse("game_replay", args=[game.pk]) in text


def test_the_decision_page_shows_the_evidence_too(conversation, moderator, report):
    page = _signed_in(moderator).get(reverse("admin:moderation_report_act", args=[report.pk]))
    assert page.status_code == 200
    assert "ты дурак" in page.content.decode() and "Зачем так?" in page.content.decode()


# --- decisions -----------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "period"), [("warn", ""), ("mute", "1d"), ("ban", "7d")])
def test_a_decision_on_a_report_records_who_when_why_and_closes_it(
    conversation, moderator, report, kind, period
):
    before = timezone.now()
    answer = _signed_in(moderator).post(
        reverse("admin:moderation_report_act", args=[report.pk]),
        {"kind": kind, "period": period, "reason": "Оскорбления в чате"},
    )
    assert answer.status_code == 302
    sanction = Sanction.objects.get()
    assert (sanction.kind, sanction.player, sanction.report) == (kind, conversation["bob"], report)
    assert sanction.created_by == moderator and sanction.reason == "Оскорбления в чате"
    assert before <= sanction.created_at <= timezone.now()
    if period:
        assert sanction.ends_at == sanction.created_at + PERIODS[period]
    else:
        assert sanction.ends_at is None
    report.refresh_from_db()
    assert report.status == "handled"


def test_a_decision_needs_a_reason_and_a_mute_a_period(moderator, report):
    client = _signed_in(moderator)
    url = reverse("admin:moderation_report_act", args=[report.pk])
    assert client.post(url, {"kind": "mute", "period": "", "reason": "x"}).status_code == 200
    assert client.post(url, {"kind": "warn", "reason": "  "}).status_code == 200
    assert not Sanction.objects.exists()
    with pytest.raises(ModerationError):
        sanction_apply(kind="ban", player=report.reported, by=moderator, reason="x")
    with pytest.raises(ModerationError):
        sanction_apply(kind="warn", player=report.reported, by=moderator, reason="")


def test_dismissing_a_report_is_recorded_and_not_told_to_the_player(
    conversation, moderator, report
):
    _signed_in(moderator).post(
        reverse("admin:moderation_report_act", args=[report.pk]),
        {"kind": "dismiss", "reason": "Ничего оскорбительного"},
    )
    dismissal = Sanction.objects.get()
    assert (dismissal.kind, dismissal.created_by, dismissal.reason) == (
        "dismiss",
        moderator,
        "Ничего оскорбительного",
    )
    assert Report.objects.get().status == "handled"
    page = _signed_in(conversation["bob"]).get("/chips/")
    assert "Ничего оскорбительного" not in page.content.decode()


def test_a_measure_without_a_report(conversation, moderator):
    client = _signed_in(moderator)
    form = client.get(reverse("admin:moderation_sanction_add"), {"player": conversation["bob"].pk})
    assert form.status_code == 200 and 'value="dismiss"' not in form.content.decode()
    answer = client.post(
        reverse("admin:moderation_sanction_add"),
        {"player": conversation["bob"].pk, "kind": "mute", "period": "1h", "reason": "Флуд"},
    )
    assert answer.status_code == 302
    mute = Sanction.objects.get()
    assert (mute.kind, mute.report, mute.created_by) == ("mute", None, moderator)
    assert mute.in_force()


def test_lifting_a_ban_early_is_recorded_and_told(conversation, moderator):
    ban = sanction_apply(
        kind="ban",
        player=conversation["bob"],
        by=moderator,
        reason="Сговор",
        period=PERIODS["30d"],
    )
    bob = _signed_in(conversation["bob"])
    notice = Sanction.objects.get().pk
    bob.post(reverse("moderation:notice_read", args=[notice]), {"next": "/chips/"})
    answer = _signed_in(moderator).post(
        reverse("admin:moderation_sanction_lift", args=[ban.pk]), {"reason": "Ошибка"}
    )
    assert answer.status_code == 302
    ban.refresh_from_db()
    assert ban.lifted_by == moderator and ban.lift_reason == "Ошибка" and ban.lifted_at
    assert not ban.in_force()
    text = bob.get("/chips/").content.decode()
    assert "Запрет садиться за стол снят досрочно." in text and "Ошибка" in text
    with pytest.raises(ModerationError):
        sanction_lift(sanction=ban, by=moderator, reason="ещё раз")


def test_records_cannot_be_deleted_in_the_admin(moderator, report):
    client = _signed_in(moderator)
    assert (
        client.get(reverse("admin:moderation_report_delete", args=[report.pk])).status_code == 403
    )


# --- told to the player ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "language", "framing"),
    [
        ("warn", "ru", "Предупреждение от модератора."),
        ("warn", "en", "A warning from a moderator."),
        ("mute", "ru", "Вам запрещено писать в чат до"),
        ("mute", "en", "You may not write in the chat until"),
        ("ban", "ru", "Вам запрещено садиться за стол до"),
        ("ban", "en", "You may not take a seat until"),
    ],
)
def test_the_player_sees_the_decision_on_every_page_until_they_read_it(
    conversation, moderator, kind, language, framing
):
    sanction_apply(
        kind=kind,
        player=conversation["bob"],
        by=moderator,
        reason="Не ругайтесь",
        period=PERIODS["1d"] if kind != "warn" else None,
    )
    bob = _signed_in(conversation["bob"], language)
    for path in ("/", "/chips/", "/rules/"):
        text = bob.get(path).content.decode()
        assert framing in text and "Не ругайтесь" in text, path
    # Nobody else sees it.
    assert "Не ругайтесь" not in _signed_in(conversation["ann"], language).get("/").content.decode()
    notice = Sanction.objects.get()
    answer = bob.post(reverse("moderation:notice_read", args=[notice.pk]), {"next": "/rules/"})
    assert answer.status_code == 302 and answer["Location"] == "/rules/"
    notice.refresh_from_db()
    assert notice.acknowledged_at is not None
    assert framing not in bob.get("/").content.decode()


def test_a_player_cannot_read_away_someone_elses_notice(conversation, moderator):
    sanction_apply(kind="warn", player=conversation["bob"], by=moderator, reason="Спокойнее")
    notice = Sanction.objects.get()
    _signed_in(conversation["ann"]).post(reverse("moderation:notice_read", args=[notice.pk]))
    notice.refresh_from_db()
    assert notice.acknowledged_at is None


@pytest.mark.parametrize(
    ("language", "text"),
    [("ru", "Садиться за стол нельзя до"), ("en", "No seat at a table until")],
)
def test_the_chips_page_shows_a_ban_in_force(conversation, moderator, language, text):
    sanction_apply(
        kind="ban", player=conversation["bob"], by=moderator, reason="Сговор", period=PERIODS["1d"]
    )
    page = _signed_in(conversation["bob"], language).get("/chips/").content.decode()
    assert "data-restrictions" in page and text in page


def test_a_report_is_decided_on_once(conversation, moderator, report):
    sanction_apply(
        kind="warn", player=conversation["bob"], by=moderator, reason="Спокойнее", report=report
    )
    with pytest.raises(ModerationError):
        sanction_apply(
            kind="ban",
            player=conversation["bob"],
            by=moderator,
            reason="Ещё",
            period=PERIODS["1d"],
            report=report,
        )
    answer = _signed_in(moderator, "en").post(
        reverse("admin:moderation_report_act", args=[report.pk]),
        {"kind": "dismiss", "reason": "x"},
    )
    assert "This report has already been decided on." in answer.content.decode()
    assert Sanction.objects.count() == 1
