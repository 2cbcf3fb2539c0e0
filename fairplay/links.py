"""How strongly two accounts are linked by their sign-in traces (issue 32).

lichess's formula (modules/mod "UserLogins"): with `a` the addresses and `f` the devices
two accounts share, the link score is a + f + a·f. One shared address (a household, a
café, a mobile carrier's NAT) is 1; one browser both signed in from, 1; both together, 3 —
the product makes the two kinds of evidence count for more together than apart.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings

from fairplay.models import Trace


@dataclass(frozen=True)
class Link:
    addresses: int = 0
    devices: int = 0

    @property
    def score(self) -> int:
        return self.addresses + self.devices + self.addresses * self.devices

    @property
    def keeps_apart(self) -> bool:
        """Strong enough to keep the two from one player-bank table (FAIRPLAY_LINK_SCORE_APART)."""
        return self.score >= settings.FAIRPLAY_LINK_SCORE_APART


def links_to(player_id: int, others: Iterable[int]) -> dict[int, Link]:
    """Each of `others` that shares a trace with the player, with what they share. One
    query (the player's digests as a subquery)."""
    others = [pk for pk in others if pk != player_id]
    if not others:
        return {}
    mine = Trace.objects.filter(user_id=player_id).values("digest")
    shared = Counter(
        Trace.objects.filter(user_id__in=others, digest__in=mine).values_list("user_id", "kind")
    )
    users = {user_id for user_id, _ in shared}
    return {
        user_id: Link(
            addresses=shared[(user_id, Trace.Kind.ADDRESS)],
            devices=shared[(user_id, Trace.Kind.DEVICE)],
        )
        for user_id in users
    }


def link_between(first_id: int, second_id: int) -> Link:
    return links_to(first_id, [second_id]).get(second_id, Link())
