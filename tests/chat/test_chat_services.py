"""The chat's word filter, its admin, and retention (chat.services, chat.tasks)."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from chat import services, wordfilter
from chat.models import ChatMessage, FilterWord
from chat.tasks import chat_prune
from tables import services as tables
from tests.play.live_helpers import classic_started


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("иди нахуй", "иди н****"),
        ("Пиздец!", "П*****!"),
        ("заебал уже", "з***** уже"),
        ("ёбаный стыд", "ё***** стыд"),
        ("xyй", "x**"),  # Latin look-alikes in a Cyrillic word
        ("бЛяТь", "б****"),
        ("what the fuck", "what the f***"),
        ("motherfucker", "m***********"),
        ("suka blyat", "s*** b****"),
    ],
)
def test_obscene_words_are_masked_by_their_root(written: str, shown: str) -> None:
    assert wordfilter.mask(written) == shown


@pytest.mark.parametrize(
    "innocent",
    [
        "Хорошо сыграно, ребята",
        "оскорблять, употреблять, корабля",
        "себя, небо, хлеб, учебник",
        "застрахуйте мандарин сукно",
        "мудрый хулиган",
        "Dickens, scunthorpe? classic",
    ],
)
def test_ordinary_words_that_hold_a_root_are_left_alone(innocent: str) -> None:
    assert wordfilter.mask(innocent) == innocent


def test_words_an_admin_adds_are_masked_as_roots(db) -> None:
    FilterWord.objects.create(word="Жулик")
    assert wordfilter.mask("жульё", services.filter_words()) == "жульё"
    assert services.filter_words() == ("Жулик",)
    assert wordfilter.mask("ты жулик, жуликоватый", services.filter_words()) == (
        "ты ж****, ж**********"
    )


def test_the_admin_shows_moderators_the_original_next_to_the_masked_text(
    db, make_user, admin_client
) -> None:
    table, users = classic_started(make_user)
    author = next(iter(users.values()))
    message = services.message_post(author=author, table_id=table.pk, text="ну ты мудак")
    page = admin_client.get("/admin/chat/chatmessage/").content.decode()
    assert "ну ты мудак" in page and "ну ты м****" in page
    detail = admin_client.get(f"/admin/chat/chatmessage/{message.pk}/change/")
    assert detail.status_code == 200
    body = detail.content.decode()
    assert "ну ты мудак" in body and "ну ты м****" in body
    assert 'name="text"' not in body  # read-only: no field to edit


def test_the_retention_task_deletes_messages_older_than_the_setting(
    db, make_user, settings
) -> None:
    settings.CHAT_RETENTION_DAYS = 30
    author = make_user("ann")
    table = tables.table_create(variant="classic", name="Чат")
    now = timezone.now()
    old = ChatMessage.objects.create(
        table=table,
        author=author,
        text="старое",
        shown="старое",
        created_at=now - datetime.timedelta(days=31),
    )
    kept = ChatMessage.objects.create(
        table=table,
        author=author,
        text="свежее",
        shown="свежее",
        created_at=now - datetime.timedelta(days=29),
    )
    assert chat_prune() == 1
    assert list(ChatMessage.objects.values_list("pk", flat=True)) == [kept.pk]
    assert not ChatMessage.objects.filter(pk=old.pk).exists()
    # Nor does the history restore one past the period before the task runs.
    settings.CHAT_RETENTION_DAYS = 28
    assert services.history_for(table_id=table.pk, user_id=None, blocked=set()) == []


def test_clean_text_keeps_emoji_sequences_and_drops_controls() -> None:
    family = "👨\u200d👩\u200d👧"
    assert services.clean_text(f" a\x00b\u202ec\n{family} ") == f"abc {family}"


def test_the_embedded_ticker_runs_the_hourly_pruning_as_beat_would(db, make_user, settings) -> None:
    """Without a broker there is no beat: the embedded ticker runs beat's periodic entries
    itself, so an embedded platform deletes what production deletes."""
    from play.clock import ticker

    settings.CHAT_RETENTION_DAYS = 30
    author = make_user("ann")
    table = tables.table_create(variant="classic", name="Чат")
    ChatMessage.objects.create(
        table=table,
        author=author,
        text="старое",
        shown="старое",
        created_at=timezone.now() - datetime.timedelta(days=31),
    )
    ticker._periodic_ran_at.clear()

    assert "chat.tasks.chat_prune" in ticker.run_periodic_entries()
    assert not ChatMessage.objects.exists()
    # Within the hour it does not run again (a tick is a quarter second).
    assert ticker.run_periodic_entries() == []


@pytest.mark.django_db
def test_held_from_is_the_one_rule_of_who_may_not_see_a_held_message(make_user) -> None:
    # docs/protocol.md §17.3: held from the players it was withheld from and from anyone
    # seated now, until released; never from its author or an anonymous watcher.
    from tables.models import Seat

    ann, carol, dave, erin = (make_user(n) for n in ("ann", "carol", "dave", "erin"))
    table = tables.table_create(variant="classic", name="Общий")
    Seat.objects.create(table=table, number=1, player=dave)  # sat down after it was written
    message = ChatMessage.objects.create(
        table=table,
        author=carol,
        text="Бери!",
        shown="Бери!",
        from_spectator=True,
        held=True,
        withheld_from=[ann.pk],
    )
    assert services.held_from(message, user_id=ann.pk)
    assert services.held_from(message, user_id=dave.pk)
    assert not services.held_from(message, user_id=erin.pk)  # a spectator
    assert not services.held_from(message, user_id=carol.pk)  # its author
    assert not services.held_from(message, user_id=None)  # an anonymous watcher
    message.released_at = timezone.now()
    assert not services.held_from(message, user_id=ann.pk)
    assert not services.held_from(message, user_id=dave.pk)


def test_the_ticker_finds_beats_tasks_in_a_web_process_that_never_imported_them() -> None:
    """In a fresh interpreter, as in daphne: nothing has imported chat.tasks (a worker's
    start is what autodiscovers them), yet the ticker's periodic entry runs."""
    import subprocess
    import sys

    script = (
        "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings'); "
        "django.setup(); import sys; "
        "assert 'chat.tasks' not in sys.modules; "
        "from play.clock.ticker import beat_task; "
        "print(beat_task('chat.tasks.chat_prune').name)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "chat.tasks.chat_prune"
