"""Chips at a chip table: which seats have the entry limit in their wallets, and the
moves of every game's escrow through the one ledger function (accounts.services). A
stacks table (Table.stacks: a sit-and-go) plays with the stacks its owner gave instead:
none of its chips touch a wallet."""

from __future__ import annotations

from django.utils.translation import gettext as _

from accounts.models import Account, LedgerEntry
from accounts.services import (
    ChipsError,
    chips_transfer,
    escrow_and_wallet,
    wallet_for,
    wallet_of,
)
from games import engine
from play.db.seat_reads import table_seats
from play.models import Game
from play.services.errors import PlayError
from tables.models import Seat, Table


def eligible_seats(table: Table) -> list[Seat]:
    return eligible_with_wallets(table, lock=False)[0]


def eligible_with_wallets(table: Table, *, lock: bool) -> tuple[list[Seat], dict[int, Account]]:
    """The seats that may play the next game (not leaving; at a chip table, with the entry
    limit in their wallets), and at a chip table those wallets (`lock`: for a deal)."""
    seats = [s for s in table_seats(table) if not s.leaving]
    if not table.variant_spec.stakes_chips:
        return seats, {}
    if table.stacks is not None:
        # Stacks its owner gives (a sit-and-go): a seat plays with its stack, never its
        # wallet, so the wallet is neither read nor locked.
        return [s for s in seats if (table.stack_of(s.player_id) or 0) >= table.entry_limit], {}
    wallets = _wallets(seats, lock=lock)
    return [s for s in seats if wallets[s.player_id].balance >= table.entry_limit], wallets


def _wallets(seats: list[Seat], *, lock: bool) -> dict[int, Account]:
    """The wallets of the seats' players by user id, read in one query (locked, in the
    order of their ids, for a deal); a wallet not made yet is made, empty."""
    users = {s.player_id: s.player for s in seats if s.player_id is not None}
    query = Account.objects.filter(owner_id__in=users, kind=Account.Kind.PLAYER).order_by("pk")
    found = {a.owner_id: a for a in (query.select_for_update() if lock else query)}
    for user_id, user in users.items():
        if user_id not in found:
            found[user_id] = wallet_for(user)
    return found


def chips_sync(game: Game, *, void: bool) -> None:
    """Keep the game's escrow equal to the chips in play, through the one ledger function.

    A seat that began with c chips holds c + deltas − in_play (games.engine.in_play), so
    its net chips in escrow are in_play − deltas. Whatever differs from what is already
    escrowed moves now, into the escrow first so it never runs short; the idempotency key
    is (game, engine version, seat), so a retried settlement never pays twice. Voiding
    returns what is in play to whoever staked it; settled results stand.
    """
    if not game.table.variant_spec.stakes_chips or game.table.stacks is not None:
        return  # a stacks table's chips are its owner's counters: nothing to escrow
    state = game.state
    staked = {} if void else engine.in_play(state)
    target = {sid: staked.get(sid, 0) - state["deltas"][sid] for sid in game.seat_ids}
    moves = sorted(
        ((sid, target[sid] - game.escrowed.get(sid, 0)) for sid in game.seat_ids),
        key=lambda move: -move[1],
    )
    escrow = None
    for sid, amount in moves:
        if amount == 0:
            continue
        entry = game.player_entry(sid)
        assert entry is not None and entry["user"] is not None
        if escrow is None:  # the first seat's wallet read with the escrow, in one statement
            escrow, wallet = escrow_and_wallet(f"escrow:game:{game.pk}", entry["user"])
        else:
            wallet = wallet_of(entry["user"])
        key = f"game:{game.pk}:v{state['version']}:{sid}" + (":void" if void else "")
        common = {"idempotency_key": key, "round_ref": f"game:{game.pk}", "game": game}
        try:
            if amount > 0:
                chips_transfer(
                    source=wallet,
                    destination=escrow,
                    amount=amount,
                    reason=LedgerEntry.Reason.STAKE,
                    **common,
                )
            else:
                reason = LedgerEntry.Reason.REFUND if void else LedgerEntry.Reason.PAYOUT
                chips_transfer(
                    source=escrow, destination=wallet, amount=-amount, reason=reason, **common
                )
        except ChipsError as error:
            # Not the ledger's own message: it names a balance, maybe another player's.
            raise PlayError(error.code, _("Не хватает фишек для этого хода.")) from error
    game.escrowed = target
