"""Web Push's writes and decisions: subscriptions kept and dropped, each notification
decided once (`Notice`) and delivered after commit by a Celery task (push.delivery), and the
table pages' visibility, which keeps «Ваш ход» from a player looking at the table.

Push is off until the VAPID keys are set (settings.WEBPUSH_VAPID_*): then nothing here
reads or writes anything, and the opt-in button is not shown."""

from __future__ import annotations

import datetime
import math
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Subquery
from django.urls import reverse

from play.models import Game, Presence
from push.delivery import push_deliver
from push.models import Notice, PageView, Subscription
from tables.models import Table
from tournaments.models import Entry, Tournament

# «Турнир начинается через 5 минут»: the entrants of an event that starts this soon.
REMINDER_BEFORE = datetime.timedelta(minutes=5)
# How long a notice is kept after its news is over.
NOTICE_KEPT_AFTER = datetime.timedelta(days=1)
# The longest a notice of a tournament table may wait in the push service.
TABLE_READY_LONGEST = datetime.timedelta(hours=6)


def push_enabled() -> bool:
    """Whether Web Push is configured (both VAPID keys set)."""
    return bool(settings.WEBPUSH_VAPID_PUBLIC_KEY and settings.WEBPUSH_VAPID_PRIVATE_KEY)


def table_tag(table_id: int) -> str:
    """One notification per table: the browser's `tag` and the push service's `Topic`."""
    return f"table-{table_id}"


# --- subscriptions ---------------------------------------------------------------------


@transaction.atomic
def subscription_save(
    *, user: Any, endpoint: str, p256dh: str, auth: str, language: str, user_agent: str
) -> tuple[Subscription, bool]:
    """Keep a browser's subscription for `user` (and whether it is new). The same endpoint
    again is the same browser: its keys and owner are updated (another player signed in
    on it takes its notifications over)."""
    subscription, created = Subscription.objects.update_or_create(
        endpoint=endpoint,
        defaults={
            "user": user,
            "p256dh": p256dh,
            "auth": auth,
            "language": language,
            "user_agent": user_agent[:100],
        },
    )
    return subscription, created


def subscription_delete(*, user: Any, endpoint: str) -> bool:
    """Forget `user`'s subscription of `endpoint` (unsubscribed); whether there was one."""
    deleted, _ = Subscription.objects.filter(user=user, endpoint=endpoint).delete()
    return bool(deleted)


# --- notices ---------------------------------------------------------------------------


def notice_create(
    *,
    user_id: int,
    kind: str,
    key: str,
    tag: str,
    url: str,
    open_until: datetime.datetime,
    context: dict[str, Any],
) -> Notice | None:
    """Decide a notification once: the new `Notice`, delivered to every subscription of
    the player after commit; None when it was decided before (or the player has no
    subscription)."""
    if not Subscription.objects.filter(user_id=user_id).exists():
        return None
    with transaction.atomic():
        notice, created = Notice.objects.get_or_create(
            user_id=user_id,
            kind=kind,
            key=key,
            defaults={"tag": tag, "url": url, "open_until": open_until, "context": context},
        )
        if not created:
            return None
        notice_id = notice.pk
        transaction.on_commit(lambda: push_deliver.delay(notice_id))
    return notice


def looking_at(*, user_id: int, table_id: int) -> bool:
    """Whether one of the player's open sockets at the table is a visible table page."""
    open_sockets = Presence.objects.filter(user_id=user_id, table_id=table_id).values(
        "channel_name"
    )
    return PageView.objects.filter(
        user_id=user_id,
        table_id=table_id,
        visible=True,
        channel_name__in=Subquery(open_sockets),
    ).exists()


def turn_notify(
    *,
    user_id: int,
    table_id: int,
    game_id: int,
    version: int,
    deadline: datetime.datetime,
    now: datetime.datetime,
) -> Notice | None:
    """«Ваш ход»: the player's decision at `table_id` waits until `deadline`. Sent only
    when no page of theirs at the table is visible, once per decision (the game and its
    state's version), and not while an earlier notice of the table is still open: one
    notification per table, until the player looks at it again."""
    if not push_enabled() or deadline <= now:
        return None
    if not Subscription.objects.filter(user_id=user_id).exists():
        return None
    if looking_at(user_id=user_id, table_id=table_id):
        return None
    tag = table_tag(table_id)
    if Notice.objects.filter(user_id=user_id, tag=tag, open_until__gt=now).exists():
        return None
    name = Table.objects.filter(pk=table_id).values_list("name", flat=True).first() or ""
    return notice_create(
        user_id=user_id,
        kind=Notice.Kind.TURN,
        key=f"{game_id}:{version}",
        tag=tag,
        url=reverse("table", args=[table_id]),
        open_until=deadline,
        context={"table": name},
    )


def table_ready_notify(
    *, user_id: int, tournament_id: int, table_id: int, now: datetime.datetime
) -> Notice | None:
    """«Ваш стол готов»: an entrant's tournament table was opened for them."""
    if not push_enabled():
        return None
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        return None
    return notice_create(
        user_id=user_id,
        kind=Notice.Kind.TABLE_READY,
        key=str(table_id),
        tag=table_tag(table_id),
        url=reverse("table", args=[table_id]),
        open_until=min(max(tournament.ends_at, now), now + TABLE_READY_LONGEST),
        context={"event": tournament.name},
    )


def reminders_send(*, now: datetime.datetime) -> int:
    """«Турнир начинается через 5 минут»: to every registered entrant with a subscription
    of an event starting within REMINDER_BEFORE, once per entrant and event (a beat run
    twice sends nothing twice). Also forgets the visibility of sockets since closed and
    the notices a day past their news. The number of notices decided."""
    if not push_enabled():
        return 0
    _prune_page_views()
    # A notice is kept a day past its news: long enough that nothing is decided twice
    # (each kind's news is over by then), short enough that the table stays small.
    Notice.objects.filter(open_until__lt=now - NOTICE_KEPT_AFTER).delete()
    entries = (
        Entry.objects.filter(
            status=Entry.Status.REGISTERED,
            tournament__status__in=[Tournament.Status.SCHEDULED, Tournament.Status.REGISTERING],
            tournament__starts_at__gt=now,
            tournament__starts_at__lte=now + REMINDER_BEFORE,
            player__push_subscriptions__isnull=False,
        )
        .select_related("tournament")
        .distinct()
    )
    decided = 0
    for entry in entries:
        tournament = entry.tournament
        minutes = max(1, math.ceil((tournament.starts_at - now).total_seconds() / 60))
        notice = notice_create(
            user_id=entry.player_id,
            kind=Notice.Kind.TOURNAMENT_SOON,
            key=str(tournament.pk),
            tag=f"tournament-{tournament.pk}",
            url=reverse("tournament", args=[tournament.pk]),
            open_until=tournament.starts_at,
            context={"event": tournament.name, "minutes": minutes},
        )
        decided += notice is not None
    return decided


def _prune_page_views() -> None:
    """Forget the visibility of sockets that are gone (their presence rows deleted)."""
    PageView.objects.exclude(
        channel_name__in=Subquery(Presence.objects.values("channel_name"))
    ).delete()


# --- the table page's visibility -------------------------------------------------------


def page_visibility_set(
    *, channel_name: str, user_id: int, table_id: int, visible: bool, now: datetime.datetime
) -> Notice | None:
    """A table page said whether it is visible. Visible: the player is looking, so the
    notices of this table are closed (one not delivered yet is dropped). Hidden, while the
    player's decision at this table runs and no other page of theirs there is visible:
    «Ваш ход» (returned)."""
    if not push_enabled():
        return None
    PageView.objects.update_or_create(
        channel_name=channel_name,
        defaults={"user_id": user_id, "table_id": table_id, "visible": visible},
    )
    if visible:
        Notice.objects.filter(user_id=user_id, tag=table_tag(table_id), open_until__gt=now).update(
            open_until=now
        )
        return None
    game = (
        Game.objects.filter(table_id=table_id, status=Game.Status.PLAYING, deadline__gt=now)
        .exclude(deadline_seat="")
        .first()
    )
    if game is None:
        return None
    mine = next((p["id"] for p in game.players if p.get("user") == user_id), None)
    if mine is None or mine != game.deadline_seat or game.deadline is None:
        return None
    return turn_notify(
        user_id=user_id,
        table_id=table_id,
        game_id=game.pk,
        version=game.state["version"],
        deadline=game.deadline,
        now=now,
    )
