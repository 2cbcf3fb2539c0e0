"""Blocking another player (issue 21, item 2): the block list, and what a block does.

A block is one-sided in what it hides (the chat hides the blocked player's messages from
the blocker only) and two-sided in what it forbids: neither may sit at a private table the
other hosts, nor send the other a friend request or an invite. Blocking ends a friendship
and any pending request between the two."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Q

from people.models import Block, FriendRequest, Friendship, Invite
from people.signals import blocks_changed


def blocked_ids(user_id: int) -> set[int]:
    """The ids of the users `user_id` blocked."""
    return set(Block.objects.filter(blocker_id=user_id).values_list("blocked_id", flat=True))


def blocked_between(a_id: int, b_id: int) -> bool:
    """Whether either of the two blocked the other."""
    return Block.objects.filter(
        Q(blocker_id=a_id, blocked_id=b_id) | Q(blocker_id=b_id, blocked_id=a_id)
    ).exists()


def has_blocked(blocker: Any, blocked: Any) -> bool:
    return Block.objects.filter(blocker=blocker, blocked=blocked).exists()


def _changed_on_commit(user_id: int) -> None:
    transaction.on_commit(lambda: blocks_changed.send(sender=Block, user_id=user_id))


@transaction.atomic
def block_add(*, blocker: Any, blocked: Any) -> bool:
    """`blocker` blocks `blocked`; False when they had already. Ends the two's
    friendship, their requests and their invites to each other."""
    if blocker.pk == blocked.pk:
        raise ValueError("a player cannot block themselves")
    _block, created = Block.objects.get_or_create(blocker=blocker, blocked=blocked)
    pair = Q(user=blocker, friend=blocked) | Q(user=blocked, friend=blocker)
    Friendship.objects.filter(pair).delete()
    FriendRequest.objects.filter(
        Q(sender=blocker, recipient=blocked) | Q(sender=blocked, recipient=blocker)
    ).delete()
    Invite.objects.filter(
        Q(sender=blocker, recipient=blocked) | Q(sender=blocked, recipient=blocker)
    ).delete()
    if created:
        _changed_on_commit(blocker.pk)
    return created


@transaction.atomic
def block_remove(*, blocker: Any, blocked: Any) -> bool:
    """`blocker` unblocks `blocked`; False when there was no block. The friendship a
    block ended stays ended."""
    deleted, _ = Block.objects.filter(blocker=blocker, blocked=blocked).delete()
    if deleted:
        _changed_on_commit(blocker.pk)
    return bool(deleted)
