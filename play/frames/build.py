"""What a live table sends to each viewer: the one place that turns a game into frames.

Every frame is built from `games.engine.view(state, seat)` for the viewer's seat (a
spectator, or a seated player who is not in the game in play, gets `None`), and every
event list from `games.engine.events_for` for that seat. Nothing else of the state is
read here, so a hidden card, the stock and an unrevealed seed never reach a frame.

Frames are built as their definitions (`contract.table_out`): a field the contract does not
name, or one it requires and the frame lacks, fails here, where the frame is made, not in
a client. The engine's parts (`view`, `events`, a game's `result`) stay the engine's plain
data inside them; the suite reads every frame it receives strictly, those parts included
(tests/contract/frames.py).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from typing import Any

from django.utils import timezone

from contract.table_out import (
    GameInfo,
    HistoryEntry,
    Pending,
    ShoeContext,
    Snapshot,
    TableInfo,
    TableSeat,
    Update,
    You,
)
from games import engine
from play.models import Game
from tables.models import Seat, Table


def epoch_ms(moment: datetime.datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


def table_info(table: Table, seats: Sequence[Seat], connected: Iterable[int]) -> TableInfo:
    online = set(connected)
    return TableInfo(
        id=table.pk,
        name=table.name,
        variant=table.variant,  # type: ignore[arg-type]
        status=table.status,  # type: ignore[arg-type]
        closing=table.closing,
        private=table.private,
        seat_count=table.seat_count,
        options=table.engine_options(),
        entry_limit=table.entry_limit,
        decision_seconds=table.decision_seconds,
        reconnect_grace_seconds=table.reconnect_grace_seconds,
        host=table.created_by.username if table.created_by_id else None,
        bots=table.allows_bots,
        next_game_at=epoch_ms(table.next_game_at),
        pending=pending_info(table),
        seats=[
            TableSeat(
                number=seat.number,
                id=seat.seat_id,
                name=seat.label,
                ai=seat.ai_level or None,
                bot=seat.is_bot,
                ready=seat.ready,
                leaving=seat.leaving,
                connected=seat.is_ai or seat.player_id in online,
                away_since=epoch_ms(seat.away_since),
            )
            for seat in seats
        ],
    )


def pending_info(table: Table) -> Pending | None:
    """The next game announced: its commitment, published before any client seed can
    exist, and who has given one (docs/fairness.md). Never the server seed."""
    pending = table.pending
    if pending is None:
        return None
    return Pending(
        game=pending["number"],
        commitment=pending["commitment"],
        context=ShoeContext(table=table.pk, shoe=pending["number"], variant=table.variant),  # type: ignore[arg-type]
        seats=list(pending["seats"]),
        given=sorted(pending["client_seeds"]),
        deal_at=epoch_ms(table.deal_at),  # type: ignore[arg-type]
    )


def game_info(game: Game | None, seat: str | None) -> GameInfo | None:
    """The table's current game (or, between games, the last one) as `seat` may see it.
    A game that is over shows its seed and its hand record's result."""
    if game is None:
        return None
    over = not game.is_playing
    view = engine.view(game.state, seat if seat in game.seat_ids else None)
    if over:  # ended before its record was (a session ended, a game voided): no one acts
        view.update(turn=None, actions=[])
    return GameInfo(
        id=game.pk,
        number=game.number,
        status=game.status,
        commitment=game.commitment,
        context=ShoeContext(**game.context),
        # Not a sealed duplicate shoe's: its tournament is still dealing it (docs/fairness.md).
        seed=game.seed if game.seed_revealed else None,
        server_seed=game.server_seed if game.seed_revealed else None,
        client_seeds=list(game.client_seeds),
        result=game.result if over else None,
        seats=game.seat_ids,
        carry=dict(game.carry),
        deadline=epoch_ms(game.deadline),
        clock_starts=epoch_ms(game.clock_starts_at) if game.deadline else None,
        deadline_seat=game.deadline_seat or None,
        paused=game.paused,
        paused_remaining_ms=game.paused_remaining_ms,
        # The engine's view as it is (checked by the suite, not here: see the docstring).
        view=view,  # type: ignore[arg-type]
    )


def update(
    *,
    table: Table,
    seats: Sequence[Seat],
    connected: Iterable[int],
    game: Game | None,
    seat: str | None,
    events: Sequence[dict[str, Any]],
    info: TableInfo | None = None,
    at: datetime.datetime | None = None,
) -> Update:
    """One viewer's `update` (docs/protocol.md §6.1). `events` are those of the transition
    just made in `game`. `info`: the table's part, the same for every viewer
    (`table_info`), when the caller built it once for all of a change's frames. `at`: when
    the game's transition this update tells of was made (its history entry's time)."""
    holder = seat if game is not None and seat in game.seat_ids else None
    return Update(
        version=table.version,
        server_time=_now_ms(),
        table=info if info is not None else table_info(table, seats, connected),
        you=_you(game, seat),
        game=game_info(game, seat),
        events=engine.events_for(list(events), holder),
        **({} if at is None else {"at": epoch_ms(at)}),
    )


def snapshot(
    *,
    table: Table,
    seats: Sequence[Seat],
    connected: Iterable[int],
    game: Game | None,
    seat: str | None,
    history: list[HistoryEntry],
) -> Snapshot:
    """One viewer's `snapshot` (docs/protocol.md §6.1), with the shown game's `history`."""
    return Snapshot(
        version=table.version,
        server_time=_now_ms(),
        table=table_info(table, seats, connected),
        you=_you(game, seat),
        game=game_info(game, seat),
        history=history,
    )


def _now_ms() -> int:
    return int(timezone.now().timestamp() * 1000)


def _you(game: Game | None, seat: str | None) -> You:
    in_game = game is not None and game.is_playing and seat in game.seat_ids
    return You(seat=seat, in_game=in_game)
