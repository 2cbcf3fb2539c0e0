"""Moderation in a real browser (issue 21, item 2), on a 360-px phone:

- «Пожаловаться» on a chat message: the form at /report/?message=<id> shows the message
  as players saw it and the four reasons; sent, it thanks and links back;
- a moderator's mute reaches the player as a notice on every page until they press
  «Понятно», and their chips page shows it while it runs.

Screenshots at 360 and 1280 px go to test-artifacts/report-*.png and moderation-*.png.
"""

from __future__ import annotations

from typing import Any

import pytest

from chat.models import ChatMessage
from moderation.models import Report, Sanction
from moderation.services import PERIODS, sanction_apply
from tests.e2e.conftest import check_accessibility, shoot
from tests.e2e.table_helpers import create_table, make_player, player_page

pytestmark = pytest.mark.e2e


def test_a_player_reports_a_message_from_the_phone_form(
    daphne_server: Any, transactional_db: None, browser: Any
) -> None:
    make_player("ann")
    bob = make_player("bob")
    table = create_table("banker36", name="Вечерний")
    rude = ChatMessage.objects.create(table=table, author=bob, text="ты дурак", shown="ты *****")
    context, page, console = player_page(browser, daphne_server.url, "ann", viewport="phone")
    try:
        page.goto(f"/report/?message={rude.pk}&next=/tables/{table.pk}/")
        assert page.get_by_role("heading", level=1).inner_text() == "Жалоба на игрока bob"
        assert "ты *****" in page.locator(".reported-message").inner_text()
        shoot(page, "report-form")
        check_accessibility(page, "report-form")
        page.set_viewport_size({"width": 360, "height": 740})

        page.get_by_label("Оскорбления").check()
        page.get_by_label("Пояснение (необязательно)").fill("третий раз подряд")
        page.get_by_role("button", name="Отправить жалобу").click()

        page.get_by_role("heading", name="Жалоба отправлена").wait_for()
        assert "Модераторы рассмотрят жалобу" in page.locator("main").inner_text()
        back = page.get_by_role("link", name="Вернуться")
        assert back.get_attribute("href") == f"/tables/{table.pk}/"
        report = Report.objects.get()
        assert (report.reported, report.reason, report.note) == (bob, "insult", "третий раз подряд")
        assert report.evidence["message"]["text"] == "ты дурак"
        shoot(page, "report-thanks")
        console.assert_clean("on the report form")
    finally:
        context.close()


def test_a_muted_player_sees_the_notice_until_they_read_it(
    daphne_server: Any, transactional_db: None, browser: Any
) -> None:
    moderator = make_player("moder")
    bob = make_player("bob")
    sanction_apply(
        kind="mute",
        player=bob,
        by=moderator,
        reason="Оскорбления в чате стола «Вечерний»",
        period=PERIODS["1d"],
    )
    context, page, console = player_page(browser, daphne_server.url, "bob", viewport="phone")
    try:
        page.goto("/")
        notice = page.locator('.moderation-notice[data-notice="mute"]')
        notice.wait_for()
        assert "Вам запрещено писать в чат до" in notice.inner_text()
        assert "Оскорбления в чате стола «Вечерний»" in notice.inner_text()
        shoot(page, "moderation-notice")
        check_accessibility(page, "moderation-notice")
        page.set_viewport_size({"width": 360, "height": 740})

        page.goto("/chips/")
        notice.get_by_role("button", name="Понятно").click()
        page.wait_for_url("**/chips/")
        assert page.locator(".moderation-notice").count() == 0
        assert Sanction.objects.get().acknowledged_at is not None
        restriction = page.locator('[data-restriction="mute"]')
        assert "Писать в чат нельзя до" in restriction.inner_text()
        shoot(page, "moderation-chips")
        console.assert_clean("on the notice")
    finally:
        context.close()


def test_a_moderator_mutes_from_the_report_in_the_admin(
    daphne_server: Any, transactional_db: None, browser: Any
) -> None:
    from moderation.services import report_create

    moderator = make_player("moder")
    moderator.is_staff = moderator.is_superuser = True
    moderator.save(update_fields=["is_staff", "is_superuser"])
    ann, bob = make_player("ann"), make_player("bob")
    table = create_table("banker36", name="Вечерний")
    for author, text in ((ann, "Удачи!"), (bob, "ты дурак"), (ann, "Зачем так?")):
        ChatMessage.objects.create(table=table, author=author, text=text, shown=text)
    rude = ChatMessage.objects.get(text="ты дурак")
    report = report_create(reporter=ann, reason="insult", message_id=rude.pk)
    context, page, console = player_page(browser, daphne_server.url, "moder")
    try:
        page.goto("/admin/moderation/report/")
        page.get_by_role("link", name=str(report.pk), exact=True).click()
        page.get_by_role("link", name="Принять меры").wait_for()
        assert "Зачем так?" in page.locator("main, #content").first.inner_text()
        shoot(page, "moderation-admin-report")
        page.set_viewport_size({"width": 1280, "height": 800})
        page.get_by_role("link", name="Принять меры").click()
        page.get_by_label("Мера").select_option("mute")
        page.get_by_label("Срок (для запрета писать и садиться)").select_option("1d")
        page.get_by_label("Причина (игрок её увидит)").fill("Оскорбления")
        shoot(page, "moderation-admin-decide")
        page.set_viewport_size({"width": 1280, "height": 800})
        page.get_by_role("button", name="Записать решение").click()
        page.get_by_text("Решение записано.").wait_for()
        mute = Sanction.objects.get()
        assert (mute.kind, mute.created_by, mute.reason) == ("mute", moderator, "Оскорбления")
        assert Report.objects.get().status == "handled"
        console.assert_clean("in the admin")
    finally:
        context.close()
