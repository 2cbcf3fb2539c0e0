"""Writing, holding and pruning chat messages (docs/protocol.md §17). Services own the
writes: each is one transaction, and delivery follows its commit (chat.delivery)."""

from __future__ import annotations

import datetime
import time
import unicodedata
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accounts.throttling import throttle_hit
from chat import delivery, phrases, wordfilter
from chat.errors import ChatRefused
from chat.models import MAX_LENGTH, ChatMessage, FilterWord
from chat.signals import message_posting
from games import deals
from play.models import Game
from tables.models import Seat, Table

# How many of the latest messages a connection is sent when it opens.
HISTORY_MESSAGES = 50
# The admin's words are read at most this often per process (and at once after a change:
# the version key below is bumped on save).
_FILTER_WORDS_SECONDS = 60
_FILTER_WORDS_VERSION = "chat:filter-words:version"
_filter_words: tuple[Any, float, tuple[str, ...]] | None = None

# Characters a chat message never keeps: the controls (a newline is a space) and the
# invisible ones that reorder or hide text (bidi overrides and isolates, zero widths),
# except the zero-width joiner emoji sequences are made of.
_KEPT_FORMAT = {"\u200d"}


class RateLimited(ChatRefused):
    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__("rate_limited", message)
        self.retry_after = retry_after


def clean_text(text: str) -> str:
    """`text` as plain text: whitespace controls as spaces, other control and format
    characters dropped, trimmed."""
    kept = []
    for char in text:
        if char in "\t\n\r\v\f":
            kept.append(" ")
            continue
        category = unicodedata.category(char)
        if category == "Cc" or (category == "Cf" and char not in _KEPT_FORMAT):
            continue
        kept.append(char)
    return "".join(kept).strip()


def filter_words() -> tuple[str, ...]:
    """The words admins added (chat.models.FilterWord), read at most once a minute per
    process and again at once after one is changed (in any process: a cache version)."""
    global _filter_words
    version = cache.get(_FILTER_WORDS_VERSION)
    now = time.monotonic()
    if _filter_words is not None:
        seen_version, read_at, words = _filter_words
        if seen_version == version and now - read_at < _FILTER_WORDS_SECONDS:
            return words
    words = tuple(FilterWord.objects.values_list("word", flat=True))
    _filter_words = (version, now, words)
    return words


def filter_words_changed() -> None:
    """An admin changed the words: every process reads them again."""
    cache.set(_FILTER_WORDS_VERSION, time.time_ns(), timeout=None)


def _check_rate(author_id: int) -> None:
    limit = settings.CHAT_RATE_MESSAGES
    window = settings.CHAT_RATE_WINDOW_SECONDS
    hit = throttle_hit(scope="chat", subject=str(author_id), limit=limit, window_seconds=window)
    if hit.allowed:
        return
    retry = hit.retry_after
    raise RateLimited(
        _(
            "Слишком часто: не больше %(n)d сообщений за %(window)d с. "
            "Следующее можно через %(retry)d с."
        )
        % {"n": limit, "window": window, "retry": retry},
        retry,
    )


def _content(text: Any, phrase: Any, reaction: Any) -> tuple[str, str]:
    """(the text as written, the phrase or reaction key) of a message, or its refusal:
    exactly one of `text`, `phrase` and `reaction` (None: not given), a phrase by one of
    the phrases' keys, a reaction by one of the reactions'."""
    given = [field for field in (text, phrase, reaction) if field is not None]
    if len(given) != 1:
        raise ChatRefused(
            "bad_message",
            _('Сообщение чата несёт ровно одно из полей "text", "phrase" и "reaction".'),
        )
    if phrase is not None and (not isinstance(phrase, str) or phrase not in phrases.QUICK_PHRASES):
        raise ChatRefused("bad_message", _("Такой быстрой фразы нет."))
    if reaction is not None and (
        not isinstance(reaction, str) or reaction not in phrases.REACTIONS
    ):
        raise ChatRefused("bad_message", _("Такой реакции нет."))
    key = phrase if phrase is not None else reaction
    if key is not None:
        with translation.override("ru"):  # what moderators read
            return phrases.phrase_text(key), key
    if not isinstance(text, str):
        raise ChatRefused("bad_message", _('Поле "text" должно быть строкой.'))
    cleaned = clean_text(text)
    if not cleaned:
        raise ChatRefused("chat_empty", _("Пустое сообщение не отправляется."))
    if len(cleaned) > MAX_LENGTH:
        raise ChatRefused(
            "chat_too_long",
            _("Сообщение длиннее %(n)d знаков: сейчас %(length)d.")
            % {"n": MAX_LENGTH, "length": len(cleaned)},
        )
    return cleaned, ""


def message_post(
    *, author: Any, table_id: int, text: Any = None, phrase: Any = None, reaction: Any = None
) -> ChatMessage:
    """Write one message at the table and, once committed, deliver it: at once to every
    connection, except — while a deal is in play — a spectator's to the seated players,
    who get it when the deal ends (`deal_ended_release`). Every call counts against the
    author's rate budget, a refused message too (§17.1)."""
    # Counted first, before the content is looked at (a flood of refused messages is
    # limited as well) and before any database work (a flood costs the cache alone).
    _check_rate(author.pk)
    written, key = _content(text, phrase, reaction)
    with transaction.atomic():
        # Locked as a move locks it: a deal cannot end between the look at it below and
        # this message's commit (its release would then miss the message).
        table = Table.objects.select_for_update().filter(pk=table_id).first()
        if table is None:
            raise ChatRefused("not_found", _("Такого стола нет."))
        message_posting.send(sender=ChatMessage, author=author, table=table)
        seats = {
            player_id: seat_number
            for player_id, seat_number in Seat.objects.filter(
                table=table, player__isnull=False
            ).values_list("player_id", "number")
        }
        withheld: list[int] = []
        game = Game.objects.filter(table=table, status=Game.Status.PLAYING).first()
        if author.pk not in seats and game is not None and deals.deal_in_play(game.state):
            withheld = sorted(seats)
        shown = written if key else wordfilter.mask(written, filter_words())
        message = ChatMessage.objects.create(
            table=table,
            game=game,
            author=author,
            text=written,
            shown=shown,
            phrase=key,
            from_spectator=author.pk not in seats,
            held=bool(withheld),
            withheld_from=withheld,
        )
        payload = delivery.payload(message, author)
        version = table.version
        transaction.on_commit(
            lambda: delivery.deliver(table.pk, payload, withheld=withheld, version=version)
        )
    return message


def _held(table_id: int) -> QuerySet[ChatMessage]:
    """The table's messages held and not yet released."""
    return ChatMessage.objects.filter(table_id=table_id, held=True, released_at__isnull=True)


def deal_ended_release(*, table_id: int) -> int:
    """The deal at the table ended: the messages held from its seated players go to them
    now. How many were released."""
    # Most deals end with nothing held: one query on the partial index, no transaction.
    if not _held(table_id).exists():
        return 0
    pending = _held(table_id)
    with transaction.atomic():
        held = list(
            pending.select_for_update(of=("self",))
            .select_related("author")
            .order_by("created_at", "id")
        )
        if not held:
            return 0
        now = timezone.now()
        ChatMessage.objects.filter(pk__in=[m.pk for m in held]).update(released_at=now)
        version = Table.objects.filter(pk=table_id).values_list("version", flat=True).first()
        released = [{**delivery.payload(m, m.author), "to": m.withheld_from} for m in held]
        transaction.on_commit(lambda: delivery.release(table_id, released, version=version))
    return len(held)


def held_from(message: ChatMessage, *, user_id: int | None, seated: bool | None = None) -> bool:
    """Whether `message` may not be shown to the user `user_id` now (docs/protocol.md
    §17.3): it is held and not yet released, and they are one of the seated players it
    was held from or sit at its table now (`seated`, looked up when not given). Its author
    and anonymous watchers (None) see it. The one rule for every way a message is shown:
    the history, the report form."""
    if not message.held or message.released_at is not None or user_id is None:
        return False
    if message.author_id == user_id:
        return False
    if user_id in message.withheld_from:
        return True
    if seated is None:
        seated = Seat.objects.filter(table_id=message.table_id, player_id=user_id).exists()
    return seated


def history_for(
    *,
    table_id: int,
    user_id: int | None,
    blocked: set[int],
    session_user_id: int | None = None,
) -> list[dict[str, Any]]:
    """The latest messages this viewer may see, oldest first: not those of authors they
    blocked, nor, while held, those held from them (or from any seated player, if they
    sit now); none older than the retention period. `session_user_id`: the user whose
    session a view-only socket (user_id None) belongs to, so that what is held from that
    user is held from their shared screen too."""
    holder_id = user_id if user_id is not None else session_user_id
    since = timezone.now() - datetime.timedelta(days=settings.CHAT_RETENTION_DAYS)
    rows = (
        ChatMessage.objects.filter(table_id=table_id, created_at__gte=since)
        .exclude(author_id__in=blocked)
        .select_related("author")
        .order_by("-created_at", "-id")
    )
    seated = False
    if holder_id is not None:
        seated = Seat.objects.filter(table_id=table_id, player_id=holder_id).exists()
        if seated:
            rows = rows.exclude(~Q(author_id=holder_id), held=True, released_at__isnull=True)
    messages = []
    for message in reversed(list(rows[:HISTORY_MESSAGES])):
        if held_from(message, user_id=holder_id, seated=seated):
            continue
        payload = delivery.payload(message, message.author)
        payload["held"] = bool(message.held and holder_id in message.withheld_from)
        messages.append(payload)
    return messages


def messages_prune(*, now: datetime.datetime | None = None, batch: int = 5000) -> int:
    """Delete the messages older than CHAT_RETENTION_DAYS, a batch at a time (short
    transactions on the created_at index). How many were deleted."""
    cutoff = (now or timezone.now()) - datetime.timedelta(days=settings.CHAT_RETENTION_DAYS)
    total = 0
    while True:
        ids = list(
            ChatMessage.objects.filter(created_at__lt=cutoff)
            .order_by("created_at")
            .values_list("pk", flat=True)[:batch]
        )
        if not ids:
            return total
        total += ChatMessage.objects.filter(pk__in=ids).delete()[0]
