"""Friends and invites (issue 21, item 4): a request the other accepts, who of one's
friends is online and where, and invites to a private table.

"Online" is either of two signs of life, both cheap to read:
- a live connection at a table: live play's presence rows (play.models.Presence, with
  the heartbeat play.db.selectors keeps), the same rows that tell a table who is there;
- the lobby: the lobby socket records no presence, so the lobby page marks its viewer in
  the shared cache (`people:online:<user id>`, expiring after ONLINE_SECONDS) when it
  renders the friends panel and each time its script polls the panel (every
  PANEL_POLL_SECONDS). A cache write per poll; no database write.
docs/decisions.md ("Friends, invites and blocks") says why.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _

from people.blocks import blocked_between
from people.models import FriendRequest, Friendship, Invite
from play.db.selectors import PRESENCE_TTL_SECONDS, last_beats
from play.models import Presence
from tables.models import Seat, Table

# The lobby's script polls the panel this often; a mark outlives two polls missed.
PANEL_POLL_SECONDS = 30
ONLINE_SECONDS = 90
# An invite shows in the friend's lobby while its table is open, for at most this long.
INVITE_HOURS = 3


class PeopleError(Exception):
    """A friends or invites request refused: `code` is the protocol's error code
    (docs/protocol.md, "Friends, invites and blocks") and the message is in the active
    language, fit to show the player."""

    def __init__(
        self,
        code: str,
        message: str,
        status: int = 400,
        *,
        limit: str = "",
        retry_after: int = 0,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        # A `rate_limited`'s limit (contract.codes.LIMITS) and the seconds to wait.
        self.limit = limit
        self.retry_after = retry_after


def _online_key(user_id: int) -> str:
    return f"people:online:{user_id}"


def mark_online(user: Any) -> None:
    """The viewer has the lobby open (people.templatetags, people.views.friends_json)."""
    cache.set(_online_key(user.pk), 1, timeout=ONLINE_SECONDS)


def are_friends(a: Any, b: Any) -> bool:
    return Friendship.objects.filter(user=a, friend=b).exists()


# --- friend requests -----------------------------------------------------------------


def _refuse_across_a_block(user: Any, other: Any) -> None:
    if blocked_between(user.pk, other.pk):
        raise PeopleError("blocked", _("Нельзя: один из вас заблокировал другого."), status=403)


def _befriend(a: Any, b: Any) -> None:
    FriendRequest.objects.filter(Q(sender=a, recipient=b) | Q(sender=b, recipient=a)).delete()
    for user, friend in ((a, b), (b, a)):
        Friendship.objects.get_or_create(user=user, friend=friend)


@transaction.atomic
def friend_request_send(*, sender: Any, recipient: Any) -> str:
    """`sender` asks `recipient` to be friends. Answers "requested", or "friends" when
    the recipient had asked the sender already (the two requests make a friendship).
    Sending again changes nothing."""
    if sender.pk == recipient.pk:
        raise PeopleError("self", _("Нельзя добавить в друзья самого себя."))
    _refuse_across_a_block(sender, recipient)
    if are_friends(sender, recipient):
        return "friends"
    if FriendRequest.objects.filter(sender=recipient, recipient=sender).exists():
        _befriend(sender, recipient)
        return "friends"
    try:
        with transaction.atomic():
            FriendRequest.objects.get_or_create(sender=sender, recipient=recipient)
    except IntegrityError:  # the same request posted twice at once: it is there
        pass
    return "requested"


@transaction.atomic
def friend_request_accept(*, recipient: Any, sender: Any) -> None:
    if not FriendRequest.objects.filter(sender=sender, recipient=recipient).exists():
        if are_friends(recipient, sender):
            return
        raise PeopleError("no_request", _("Заявки от этого игрока нет."), status=404)
    _refuse_across_a_block(recipient, sender)
    _befriend(recipient, sender)


@transaction.atomic
def friend_request_decline(*, recipient: Any, sender: Any) -> bool:
    deleted, _n = FriendRequest.objects.filter(sender=sender, recipient=recipient).delete()
    return bool(deleted)


@transaction.atomic
def friend_request_cancel(*, sender: Any, recipient: Any) -> bool:
    deleted, _n = FriendRequest.objects.filter(sender=sender, recipient=recipient).delete()
    return bool(deleted)


@transaction.atomic
def friend_remove(*, user: Any, friend: Any) -> bool:
    """End a friendship (both rows) and the invites between the two."""
    deleted, _n = Friendship.objects.filter(
        Q(user=user, friend=friend) | Q(user=friend, friend=user)
    ).delete()
    Invite.objects.filter(
        Q(sender=user, recipient=friend) | Q(sender=friend, recipient=user)
    ).delete()
    return bool(deleted)


def friend_state(viewer: Any, other: Any) -> str:
    """How `viewer` stands with `other`: "friends", "outgoing" (viewer asked),
    "incoming" (other asked) or "none"."""
    if are_friends(viewer, other):
        return "friends"
    pending = set(
        FriendRequest.objects.filter(
            Q(sender=viewer, recipient=other) | Q(sender=other, recipient=viewer)
        ).values_list("sender_id", flat=True)
    )
    if viewer.pk in pending:
        return "outgoing"
    if other.pk in pending:
        return "incoming"
    return "none"


# --- invites -------------------------------------------------------------------------


def may_invite(table: Table, user: Any) -> bool:
    """Who may invite a friend to a private table: its host, or a player seated there
    (the two who may see the table, and so its invite link, anyway). Nobody at a
    tournament's table (Table.one_game): its seats are the event's entrants'."""
    if not user.is_authenticated or not table.private or not table.is_open or table.one_game:
        return False
    return table.created_by_id == user.pk or table.seats.filter(player=user).exists()


def invite_join_url(table: Table) -> str:
    """The private table's invite link, as the table page expects it, sitting down at
    once (play.edge.pages, play.services.seating: `invite` and `sit`)."""
    query = urlencode({"invite": table.invite_code, "sit": 1})
    return f"{reverse('table', args=[table.pk])}?{query}"


@transaction.atomic
def invite_send(*, sender: Any, recipient: Any, table: Table) -> Invite:
    """Invite a friend to a private table; inviting again renews the invite."""
    if not table.private:
        raise PeopleError(
            "not_private", _("Приглашать можно только за частный стол: открытый стол виден всем.")
        )
    if not table.is_open:
        raise PeopleError("table_closed", _("Стол закрыт."))
    if table.one_game:
        raise PeopleError(
            "not_at_table",
            _("За турнирный стол не приглашают: за ним играют участники турнира."),
            status=403,
        )
    if not may_invite(table, sender):
        raise PeopleError(
            "not_at_table",
            _("Пригласить за стол может его ведущий или игрок, который за ним сидит."),
            status=403,
        )
    if sender.pk == recipient.pk:
        raise PeopleError("self", _("Себя пригласить нельзя."))
    _refuse_across_a_block(sender, recipient)
    if not are_friends(sender, recipient):
        raise PeopleError("not_friends", _("Пригласить можно только друга."), status=403)
    if recipient.is_bot and not table.allows_bots:
        raise PeopleError(
            "bots_not_allowed",
            _("Ботов за этот стол звать нельзя: хозяин их не пускает."),
            status=403,
        )
    host_id = table.created_by_id
    if host_id and host_id != sender.pk and blocked_between(host_id, recipient.pk):
        # A guest's invite carries the table's link, which lets its holder watch and read
        # the chat: not to someone the host blocked or who blocked the host (who could
        # not sit there anyway). Which of the two blocked is not the guest's to learn.
        raise PeopleError(
            "blocked",
            _("Этого игрока нельзя пригласить за этот стол."),
            status=403,
        )
    invite, _created = Invite.objects.update_or_create(
        recipient=recipient,
        table=table,
        defaults={"sender": sender, "created_at": timezone.now()},
    )
    return invite


@transaction.atomic
def invite_dismiss(*, recipient: Any, invite_id: int) -> bool:
    deleted, _n = Invite.objects.filter(pk=invite_id, recipient=recipient).delete()
    return bool(deleted)


def live_invites(user: Any) -> list[Invite]:
    """The user's invites still worth a tap, newest first: the table open, sent within
    INVITE_HOURS. The lapsed ones are deleted on the way (a table's close needs no hook)."""
    since = timezone.now() - datetime.timedelta(hours=INVITE_HOURS)
    Invite.objects.filter(recipient=user).filter(
        Q(created_at__lt=since) | ~Q(table__status=Table.Status.OPEN)
    ).delete()
    return list(
        Invite.objects.filter(recipient=user)
        .select_related("table", "sender")
        .order_by("-created_at", "-id")
    )


# --- who is online -------------------------------------------------------------------


@dataclass(frozen=True)
class FriendLine:
    user_id: int
    name: str
    online: bool
    table: Table | None = None  # a public table (or a private one the viewer is a guest at)
    seated: bool = False  # the friend holds a seat at `table`


def friends_of(user: Any) -> list[tuple[int, str]]:
    return list(
        Friendship.objects.filter(user=user)
        .order_by("friend__username")
        .values_list("friend_id", "friend__username")
    )


def friends_online(user: Any) -> list[FriendLine]:
    """The user's friends, the online first, with the table each is at (when the user may
    see it). Two queries (friends; their live connections with the tables and the seats
    there) and one cache read for the lobby marks — a third query only when a friend is
    at a private table, to tell whether the viewer is a guest there."""
    friends = friends_of(user)
    if not friends:
        return []
    ids = [pk for pk, _name in friends]
    now = timezone.now()
    cutoff = now - datetime.timedelta(seconds=PRESENCE_TTL_SECONDS)
    rows = list(
        Presence.objects.filter(user_id__in=ids, table__status=Table.Status.OPEN)
        .select_related("table")
        .order_by("-seen_at")
    )
    beats = last_beats([(row.channel_name,) for row in rows if row.seen_at < cutoff])
    live = [
        row
        for row in rows
        if row.seen_at >= cutoff or beats.get(row.channel_name, 0.0) >= cutoff.timestamp()
    ]
    in_lobby = cache.get_many([_online_key(pk) for pk in ids])
    seats: set[tuple[int, int]] = set()
    guest_at: set[int] = set()
    if live:
        table_ids = {row.table_id for row in live}
        seats = set(
            Seat.objects.filter(table_id__in=table_ids, player_id__in=[*ids, user.pk]).values_list(
                "table_id", "player_id"
            )
        )
        guest_at = {
            row.table_id
            for row in live
            if row.table.created_by_id == user.pk or (row.table_id, user.pk) in seats
        }
    where: dict[int, tuple[Table | None, bool]] = {}
    for row in live:
        table = row.table
        shown = table if (not table.private or table.pk in guest_at) else None
        seated = (table.pk, row.user_id) in seats
        best = where.get(row.user_id)
        # A shown table beats a hidden one, a seat beats watching; else the newest.
        if best is None or (shown is not None and (best[0] is None or (seated and not best[1]))):
            where[row.user_id] = (shown, seated and shown is not None)
    lines = [
        FriendLine(
            user_id=pk,
            name=name,
            online=pk in where or _online_key(pk) in in_lobby,
            table=where.get(pk, (None, False))[0],
            seated=where.get(pk, (None, False))[1],
        )
        for pk, name in friends
    ]
    lines.sort(key=lambda line: (not line.online, line.name.lower()))
    return lines


def requests_of(user: Any) -> tuple[list[FriendRequest], list[FriendRequest]]:
    """(incoming, outgoing) pending requests, newest first."""
    incoming = list(
        FriendRequest.objects.filter(recipient=user)
        .select_related("sender")
        .order_by("-created_at")
    )
    outgoing = list(
        FriendRequest.objects.filter(sender=user)
        .select_related("recipient")
        .order_by("-created_at")
    )
    return incoming, outgoing
