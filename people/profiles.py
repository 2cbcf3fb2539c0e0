"""A player's public profile: the facts anyone may see about a player (issue 21, item 3).

Everything here is of games that are over, so nothing hidden is shown: no game in play
(its cards and its decisions name the player's hand), no single decision (the skill
rating is an aggregate, the one the lobby's leaderboard already publishes), and no game
at a private table to a viewer who did not play in it (its name and its being played
are the table's guests' business). A replay is linked only for a viewer who played in
the game: the replay page itself refuses anyone else.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q, Sum

from accounts.models import Account, LedgerEntry
from games.strategy.review import REVIEWED
from insights.skill import Skill, player_skills
from insights.stats import skill_figures, unit_name
from play.db.selectors import games_played_by
from play.models import Game
from tables.variants import VARIANTS, Variant

RECENT_GAMES = 10


@dataclass(frozen=True)
class VariantLine:
    variant: Variant
    unit: str
    games: int
    net_chips: int | None  # None: the variant is not played for chips
    rated_decisions: int
    skill: Skill | None

    @property
    def skill_text(self) -> dict[str, str] | None:
        return skill_figures(self.skill) if self.skill else None

    @property
    def reviewed(self) -> bool:
        """Whether the variant's decisions are reviewed, and so rated at all."""
        return self.variant.key in REVIEWED


@dataclass(frozen=True)
class RecentGame:
    game: Game
    variant: Variant
    voided: bool
    viewer_played: bool  # only then is the replay linked


@dataclass
class Profile:
    member_since: datetime.datetime
    variants: list[VariantLine] = field(default_factory=list)
    recent: list[RecentGame] = field(default_factory=list)

    @property
    def games(self) -> int:
        return sum(line.games for line in self.variants)


def _games_per_variant(user: Any) -> dict[str, int]:
    rows = games_played_by(user).order_by().values("variant").annotate(n=Count("id"))
    return {row["variant"]: row["n"] for row in rows}


def _net_chips_per_variant(user: Any) -> dict[str, int]:
    """What the player's wallet gained (or lost) in games over, per variant, from the
    ledger: payouts and refunds into it minus stakes out of it."""
    wallet = Account.objects.filter(owner=user, kind=Account.Kind.PLAYER).first()
    if wallet is None:
        return {}
    rows = (
        LedgerEntry.objects.filter(Q(source=wallet) | Q(destination=wallet), game__isnull=False)
        .exclude(game__status=Game.Status.PLAYING)
        .order_by()
        .values("game__variant")
        .annotate(
            into=Sum("amount", filter=Q(destination=wallet)),
            out=Sum("amount", filter=Q(source=wallet)),
        )
    )
    return {row["game__variant"]: (row["into"] or 0) - (row["out"] or 0) for row in rows}


def _played_in(game: Game, user: Any) -> bool:
    return bool(user.is_authenticated) and any(p.get("user") == user.pk for p in game.players)


def _recent(user: Any, viewer: Any) -> list[RecentGame]:
    recent = []
    for game in games_played_by(user).select_related("table")[: RECENT_GAMES * 3]:
        seen = _played_in(game, viewer)
        if game.table.private and not seen:
            continue
        recent.append(
            RecentGame(
                game=game,
                variant=VARIANTS[game.variant],
                voided=game.status == Game.Status.VOIDED,
                viewer_played=seen,
            )
        )
        if len(recent) == RECENT_GAMES:
            break
    return recent


def profile_of(user: Any, *, viewer: Any) -> Profile:
    """`user`'s public profile as `viewer` (maybe anonymous) may see it."""
    games = _games_per_variant(user)
    nets = _net_chips_per_variant(user)
    skills = player_skills(user)
    profile = Profile(member_since=user.date_joined, recent=_recent(user, viewer))
    for key, variant in VARIANTS.items():
        if key not in games and key not in skills:
            continue
        rated, skill = skills.get(key, (0, None))
        profile.variants.append(
            VariantLine(
                variant=variant,
                unit=unit_name(variant),
                games=games.get(key, 0),
                net_chips=nets.get(key, 0) if variant.stakes_chips else None,
                rated_decisions=rated,
                skill=skill,
            )
        )
    return profile
