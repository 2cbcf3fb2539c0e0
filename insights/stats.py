"""A player's statistics page: per variant played, the rounds, the net result, the
decisions and what they cost, the skill rating (insights.skill), and two charts (the net
result game by game, and the value lost by kind of decision) drawn as SVG on the server
(insights.charts).

`/stats/` is the signed-in player's own page; `/stats/<username>/` is for staff only (404
for anyone else). What counts:

* Games: every game in which the player held a seat — over (finished, or voided: the
  rounds settled before the void stand) and, on the player's own page, in play (their
  settled rounds so far; a long `solo` game counts before it ends). A game counts once
  the player has a settled round in it or a result other than 0.
* Rounds: settled rounds (a deal, a duel) with a hand of the player's in them.
* Net result: the player's change over those rounds, in the variant's own unit.
* Decisions: those the review has stored (insights.reviews). Games not reviewed yet (in
  play, or whose review task was lost) are reviewed first, the latest REVIEW_LIMIT of them.
* On someone else's page (staff) games in play are left out, decisions too: a decision of
  a game in play names the player's hand (the admin's decision list does the same).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.db.models import Count, F, Q, QuerySet, Sum
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.formats import date_format, number_format
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games.strategy.review import MISTAKE_EPSILON, REVIEWED
from insights.charts import Bar, Point, bar_chart, line_chart
from insights.coach import situation_label
from insights.models import Decision
from insights.reviews import games_review
from insights.skill import MIN_DECISIONS, Skill, leaderboards, player_skills
from lib.functions import JSONArrayLength
from play.db.selectors import games_seating
from play.models import Game
from tables.parts import Parts
from tables.variants import VARIANTS, Variant

# How many of the player's latest games a page view reviews, at most (each is a replay of
# its record; the Celery task reviews every game that ends, so these are the stragglers).
REVIEW_LIMIT = 200
# The value-lost chart's bars: the costliest kinds of decision.
KINDS_SHOWN = 10


def review_pending(user: Any) -> None:
    """Review the user's latest games that have decisions not reviewed yet."""
    latest = games_seating(user).order_by("-id").values("pk")[:REVIEW_LIMIT]
    pending = (
        Game.objects.filter(pk__in=latest)
        .annotate(actions_count=JSONArrayLength("actions"))
        .filter(reviewed_actions__lt=F("actions_count"))
        .select_related("table")
        .order_by("id")
    )
    games_review(pending)


# --- the figures -------------------------------------------------------------------------


def unit_name(variant: Variant) -> str:
    return str(
        {
            "chips": _("фишки"),
            "points": _("очки"),
            "coins": _("монеты"),
            "units": _("единицы"),
        }[variant.currency]
    )


def number(value: float, places: int = 2) -> str:
    """A figure in the page's language (2,35 in Russian; a whole number without
    decimals), with a real minus sign."""
    # Whole or not after rounding: 1066.9999 prints as 1067, not 1067,00.
    value = round(value, places) or 0  # never "−0"
    places = 0 if float(value).is_integer() else places
    return str(number_format(value, decimal_pos=places)).replace("-", "−")


def signed_number(value: float, places: int = 2) -> str:
    text = number(value, places)
    return f"+{text}" if value > 0 else text


def skill_figures(skill: Skill) -> dict[str, Any]:
    """A rating's figures as the pages print them (`count`: the decisions as a number, for
    the plural form of the word after it)."""
    return {
        "rating": number(skill.lost_per_100),
        "margin": number(skill.margin),
        "low": number(skill.low),
        "high": number(skill.high),
        "decisions": number(skill.decisions),
        "count": skill.decisions,
    }


def lobby_leaderboards(*, bots: bool = False) -> list[dict[str, Any]]:
    """The lobby's leaderboards (insights.skill.leaderboards), figures printed: people's,
    or with `bots` the bot accounts' (only the boards that have anyone)."""
    boards = [
        {
            "variant": board["variant"],
            "unit": unit_name(board["variant"]),
            "rows": [{**row, "text": skill_figures(row["skill"])} for row in board["rows"]],
        }
        for board in leaderboards(bots=bots)
    ]
    return [board for board in boards if board["rows"]] if bots else boards


@dataclass
class GameLine:
    """One game's place on the result chart."""

    game: int
    number: int
    table: str
    finished_at: datetime | None
    delta: float
    rounds: int


@dataclass
class VariantStats:
    variant: Variant
    unit: str
    games: list[GameLine] = field(default_factory=list)
    decisions: int = 0
    best: int = 0
    lost: float = 0.0
    rated: int = 0  # decisions of games over: what the skill rating counts
    skill: Skill | None = None
    kinds: list[dict[str, Any]] = field(default_factory=list)
    result_chart: SafeString | None = None
    loss_chart: SafeString | None = None

    @property
    def reviewed(self) -> bool:
        return self.variant.key in REVIEWED

    @property
    def rounds(self) -> int:
        return sum(g.rounds for g in self.games)

    @property
    def net(self) -> float:
        return sum(g.delta for g in self.games)

    @property
    def net_text(self) -> str:
        return signed_number(self.net)

    @property
    def accuracy(self) -> float:
        return self.best / self.decisions if self.decisions else 0.0

    @property
    def accuracy_text(self) -> str:
        return number(100 * self.accuracy, 1)

    @property
    def lost_per_100(self) -> float:
        return 100 * self.lost / self.decisions if self.decisions else 0.0

    @property
    def lost_per_100_text(self) -> str:
        return number(self.lost_per_100)

    @property
    def skill_text(self) -> dict[str, Any] | None:
        return skill_figures(self.skill) if self.skill else None

    @property
    def needed(self) -> int:
        """Decisions of games over still needed for a rating."""
        return max(0, MIN_DECISIONS - self.rated)


def _rounds_of(rounds: list[Mapping[str, Any]], seat: str) -> int:
    return sum(1 for r in rounds if any(h.get("seat") == seat for h in r.get("hands", ())))


def _game_lines(user: Any, *, with_playing: bool) -> dict[str, list[GameLine]]:
    """The user's games per variant, in the order they ended (those in play last)."""
    games = games_seating(user)
    if not with_playing:
        games = games.exclude(status=Game.Status.PLAYING)
    rows = games.values(
        "pk", "number", "variant", "status", "finished_at", "players", "result", "table__name"
    )
    playing = [row["pk"] for row in rows if row["status"] == Game.Status.PLAYING]
    # The settled part of a game in play is in its state (read here, never sent).
    settled = {
        pk: {"rounds": state["rounds"], "deltas": state["deltas"]}
        for pk, state in Game.objects.filter(pk__in=playing).values_list("pk", "state")
    }
    lines: dict[str, list[GameLine]] = {}
    for row in sorted(rows, key=_in_order_of_ending):
        # The user's seat id (history.replays.viewer_seat's rule, on the values row).
        seat = next((p["id"] for p in row["players"] if p.get("user") == user.pk), None)
        if seat is None:
            continue
        outcome = settled.get(row["pk"]) or row["result"] or {}
        delta = (outcome.get("deltas") or {}).get(seat) or 0
        rounds = _rounds_of(outcome.get("rounds") or [], seat)
        if not rounds and not delta:
            continue
        lines.setdefault(row["variant"], []).append(
            GameLine(
                game=row["pk"],
                number=row["number"],
                table=row["table__name"],
                finished_at=row["finished_at"],
                delta=delta,
                rounds=rounds,
            )
        )
    return lines


def _in_order_of_ending(row: Mapping[str, Any]) -> tuple[bool, float, int]:
    ended = row["finished_at"]
    return (ended is None, ended.timestamp() if ended else 0.0, row["pk"])


def _decisions(user: Any, *, with_playing: bool) -> QuerySet[Decision]:
    decisions = Decision.objects.filter(user=user)
    return decisions if with_playing else decisions.exclude(game__status=Game.Status.PLAYING)


def player_stats(user: Any, *, with_playing: bool) -> list[VariantStats]:
    """The user's figures per variant played, in the registry's order, charts drawn."""
    lines = _game_lines(user, with_playing=with_playing)
    decisions = _decisions(user, with_playing=with_playing)
    totals = {
        row["variant"]: row
        for row in decisions.values("variant").annotate(
            n=Count("id"),
            best=Count("id", filter=Q(loss__lte=MISTAKE_EPSILON)),
            lost=Sum("loss"),
        )
    }
    skills = player_skills(user)
    stats = []
    for key, variant in VARIANTS.items():
        if key not in lines and key not in totals:
            continue
        entry = VariantStats(variant=variant, unit=unit_name(variant), games=lines.get(key, []))
        if key in totals:
            entry.decisions = totals[key]["n"]
            entry.best = totals[key]["best"]
            entry.lost = totals[key]["lost"] or 0.0
        entry.rated, entry.skill = skills.get(key, (0, None))
        if entry.decisions:
            entry.kinds = _kinds(decisions.filter(variant=key))
        entry.result_chart = _result_chart(entry) if entry.games else None
        entry.loss_chart = _loss_chart(entry) if entry.kinds else None
        stats.append(entry)
    return stats


def _kinds(decisions: QuerySet[Decision]) -> list[dict[str, Any]]:
    """The costliest kinds of decision (those with any value lost), with their counts."""
    rows = (
        decisions.values("situation")
        .annotate(n=Count("id"), lost=Sum("loss"))
        .filter(lost__gt=MISTAKE_EPSILON)
        .order_by("-lost", "situation")[:KINDS_SHOWN]
    )
    return [
        {"situation": r["situation"], "label": situation_label(r["situation"]), **r} for r in rows
    ]


# --- the charts --------------------------------------------------------------------------


def _result_chart(entry: VariantStats) -> SafeString:
    key = entry.variant.key
    points = []
    running = 0.0
    for line in entry.games:
        running += line.delta
        when = (
            date_format(timezone.localtime(line.finished_at), "SHORT_DATETIME_FORMAT")
            if line.finished_at
            else _("идёт")
        )
        iso = line.finished_at.isoformat() if line.finished_at else ""
        note = _("%(table)s, игра №%(n)s (%(when)s): %(delta)s, итого %(total)s") % {
            "table": line.table,
            "n": line.number,
            "when": when,
            "delta": signed_number(line.delta),
            "total": signed_number(running),
        }
        sign = (line.delta > 0) - (line.delta < 0)
        points.append(
            Point(value=running, note=note, sign=sign, when=iso, when_text=when if iso else "")
        )
    values = [0.0] + [p.value for p in points]
    games = len(points)
    return line_chart(
        points,
        ident=f"chart-result-{key}",
        title=_("Итог по играм: %(variant)s, %(unit)s")
        % {
            "variant": entry.variant.name,
            "unit": entry.unit,
        },
        desc=_(
            "Нарастающий итог после каждой игры, по порядку окончания: игр %(games)d, "
            "итог %(net)s, лучший момент %(high)s, худший %(low)s."
        )
        % {
            "games": games,
            "net": signed_number(running),
            "high": signed_number(max(values)),
            "low": signed_number(min(values)),
        },
        start_label=_("начало"),
        end_label=_("игра %(n)d") % {"n": games},
        value_text={v: signed_number(v) for v in (min(values), 0.0, max(values))},
    )


def _loss_chart(entry: VariantStats) -> SafeString:
    bars = [
        Bar(
            label=kind["label"],
            value=kind["lost"],
            text=_("%(lost)s · решений: %(n)d") % {"lost": number(kind["lost"]), "n": kind["n"]},
            note=_("%(label)s: потеряно %(lost)s, решений: %(n)d")
            % {"label": kind["label"], "lost": number(kind["lost"]), "n": kind["n"]},
        )
        for kind in entry.kinds
    ]
    listing = "; ".join(f"{bar.label} — {bar.text}" for bar in bars)
    return bar_chart(
        bars,
        ident=f"chart-loss-{entry.variant.key}",
        title=_("Потери по видам решений: %(variant)s, %(unit)s")
        % {"variant": entry.variant.name, "unit": entry.unit},
        desc=listing,
    )


# --- the pages ---------------------------------------------------------------------------


def _page(request: HttpRequest, player: Any) -> HttpResponse:
    own = player.pk == request.user.pk
    parts = Parts("stats")  # each part fails alone (tables.parts)
    # Without the stragglers' review the figures are those of the reviews done so far.
    parts.build("review", lambda: review_pending(player), None)
    stats = parts.build("stats", lambda: player_stats(player, with_playing=own), [])
    context = {
        "player": player,
        "own": own,
        "stats": stats,
        "min_decisions": MIN_DECISIONS,
        "unavailable": parts.failed,
    }
    return render(request, "insights/stats.html", context)


@login_required
def stats_page(request: HttpRequest) -> HttpResponse:
    return _page(request, request.user)


@login_required
def stats_of(request: HttpRequest, username: str) -> HttpResponse:
    """Another player's page, for staff; a player's own name leads to their own page."""
    if username == request.user.get_username():
        return redirect("stats")
    # No user name holds a NUL, and PostgreSQL's driver fails on one in a query.
    if not request.user.is_staff or "\x00" in username:
        raise Http404("no such page")
    player = get_object_or_404(get_user_model(), username=username)
    return _page(request, player)


@require_GET
def bot_ratings(request: HttpRequest) -> HttpResponse:
    """The bot accounts' leaderboards: rated as people are, and apart from them."""
    return render(
        request,
        "insights/bot_ratings.html",
        {"bot_leaderboards": lobby_leaderboards(bots=True), "min_decisions": MIN_DECISIONS},
    )
