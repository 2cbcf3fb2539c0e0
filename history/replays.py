"""A finished game, replayed for the hand history: its steps as one player saw them, and
the cards its shuffles dealt, for the browser's «Проверить» (docs/fairness.md).

The game's hand record (`play.services.records.game_record`) is replayed through the
rules engine from its seed and actions. Each step is what `games.engine.view` and
`engine.events_for` give the viewer's seat after one action — exactly what the live
table showed that seat — turned into a small scene (history/scenes.py: hands, cards,
totals, a few facts) that static/js/history/replay.js draws. The last step is the
record's result, which the game's players may download anyway.

The draws are logged by `games.shoe.recording()` while the record replays: per shuffle,
the cards dealt in order. They are built only for a game that is over, whose seeds are
revealed, so anyone could compute every card from them already.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _

from games import engine
from games import shoe as shoes
from games.cards import shoe as fresh_stock
from games.strategy.review import summary
from history.scenes import Names, outcome, scene, settled, standings
from insights.coach import decision_dict, described
from insights.models import Decision
from insights.reviews import game_review
from play.models import Game
from play.services.records import game_record

# The stock of a fresh shuffle per variant (docs/fairness.md, "Which shuffles"); a
# `banker36` reshuffle of the discards is any other stock.
DECK_OF: dict[str, tuple[str, int]] = {
    "classic": ("standard52", 1),
    "salon": ("standard52", 2),
    "solo": ("russian36", 1),
    "banker36": ("russian36", 1),
    "blackjack": ("standard52", 6),
}


def _line(text: str, cards: Sequence[str] = ()) -> dict[str, Any]:
    return {"text": text, "cards": list(cards)}


def narrate(events: Sequence[Mapping[str, Any]], names: Names) -> list[dict[str, Any]]:
    """Short lines for the events one seat received (private cards already removed)."""
    lines: list[dict[str, Any]] = []
    for event in events:
        kind = event.get("type")
        who = names(event.get("seat"))
        cards = list(event.get("cards") or ([event["card"]] if event.get("card") else []))
        text: str | None = None
        if kind == "deal":
            if event.get("hole") or event.get("face_down"):
                text = _("%(who)s: карта в закрытую") % {"who": who}
            else:
                text = _("%(who)s: сдана карта") % {"who": who}
                if len(cards) > 1:
                    text = _("%(who)s: сданы карты") % {"who": who}
        elif kind in ("hit", "double"):
            text = (
                _("%(who)s: удвоить и ещё карту") if kind == "double" else _("%(who)s: ещё карту")
            ) % {"who": who}
        elif kind in ("banker_draw", "dealer_draw"):
            who = names(event.get("seat") or ("dealer" if kind == "dealer_draw" else "banker"))
            text = _("%(who)s берёт карту") % {"who": who}
        elif kind == "stand":
            if event.get("timeout"):
                text = _("%(who)s: время вышло — хватит") % {"who": who}
            elif not event.get("auto"):
                text = _("%(who)s: хватит") % {"who": who}
        elif kind == "bet":
            text = (
                _("%(who)s: ва-банк, %(amount)s")
                if event.get("all_in")
                else _("%(who)s: ставка %(amount)s")
            ) % {"who": who, "amount": event["amount"]}
        elif kind == "split":
            text = _("%(who)s: разделить") % {"who": who}
        elif kind == "reveal":
            text = _("%(who)s открывает карты") % {"who": who}
        elif kind == "settle" and event.get("outcome"):
            text = f"{who}: {outcome(event)}"
        elif kind == "settle":
            text = _("Раздача сыграна: карты открыты")
        elif kind in ("hand_over", "hand_end"):
            text = _("%(who)s: рука закончена") % {"who": who}
        elif kind == "sit_out":
            text = _("%(who)s пропускает") % {"who": who}
        elif kind == "stuk":
            text = _("Стук!")
        elif kind == "bank_broken":
            text = _("Банк сорван")
        elif kind == "collect":
            text = _("%(who)s забирает банк: %(amount)s") % {
                "who": names(event.get("banker")),
                "amount": event.get("amount"),
            }
        elif kind == "bank_open":
            text = _("%(who)s держит банк: %(bank)s") % {
                "who": names(event.get("banker")),
                "bank": event.get("bank"),
            }
        elif kind == "circle_start":
            text = _("Круг %(n)s") % {"n": event.get("circle")}
        elif kind == "reshuffle":
            text = _("Сброс перетасован: %(n)s карт") % {"n": event.get("count")}
        elif kind == "lot":
            text = _("Жребий: банк у %(who)s") % {"who": who}
        elif kind == "bank":
            text = _("Банк переходит: %(who)s") % {"who": who}
        elif kind == "shuffle":
            text = _("Талия перетасована, банкомёт %(who)s") % {"who": names(event.get("banker"))}
        elif kind == "cut":
            text = _("%(who)s снимает колоду: %(n)s карт") % {
                "who": who,
                "n": event.get("position"),
            }
            if event.get("by") == "server":
                text = _("Время вышло: сервер снимает колоду, %(n)s карт") % {
                    "n": event.get("position")
                }
        elif kind == "round_start":
            number = event.get("round") or event.get("deal")
            text = _("Раздача %(n)s") % {"n": number} if number else _("Новая раздача")
        elif kind == "restart":
            text = _("Начать заново: те же карты снова")
        elif kind == "remove":
            text = _("%(who)s удалён из партии") % {"who": names(event.get("target"))}
        elif kind == "shoe_end":
            text = _("Талия кончилась")
        elif kind == "finished":
            text = _("Игра окончена")
        if text is not None:
            lines.append(_line(text, cards))
    return lines


def _action_title(action: Mapping[str, Any], names: Names) -> str:
    who = names(action.get("seat"))
    name = action.get("action")
    words = {
        "hit": _("Ещё карту"),
        "stand": _("Хватит"),
        "double": _("Удвоить"),
        "split": _("Разделить"),
        "timeout": _("время вышло"),
        "next_round": _("Следующая раздача"),
        "restart": _("Начать заново"),
        "new_game": _("Новая игра"),
    }
    if name == "bet":
        word = _("ставка %(amount)s") % {"amount": action.get("amount")}
    elif name == "cut":
        word = _("снять колоду: %(n)s") % {"n": action.get("position")}
    elif name == "remove":
        return _("Ведущий удаляет игрока %(who)s") % {"who": names(action.get("target"))}
    else:
        word = words.get(str(name), str(name))
    return f"{who}: {word}"


# --- the replay ------------------------------------------------------------------------


def _shuffles(
    variant: str, log: Sequence[Mapping[str, Any]], server_cuts: set[int]
) -> dict[str, Any]:
    """The draw log as the verifier reads it: per shuffle, its stock (a fresh deck of the
    variant, or the given pile), its cut and its passes of cards dealt from the top."""
    kind, copies = DECK_OF[variant]
    full = sorted(fresh_stock(kind, copies))
    shuffles: list[dict[str, Any]] = []
    lot = None
    for index, entry in enumerate(log):
        if "shuffle" in entry:
            fresh = sorted(entry["cards"]) == full
            shuffles.append(
                {
                    "number": entry["shuffle"],
                    "fresh": fresh,
                    "pile": [] if fresh else list(entry["cards"]),
                    "cut": None,
                    "passes": [[]],
                }
            )
        elif "lot" in entry:
            lot = {"seats": list(entry["lot"]), "chosen": entry["chosen"]}
        elif "cut" in entry:
            by = "server" if index in server_cuts else "player"
            shuffles[-1]["cut"] = {"position": entry["cut"], "by": by}
        elif "redeal" in entry:
            shuffles[-1]["passes"].append([])
        elif "card" in entry:
            shuffles[-1]["passes"][-1].append(entry["card"])
    return {"shuffles": shuffles, "lot": lot}


def viewer_seat(game: Game, user: Any) -> str | None:
    """The user's seat id in the game, or None (an administrator watching)."""
    entry = next((p for p in game.players if p.get("user") == user.pk), None)
    return entry["id"] if entry else None


def replay(game: Game, seat: str | None) -> dict[str, Any]:
    """The steps of a game that is over, as `seat` saw them (None: as a spectator), and
    its draws for the verifier."""
    assert not game.is_playing, "a game in play is never replayed: its seed is secret"
    names = Names(game, seat)
    record = game_record(game)
    holder = seat if seat in game.seat_ids else None
    # The viewer's own decisions, each with what every option was worth (insights.reviews).
    reviewed: dict[int, Decision] = {}
    if holder is not None:
        game_review(game)
        reviewed = {d.number: d for d in Decision.objects.filter(game=game, seat=holder)}
    steps: list[dict[str, Any]] = []
    server_cuts: set[int] = set()

    def step(title: str, state: dict[str, Any], events: list[dict[str, Any]]) -> None:
        view = engine.view(state, holder)
        steps.append(
            {
                "title": title,
                "log": narrate(engine.events_for(events, holder), names),
                "scene": scene(view, names),
            }
        )

    with shoes.recording() as log:
        state, events = engine.new_game(
            record["variant"],
            seats=record["seats"],
            options=record["options"],
            first_banker=record.get("first_banker"),
            seed=record["seed"],
        )
        step(_("Раздача"), state, events)
        for number, action in enumerate(record["actions"]):
            before = len(log)
            state, events = engine.apply(state, action)
            if action.get("action") == "timeout":
                server_cuts.update(i for i in range(before, len(log)) if "cut" in log[i])
            step(_action_title(action, names), state, events)
            if number in reviewed:
                steps[-1]["decision"] = described(decision_dict(reviewed[number]))
    if steps and not state["finished"]:
        steps[-1]["scene"]["turn"] = None  # the game ended before its record: no one acts
    result = game.result or engine.result(state)
    banker = _("банкомёт") if game.variant == "salon" else None
    rounds = [settled(names, entry["hands"], banker) for entry in result["rounds"]]
    steps.append(
        {
            "title": _("Итог игры") if game.status == Game.Status.FINISHED else _("Игра отменена"),
            "log": [],
            "final": True,
            "scene": {
                "facts": [],
                "hands": [],
                "rounds": rounds,
                "standings_title": _("Итог"),
                "standings": standings(names, result["deltas"]),
                "last": None,
                "turn": None,
            },
            "review": summary([{"loss": d.loss} for d in reviewed.values()]) if reviewed else None,
        }
    )
    return {
        "game": game.pk,
        "variant": game.variant,
        "seat": seat,
        "steps": steps,
        "verify": {
            "variant": game.variant,
            "seed": game.seed,
            "fairness": record["fairness"],
            **_shuffles(game.variant, log, server_cuts),
        },
    }
