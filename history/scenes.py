"""A replayed game's scenes: what one seat saw after each step (hands, cards, totals, a
few facts), built per variant from `games.engine.view` for static/js/history/replay.js to
draw, and the names the steps call the seats by (history/replays.py builds the steps)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _

from play.models import Game

Scene = dict[str, Any]
Hand = dict[str, Any]


class Names:
    """Display names of a game's seats, with the viewer's own marked."""

    def __init__(self, game: Game, you: str | None) -> None:
        users = {
            user.pk: user.username
            for user in get_user_model().objects.filter(
                pk__in=[p["user"] for p in game.players if p.get("user")]
            )
        }
        self.you = you
        self._names: dict[str, str] = {}
        for entry in game.players:
            if entry.get("ai"):
                name = _("ИИ %(number)d (%(level)s)") % {
                    "number": entry["number"],
                    "level": entry["ai"],
                }
            else:
                name = users.get(entry.get("user"), entry["id"])
            self._names[entry["id"]] = str(name)

    def __call__(self, seat: str | None) -> str:
        if seat is None:
            return "—"
        if seat == "dealer":
            return _("Дилер")
        if seat == "banker":
            return _("Банкир")
        if seat == "bank":
            return _("Банк")
        name = self._names.get(seat, seat)
        return _("%(name)s (вы)") % {"name": name} if seat == self.you else name


# --- scenes: one engine view as hands and facts ------------------------------------------


def signed(value: float) -> str:
    """+10, −10 (a real minus sign), 0, +1.5."""
    return f"{value:+g}".replace("-", "−") if value else "0"


def outcome(entry: Mapping[str, Any]) -> str:
    words = {"win": _("выигрыш"), "loss": _("проигрыш"), "push": _("ничья")}
    outcome = entry.get("outcome")
    if outcome is None:
        return ""
    delta = entry.get("delta")
    text = words.get(outcome, outcome)
    return f"{text} {signed(delta)}" if isinstance(delta, (int, float)) and delta else text


def _hand(
    names: Names,
    seat: str | None,
    cards: Sequence[str] | None = None,
    *,
    hidden: int = 0,
    total: int | None = None,
    role: str | None = None,
    note: str = "",
    label: str | None = None,
) -> Hand:
    shown = list(cards or [])
    notes = [note] if note else []
    if total is not None and total > 21 and shown:
        notes.append(_("перебор"))
    return {
        "seat": seat,
        "name": label or names(seat),
        "you": seat is not None and seat == names.you,
        "role": role,
        "cards": shown,
        "hidden": hidden,
        "total": total if shown else None,
        "note": ", ".join(notes),
    }


def settled(
    names: Names, hands: Sequence[Mapping[str, Any]], banker: str | None = None
) -> list[Hand]:
    """The hands of a settled round as the record lists them (all shown); a player who
    held the bank is marked with the variant's word for it."""
    role = {"dealer": "dealer", "banker": "banker"}
    count = Counter(entry["seat"] for entry in hands)  # a split blackjack seat: several
    seen: Counter[str] = Counter()
    shown = []
    for entry in hands:
        seat = entry["seat"]
        kind = entry.get("role") or role.get(seat)
        note = outcome(entry)
        if kind == "banker" and seat != "banker":
            note = banker or _("банкир")
        seen[seat] += 1
        label = None
        if count[seat] > 1:
            label = _("%(name)s, рука %(n)d") % {"name": names(seat), "n": seen[seat]}
        shown.append(
            _hand(
                names,
                seat,
                entry.get("cards"),
                total=entry.get("total"),
                role=kind,
                note=note,
                label=label,
            )
        )
    return shown


def _fact(label: str, value: Any) -> dict[str, str]:
    return {"label": label, "value": str(value)}


def standings(names: Names, values: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> list:
    if isinstance(values, Mapping):
        pairs = list(values.items())
    else:
        pairs = [(entry["id"], entry["chips"]) for entry in values]
    return [
        {"name": names(seat), "value": f"{value:g}".replace("-", "−"), "you": seat == names.you}
        for seat, value in pairs
    ]


def _classic(view: Mapping[str, Any], names: Names) -> Scene:
    facts = [_fact(_("Раздач сыграно"), f"{view['rounds_played']} / {view['rounds_total']}")]
    hands: list[Hand] = []
    current = view.get("round")
    if current is not None:
        facts.insert(0, _fact(_("Раздача"), current["number"]))
        for entry in current["hands"]:
            cards = entry.get("cards")
            hands.append(
                _hand(
                    names,
                    entry["seat"],
                    cards,
                    hidden=0 if cards is not None else entry.get("count", 0),
                    total=entry.get("total"),
                )
            )
        dealer = current["dealer"]
        hands.append(
            _hand(names, "dealer", dealer["cards"], hidden=dealer.get("hidden", 0), role="dealer")
        )
    if view.get("winners"):
        facts.append(_fact(_("Победители"), ", ".join(names(s) for s in view["winners"])))
    last = view.get("last_round")
    return {
        "facts": facts,
        "hands": hands,
        "standings_title": _("Очки"),
        "standings": standings(names, view["scores"]),
        "last": settled(names, last["hands"]) if last else None,
    }


def _salon(view: Mapping[str, Any], names: Names) -> Scene:
    facts = [_fact(_("Банкомёт"), names(view["banker"]))]
    if view.get("shoe"):
        facts.append(_fact(_("Карт в талии"), view["shoe"]["remaining"]))
    if view.get("cutter"):
        facts.append(_fact(_("Снимает колоду"), names(view["cutter"])))
    hands: list[Hand] = []
    deal = view.get("deal")
    if deal is not None:
        facts.insert(0, _fact(_("Раздача"), deal["number"]))
        for entry in deal["hands"]:
            note = _("банкомёт") if entry.get("role") == "banker" else ""
            if entry.get("sat_out"):
                note = _("пропускает")
            elif entry.get("bet") is not None:
                note = _("ставка %(amount)s") % {"amount": entry["bet"]}
            hands.append(
                _hand(
                    names,
                    entry["seat"],
                    entry.get("cards"),
                    hidden=entry.get("hidden", 0),
                    total=entry.get("total"),
                    role=entry.get("role"),
                    note=note,
                )
            )
    last = view.get("last_round")
    return {
        "facts": facts,
        "hands": hands,
        "standings_title": _("Фишки"),
        "standings": standings(names, view["seats"]),
        "last": settled(names, last["hands"], _("банкомёт")) if last else None,
    }


def _solo(view: Mapping[str, Any], names: Names) -> Scene:
    facts = [
        _fact(_("Монеты"), view["coins"]),
        _fact(_("Банк"), view["bank"]),
        _fact(_("Ставка"), view["bet"] if view.get("bet") is not None else "—"),
    ]
    if view.get("stuk"):
        facts.append(_fact(_("Стук"), _("последняя раздача")))
    note = outcome(view["result"]) if view.get("result") and view["phase"] == "over" else ""
    hand = view.get("hand") or {}
    banker = view.get("banker") or {}
    hands = [
        _hand(names, view["player"], hand.get("cards"), total=hand.get("total"), note=note),
        _hand(
            names,
            "banker",
            banker.get("cards"),
            hidden=banker.get("hidden", 0),
            total=banker.get("total"),
            role="banker",
        ),
    ]
    return {"facts": facts, "hands": hands, "standings": [], "last": None}


def _banker36(view: Mapping[str, Any], names: Names) -> Scene:
    facts = [
        _fact(_("Банкир"), names(view["banker"])),
        _fact(_("Банк"), view["bank"]),
        _fact(_("Ставка стола"), view["stake"]),
    ]
    if view.get("stuk_called"):
        facts.append(_fact(_("Стук"), _("объявлен")))
    status = {
        "waiting": _("ждёт"),
        "playing": _("играет"),
        "settled": _("сыграл"),
        "sat_out": _("пропускает"),
        "unplayed": _("не играл"),
    }
    hands: list[Hand] = []
    circle = view.get("circle")
    if circle is not None:
        facts.insert(2, _fact(_("Круг"), circle["number"]))
        for entry in circle["hands"]:
            hands.append(
                _hand(
                    names,
                    entry["seat"],
                    entry.get("cards"),
                    hidden=entry.get("hidden", 0),
                    total=entry.get("total"),
                    note=status.get(entry.get("status"), ""),
                )
            )
        duel = circle.get("duel")
        if duel is not None:
            note = _("банкир, дуэль с %(name)s") % {"name": names(duel["seat"])}
            if duel.get("bet") is not None:
                note += ", " + _("ставка %(amount)s") % {"amount": duel["bet"]}
            hands.append(
                _hand(
                    names,
                    view["banker"],
                    duel["banker_cards"],
                    total=duel.get("banker_total"),
                    role="banker",
                    note=note,
                )
            )
    last = view.get("last_duel")
    return {
        "facts": facts,
        "hands": hands,
        "standings_title": _("Фишки"),
        "standings": standings(names, view["seats"]),
        "last": settled(names, last["hands"]) if last else None,
    }


def _blackjack_hands(names: Names, seat: str, hands: Sequence[Mapping[str, Any]]) -> list[Hand]:
    shown = []
    for index, entry in enumerate(hands):
        notes = []
        if entry.get("natural"):
            notes.append(_("блэкджек"))
        if entry.get("wager", 1) > 1:
            notes.append(_("удвоено"))
        label = None
        if len(hands) > 1:
            label = _("%(name)s, рука %(n)d") % {"name": names(seat), "n": index + 1}
        shown.append(
            _hand(
                names,
                seat,
                entry.get("cards"),
                total=entry.get("total"),
                note=", ".join(notes),
                label=label,
            )
        )
    return shown


def _blackjack(view: Mapping[str, Any], names: Names) -> Scene:
    dealer = view["dealer"]
    hands = [
        _hand(
            names,
            "dealer",
            dealer["cards"],
            hidden=dealer.get("hidden", 0),
            total=dealer.get("total"),
            role="dealer",
        )
    ]
    if view.get("seat"):
        hands += _blackjack_hands(names, view["seat"], view.get("hands") or [])
    for other in view.get("others") or []:
        hands += _blackjack_hands(names, other["seat"], other.get("hands") or [])
    last = view.get("last_round")
    return {
        "facts": [_fact(_("Раунд"), view["round"])],
        "hands": hands,
        "standings_title": _("Баланс, единиц"),
        "standings": standings(names, view["balances"]),
        "last": settled(names, last["hands"]) if last else None,
    }


SCENES: dict[str, Callable[[Mapping[str, Any], Names], Scene]] = {
    "classic": _classic,
    "salon": _salon,
    "solo": _solo,
    "banker36": _banker36,
    "blackjack": _blackjack,
}


def scene(view: Mapping[str, Any], names: Names) -> Scene:
    built = SCENES[view["variant"]](view, names)
    built["turn"] = names(view["turn"]) if view.get("turn") else None
    return built


# --- what happened: the step's events, in words ------------------------------------------
