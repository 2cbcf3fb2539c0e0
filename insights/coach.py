"""The coach: decision values in the games' own words, for the table page, the replay and
the statistics page.

`GET /tables/<id>/coach.json` (docs/protocol.md, "The coach (HTTP)") gives a seated
player of a `blackjack` or `solo` table the values of the options they face now, computed
from their own seat's view (games.strategy.review.assess — never a hidden card), the
review of their last finished round and the summary of their session at the table. The
table page's coach (static/js/table/coach.js) draws it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache

from contract.http import Coach, CoachError
from games import engine
from games.strategy.review import MISTAKE_EPSILON, Assessment, assess, summary
from insights.models import Decision
from insights.reviews import game_review
from lib.bodies import json_answer
from play.models import Game
from tables.models import Seat, Table
from tables.variants import VARIANTS

# The variants whose tables offer the coach (the two training games).
COACHED = tuple(sorted(key for key, variant in VARIANTS.items() if variant.coached))


def _upcard(rank: str) -> str:
    """«против десятки»: the dealer's up-card in the genitive after «против»."""
    return str(
        {
            "2": _("против двойки"),
            "3": _("против тройки"),
            "4": _("против четвёрки"),
            "5": _("против пятёрки"),
            "6": _("против шестёрки"),
            "7": _("против семёрки"),
            "8": _("против восьмёрки"),
            "9": _("против девятки"),
            "T": _("против десятки"),
            "A": _("против туза"),
        }[rank]
    )


def _rank_name(rank: str) -> str:
    return str(
        {
            "6": _("шестёрка"),
            "7": _("семёрка"),
            "8": _("восьмёрка"),
            "9": _("девятка"),
            "T": _("десятка"),
            "J": _("валет"),
            "Q": _("дама"),
            "K": _("король"),
            "A": _("туз"),
        }[rank]
    )


def _points(total: int) -> str:
    """«21 очко», «3 очка», «14 очков»: Russian has three plural forms, and the interface's
    Russian is its msgids (there is no Russian catalogue to choose them), so the form is
    chosen here; each is its own msgid ("%(total)s points" in English)."""
    if total % 10 == 1 and total % 100 != 11:
        text = _("%(total)s очко")
    elif total % 10 in (2, 3, 4) and total % 100 not in (12, 13, 14):
        text = _("%(total)s очка")
    else:
        text = _("%(total)s очков")
    return text % {"total": total}


def situation_label(code: str) -> str:
    """«16 против десятки», «мягкие 18 против туза», «пара 8 против шестёрки»,
    «14 очков», «ставка: туз», «ставка на 14 очков», «банк: 16 очков» — a decision's kind
    (games.strategy.review.Assessment)."""
    try:
        if code.startswith("bet:"):
            return _("ставка: первая карта — %(rank)s") % {"rank": _rank_name(code[4:])}
        if code.startswith("total"):
            return _points(int(code[5:]))
        if code.startswith("stake"):  # `salon`: a bet on the two cards dealt
            return _("ставка на %(points)s") % {"points": _points(int(code[5:]))}
        if code.startswith("bank"):  # `salon`: the banker's draw, decided blind
            return _("банк: %(points)s") % {"points": _points(int(code[4:]))}
        hand, up = code.split(":")
        against = _upcard(up)
        if hand.startswith("pair"):
            pair = "10" if hand[4:] == "T" else hand[4:]
            return _("пара %(rank)s %(against)s") % {"rank": pair, "against": against}
        if hand.startswith("soft"):
            return _("мягкие %(total)s %(against)s") % {"total": hand[4:], "against": against}
        return f"{hand[4:]} {against}"
    except (KeyError, ValueError):
        return code


def option_label(option: Mapping[str, Any]) -> str:
    """An option in the games' words: «Ещё карту», «Хватит», «Удвоить», «Ставка 25»."""
    name = option["action"]
    if name == "bet":
        return _("Ставка %(amount)s") % {"amount": option.get("amount")}
    words = {
        "hit": _("Ещё карту"),
        "stand": _("Хватит"),
        "double": _("Удвоить"),
        "split": _("Разделить"),
    }
    return str(words.get(name, name))


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return a["action"] == b["action"] and a.get("amount") == b.get("amount")


def described(decision: Mapping[str, Any]) -> dict[str, Any]:
    """A decision with labels, each option marked chosen / best. A hint (a decision not
    made yet) has no "chosen" and no "loss"."""
    chosen = decision.get("chosen")
    options = [
        {
            **option,
            "label": option_label(option),
            "chosen": chosen is not None and _same(option, chosen),
            "best": _same(option, decision["best"]),
        }
        for option in decision["options"]
    ]
    loss = decision.get("loss")
    return {
        "situation": decision["situation"],
        "label": situation_label(decision["situation"]),
        "options": options,
        "chosen": option_label(chosen) if chosen is not None else None,
        "best": option_label(decision["best"]),
        "loss": loss,
        "mistake": loss is not None and loss > MISTAKE_EPSILON,
        "timeout": decision.get("timeout", False),
    }


def decision_dict(decision: Decision) -> dict[str, Any]:
    return {
        "n": decision.number,
        "round": decision.round,
        "situation": decision.situation,
        "options": decision.options,
        "chosen": decision.chosen,
        "best": decision.best,
        "loss": decision.loss,
        "timeout": decision.timeout,
    }


def _summary(decisions: Iterable[Decision]) -> dict[str, Any]:
    return summary([{"loss": d.loss} for d in decisions])


def _hint(assessment: Assessment) -> dict[str, Any]:
    """The decision the player faces, described; a bet of any amount in a range (`solo`)
    also says its bounds and the value of one coin, so that the page can value the amount
    the player is typing."""
    hint = described(
        {
            "situation": assessment.situation,
            "options": [o.as_dict() for o in assessment.options],
            "best": assessment.best.as_dict(),
        }
    )
    if assessment.bet_range is not None:
        low, high = assessment.bet_range
        hint["bet"] = {"min": low, "max": high, "per_coin": round(assessment.per_amount, 6)}
    return hint


def _error(status: int, code: str, message: str) -> HttpResponse:
    return json_answer(CoachError(type="error", code=code, message=message), status)  # type: ignore[arg-type]


@never_cache
@login_required
def coach_state(request: HttpRequest, table_id: int) -> HttpResponse:
    table = get_object_or_404(Table, pk=table_id)
    if table.variant not in COACHED:
        return _error(400, "not_coached", _("Подсказки есть только за столами блэкджека и соло."))
    seat = Seat.objects.filter(table=table, player=request.user).first()
    if seat is None:
        return _error(403, "not_seated", _("Подсказки получает только игрок за этим столом."))
    # The table (and so its version) is read before the game: the figures below are at
    # least as new as `version`, so a client may drop an answer older than its last frame.
    version = table.version
    game = Game.objects.filter(table=table).select_related("table").order_by("-number").first()
    hint = None
    last_round = None
    # A tournament heat's game (sealed until the event ends) is played without the coach:
    # a hint, or a review of the round just played, would play it for the entrant, and the
    # ranking measures the entrant's own decisions (docs/tournaments.md).
    if game is not None and not game.sealed:
        game_review(game)
        state = game.state
        if game.is_playing:
            view = engine.view(state, seat.seat_id)
            if view.get("turn") == seat.seat_id:
                assessment = assess(table.variant, view)
                if assessment is not None:
                    hint = _hint(assessment)
        settled = len(state["rounds"])
        mine = Decision.objects.filter(game=game, user=request.user, round__lte=settled)
        last = mine.order_by("-round").values_list("round", flat=True).first()
        if last is not None:
            decisions = list(mine.filter(round=last).order_by("number"))
            last_round = {
                "game": game.number,
                "round": last,
                **_summary(decisions),
                "review": [described(decision_dict(d)) for d in decisions],
            }
    session = Decision.objects.filter(
        user=request.user, game__table=table, game__sealed=False
    ).filter(Q(game__finished_at__isnull=True) | Q(game__finished_at__gte=seat.seated_at))
    return json_answer(
        Coach(
            type="coach",
            table=table.pk,
            variant=table.variant,  # type: ignore[arg-type]
            version=version,
            game=game.number if game is not None else None,
            unit=table.variant_spec.currency,  # type: ignore[arg-type]
            hint=hint,  # type: ignore[arg-type]
            last_round=last_round,  # type: ignore[arg-type]
            session=_summary(session.only("loss")),  # type: ignore[arg-type]
        )
    )
