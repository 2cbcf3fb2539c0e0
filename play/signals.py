"""What live play announces to the rest of the platform.

Live play (play/services/lifecycle.py) sends these and imports none of their subscribers: the
decision reviews (`insights.tasks`, connected in `insights.apps.InsightsConfig.ready`)
listen, and whatever else must follow a game subscribes here the same way, without live
play knowing of it.
"""

from __future__ import annotations

from django.dispatch import Signal

game_ended = Signal()
"""A game ended (finished or voided), with ``game_id``; the sender is `play.models.Game`.

Sent after the transaction that ended it commits (never for a rolled-back end), with
`Signal.send_robust`: a subscriber that fails is logged and does not stop the others,
nor the move that ended the game.
"""

seat_requested = Signal()
"""A signed-in player asks for a seat at ``table`` (the locked `tables.models.Table`),
with ``player``; the sender is `tables.models.Table`.

Sent with `Signal.send` inside `play.services.seating.seat_take`'s transaction, after the table's
own checks (open, not already seated) and before anything is written: a receiver that
refuses the seat raises `play.services.errors.SeatError` with the protocol's error code, and the
seat is not taken. So the social layer (a ban, a block between a player and a private
table's host) refuses a seat without live play importing it.
"""

deal_ended = Signal()
"""A deal (one round, `games.deals`) ended at ``table_id`` in the game ``game_id`` — it
settled, or the game ended (finished or voided) with it; the sender is
`play.models.Game`.

Sent after the transaction that ended it commits, with `Signal.send_robust`, as
`game_ended`. Decided from the transition's events already in memory
(`games.deals.ends_a_deal`), so a move costs no query for it. The table chat releases
the spectators' messages it held from the seated players (docs/protocol.md §17).
"""

decision_started = Signal()
"""A person's decision clock started: at ``table_id``, the game ``game_id`` waits for the
seat ``seat_id`` of the user ``user_id`` until ``deadline`` (an aware datetime), the
decision being the one of the game's state ``version``; the sender is `play.models.Game`.

Sent after the transaction that started the clock commits, with `Signal.send_robust`, as
`game_ended`; only for a signed-in player's seat whose clock runs (not an AI seat's, not a
seat being left, not while the game is paused, not in `solo`, which has no clock). Web Push
(`push.receivers`) tells a player who is not looking at the table that it is their turn,
without live play knowing of it.
"""
