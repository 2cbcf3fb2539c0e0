"""Provably fair seeds: a server seed committed with its context before any player
contributes, mixed with every seated player's client seed into the seed of a record.

Stated in docs/fairness.md so that a stranger can verify a record from the prose alone;
change nothing here without changing that document (and its verifier test).

Under ALGORITHM:

- the server draws a 256-bit server seed (64 lowercase hex characters) per record — a
  shoe, a bank, a match or a solo game — and publishes
  ``commitment = SHA-256(commitment_text)`` before any client seed can exist, where
  ``commitment_text`` names the algorithm, the table, the shoe number (the record's
  number at its table), the variant and the server seed;
- each seated player's client sends a client seed (1–64 characters from
  ``A–Z a–z 0–9 _ -``) after it has seen the commitment;
- the record's seed is ``HMAC-SHA256(key=server_seed, message=derivation_text)`` in hex,
  where ``derivation_text`` holds the algorithm, the context, the nonce and every
  contributed client seed in seat order; every shuffle, lot and cut of the record
  derives from that seed (games.shuffle).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping, Sequence
from typing import Any

from games.cards import shoe
from games.errors import FAIRNESS_MISMATCH
from games.shuffle import shuffled
from games.variants import salon

ALGORITHM = "mixed-hmac-sha256/1"
CONTEXT_FIELDS = ("table", "shoe", "variant")
SERVER_SEED = re.compile(r"[0-9a-f]{64}")
CLIENT_SEED = re.compile(r"[A-Za-z0-9_-]{1,64}")

Fairness = dict[str, Any]


class FairnessError(ValueError):
    """A fairness object that is not of the documented form."""


def commitment_text(server_seed: str, context: Mapping[str, Any]) -> str:
    table, shoe, variant = (context[name] for name in CONTEXT_FIELDS)
    return f"{ALGORITHM}|table={table}|shoe={shoe}|variant={variant}|server_seed={server_seed}"


def commit(server_seed: str, context: Mapping[str, Any]) -> str:
    """The commitment published before the first card: SHA-256 of the commitment text."""
    return hashlib.sha256(commitment_text(server_seed, context).encode("utf-8")).hexdigest()


def derivation_text(
    context: Mapping[str, Any], client_seeds: Sequence[Mapping[str, str]], nonce: int
) -> str:
    lines = [ALGORITHM, *(f"{name}={context[name]}" for name in CONTEXT_FIELDS)]
    lines.append(f"nonce={nonce}")
    lines.extend(f"client={entry['seat']}:{entry['seed']}" for entry in client_seeds)
    return "\n".join(lines)


def derive(
    server_seed: str,
    context: Mapping[str, Any],
    client_seeds: Sequence[Mapping[str, str]],
    nonce: int = 0,
) -> str:
    """The record's seed: HMAC-SHA256 keyed by the server seed over the derivation text."""
    message = derivation_text(context, client_seeds, nonce).encode("utf-8")
    return hmac.new(server_seed.encode("utf-8"), message, hashlib.sha256).hexdigest()


def fairness_object(
    *,
    server_seed: str | None,
    commitment: str,
    context: Mapping[str, Any],
    client_seeds: Sequence[Mapping[str, str]],
    nonce: int = 0,
) -> Fairness:
    """A record's ``fairness`` object (docs/hand-record.md §3.7); ``server_seed`` is None
    until it is revealed."""
    return {
        "algorithm": ALGORITHM,
        "commitment": commitment,
        "server_seed": server_seed,
        "client_seeds": [{"seat": e["seat"], "seed": e["seed"]} for e in client_seeds],
        "nonce": nonce,
        "context": {name: context[name] for name in CONTEXT_FIELDS},
    }


def _shape(fairness: object) -> Fairness:
    """The object, checked against the documented form (FairnessError if not)."""
    if not isinstance(fairness, dict):
        raise FairnessError('"fairness" must be an object')
    if fairness.get("algorithm") != ALGORITHM:
        raise FairnessError(
            f"unknown fairness algorithm {fairness.get('algorithm')!r}; known: {ALGORITHM}"
        )
    context = fairness.get("context")
    if not isinstance(context, dict) or any(name not in context for name in CONTEXT_FIELDS):
        raise FairnessError('"context" must be an object with table, shoe and variant')
    if not isinstance(fairness.get("commitment"), str):
        raise FairnessError('"commitment" must be a hex string')
    server_seed = fairness.get("server_seed")
    if server_seed is not None and not (
        isinstance(server_seed, str) and SERVER_SEED.fullmatch(server_seed)
    ):
        raise FairnessError('"server_seed" must be 64 lowercase hex characters, or null')
    nonce = fairness.get("nonce")
    if type(nonce) is not int or nonce < 0:
        raise FairnessError('"nonce" must be a whole number ≥ 0')
    seeds = fairness.get("client_seeds")
    if not isinstance(seeds, list):
        raise FairnessError('"client_seeds" must be a list of {"seat", "seed"}')
    for entry in seeds:
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("seat"), str)
            or not isinstance(entry.get("seed"), str)
            or not CLIENT_SEED.fullmatch(entry["seed"])
        ):
            raise FairnessError('each client seed is {"seat": ID, "seed": 1–64 of A–Z a–z 0–9 _ -}')
    return fairness


def checks(fairness: object, seed: object, variant: object) -> list[tuple[str, bool | None]]:
    """Each check a verifier makes, in plain words, with its result: True (passed), False
    (failed) or None (cannot be made yet). An unrevealed server seed leaves only the form
    to check, and says so with a None."""
    try:
        shape = _shape(fairness)
    except FairnessError as error:
        return [(f"the fairness object is of the documented form: {error}", False)]
    results: list[tuple[str, bool | None]] = [
        ("the fairness object is of the documented form", True)
    ]
    context = shape["context"]
    results.append(
        (
            f"its context names this record's variant ({variant})",
            context["variant"] == variant,
        )
    )
    server_seed = shape["server_seed"]
    if server_seed is None:
        results.append(
            (
                "the server seed is not revealed yet: the commitment, the seed and the "
                "replay cannot be checked",
                None,
            )
        )
        return results
    results.append(
        (
            "SHA-256 of the commitment text (algorithm, table, shoe, variant, server seed) "
            "is the published commitment",
            commit(server_seed, context) == shape["commitment"],
        )
    )
    results.append(
        (
            "the record's seed is HMAC-SHA256 of the server seed over the context, the nonce "
            f"and the {len(shape['client_seeds'])} client seed(s)",
            seed == derive(server_seed, context, shape["client_seeds"], shape["nonce"]),
        )
    )
    return results


def deck_check(record: Mapping[str, Any]) -> tuple[str, bool] | None:
    """A record that states its cards as `deck` next to a fair seed must hold the seed's
    cards. Live records do so in `salon` only: the spec keeps the cut out of a record, so
    the shoe is stated in its order after the cut — shuffle 0 of the seed (two
    `standard52` decks) with its top `position` cards moved to the bottom, for some
    position from 1 to 103. None: nothing to check (no deck, or no seed yet)."""
    deck, seed = record.get("deck"), record.get("seed")
    if not deck or not isinstance(seed, str):
        return None
    if record.get("variant") != "salon":
        return (
            "the record's deck comes from its seed (a live record stacks one only in salon)",
            False,
        )
    cards = list(deck) if isinstance(deck, list) else []
    options = record.get("options")
    if isinstance(options, Mapping) and "banks" in options:
        return _shoes_check(record, cards, seed)
    order = shuffled(shoe(salon.DECK_KIND, salon.DECKS_IN_SHOE), seed, 0)
    position = _cut_at(order, cards) if len(cards) == len(order) else None
    if position is None:
        return ("the record's deck is shuffle 0 of its seed, cut at some position", False)
    return (f"the record's deck is shuffle 0 of its seed, cut at position {position}", True)


def _cut_at(order: list[str], cards: list[str]) -> int | None:
    """The cut position (1 … len − 1) that makes `order` begin with `cards`, if any."""
    return next(
        (p for p in range(1, len(order)) if (order[p:] + order[:p])[: len(cards)] == cards),
        None,
    )


def _shoes_check(record: Mapping[str, Any], cards: list[str], seed: str) -> tuple[str, bool]:
    """A `salon` record that passes the bank (`banks`: a tournament's sit-and-go) plays a
    shoe per bank, each cut: its deck is the cards drawn from each shoe in turn, then the
    rest of the last. Each shoe's cards must begin shuffle k of the seed cut at some
    position, and the last shoe's must be all of it. Where each shoe begins is read from
    the record's own replay (the draws between its shuffles)."""
    from games import engine  # here: the engine's variants import nothing of this module
    from games import shoe as shoes

    words = "the record's deck is, shoe by shoe, shuffle k of its seed cut at some position"
    try:
        with shoes.recording() as log:
            state, _events = engine.new_game(
                "salon",
                seats=record["seats"],
                options=dict(record["options"]),
                first_banker=record.get("first_banker"),
                deck=cards,
                seed=seed,
            )
            for action in record.get("actions", []):
                state, _events = engine.apply(state, action)
    except (KeyError, TypeError, ValueError):
        return (words, False)  # the replay's own check says what is wrong
    drawn: list[list[str]] = []
    for entry in log:
        if "shuffle" in entry:
            drawn.append([])
        elif "card" in entry and drawn:
            drawn[-1].append(entry["card"])
    if not drawn:
        return (words, False)
    drawn[-1] += cards[sum(len(d) for d in drawn) :]
    full = shoe(salon.DECK_KIND, salon.DECKS_IN_SHOE)
    positions = []
    for number, dealt in enumerate(drawn):
        position = _cut_at(shuffled(full, seed, number), dealt)
        last_whole = number < len(drawn) - 1 or len(dealt) == len(full)
        if position is None or not last_whole:
            return (words, False)
        positions.append(str(position))
    return (
        f"the record's deck is shuffles 0–{len(drawn) - 1} of its seed, one shoe to a bank, "
        f"cut at positions {', '.join(positions)}",
        True,
    )


def in_play_check(record: Mapping[str, Any]) -> tuple[str, bool] | None:
    """A record whose server seed is null says its game is in play, and a record in play
    has no seed, no stored result and (when it states one) its table's status `playing`
    (docs/fairness.md, «Check it yourself»). One that has any of them is over or was
    dealt from a seed, so its server seed was revealed and has been taken out: tampered,
    not "not verifiable yet". None: the server seed is not null (nothing to check here)."""
    fairness = record.get("fairness")
    if not isinstance(fairness, dict) or fairness.get("server_seed") is not None:
        return None
    found = []
    if record.get("seed") is not None:
        found.append("a seed")
    if record.get("result") is not None:
        found.append("a stored result")
    table = record.get("table")
    status = table.get("status") if isinstance(table, dict) else None
    if status is not None and status != "playing":
        found.append(f"the status {status}")
    if not found:
        return None
    listed = found[0] if len(found) == 1 else ", ".join(found[:-1]) + " and " + found[-1]
    return (
        f"{FAIRNESS_MISMATCH}: a record whose server seed is null is in play, with no seed, "
        f"no result and the status playing; it has {listed}",
        False,
    )


def problem(fairness: object, seed: object, variant: object) -> str | None:
    """Why a record's fairness does not check out, or None when no check fails (an
    unrevealed server seed fails none)."""
    for text, passed in checks(fairness, seed, variant):
        if passed is False:
            return f"check failed: {text}"
    return None
