"""Who a player knows: blocks, friends (and the requests that make them), and invites
to a private table (issue 21, items 2 and 4)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from tables.models import Table


class Block(models.Model):
    """`blocker` does not want to hear from `blocked`: the chat hides the blocked
    player's messages from the blocker, and neither may sit at a private table the other
    hosts (people.receivers). A block ends a friendship and its requests."""

    blocker = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("кто заблокировал"),
        on_delete=models.CASCADE,
        related_name="+",
    )
    blocked = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("кого заблокировал"),
        on_delete=models.CASCADE,
        related_name="+",
    )
    created_at = models.DateTimeField(_("когда"), auto_now_add=True)

    class Meta:
        verbose_name = _("блокировка")
        verbose_name_plural = _("блокировки")
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="block_unique_pair"),
            models.CheckConstraint(
                condition=~models.Q(blocker=models.F("blocked")), name="block_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.blocker_id} ⊘ {self.blocked_id}"


class Friendship(models.Model):
    """One direction of a friendship: every friendship is two rows, (a, b) and (b, a),
    written and deleted together (people.friends), so that "the friends of X" is one
    indexed filter."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("игрок"),
        on_delete=models.CASCADE,
        related_name="+",
    )
    friend = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("друг"), on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(_("с"), auto_now_add=True)

    class Meta:
        verbose_name = _("дружба")
        verbose_name_plural = _("дружба")
        constraints = [
            models.UniqueConstraint(fields=["user", "friend"], name="friendship_unique_pair"),
            models.CheckConstraint(
                condition=~models.Q(user=models.F("friend")), name="friendship_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} ↔ {self.friend_id}"


class FriendRequest(models.Model):
    """`sender` asks `recipient` to be friends; the recipient accepts or declines, the
    sender may cancel. Either way the row goes."""

    sender = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("от кого"),
        on_delete=models.CASCADE,
        related_name="+",
    )
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("кому"), on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(_("когда"), auto_now_add=True)

    class Meta:
        verbose_name = _("заявка в друзья")
        verbose_name_plural = _("заявки в друзья")
        constraints = [
            models.UniqueConstraint(fields=["sender", "recipient"], name="friend_request_unique"),
            models.CheckConstraint(
                condition=~models.Q(sender=models.F("recipient")), name="friend_request_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.sender_id} → {self.recipient_id}"


class Invite(models.Model):
    """`sender` (the host or a player seated there) invites a friend to a private table.
    Shown in the recipient's lobby while the table is open and for
    people.friends.INVITE_HOURS after it was sent; the recipient may dismiss it."""

    sender = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("от кого"),
        on_delete=models.CASCADE,
        related_name="+",
    )
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("кому"), on_delete=models.CASCADE, related_name="+"
    )
    table = models.ForeignKey(
        Table, verbose_name=_("стол"), on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(_("когда"), db_index=True)

    class Meta:
        verbose_name = _("приглашение")
        verbose_name_plural = _("приглашения")
        constraints = [
            models.UniqueConstraint(fields=["recipient", "table"], name="invite_one_per_table"),
        ]

    def __str__(self) -> str:
        return f"{self.sender_id} → {self.recipient_id} @ {self.table_id}"
