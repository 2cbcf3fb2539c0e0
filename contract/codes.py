"""The error codes of both sockets (docs/protocol.md §13), the table socket's close
codes (§2.4) and the limits' keys (§3), each with the one line the specs print beside
it. `ERROR_CODES`' keys are every code an `error` frame may carry; an engine refusal
passes the engine's own code through, and those are listed here too."""

from __future__ import annotations

from typing import Literal

ERROR_CODES: dict[str, str] = {
    "rate_limited": "over a rate limit: refused unread (`limit` names it, `retry_after` is "
    "the seconds to wait)",
    "too_large": "the frame is over 4096 bytes; not read",
    "bad_json": "not JSON, not UTF-8, or nested too deep",
    "bad_message": "not an object with a string type, or a field that does not fit its "
    "definition (`field` names it), or a command without a usable id",
    "unknown_type": "no such message type",
    "not_signed_in": "a command from an anonymous connection",
    "stale_version": "the command's version is not the table's; a snapshot follows",
    "no_game": "no game in play",
    "not_seated": "the command needs a seat (in the game) this user does not hold",
    "no_shuffle": "client_seed with no game announced",
    "bad_client_seed": "a client seed that is not 1–64 of A–Z a–z 0–9 _ -",
    "seed_given": "this seat's client seed was already accepted",
    "paused": "an action while the game is paused",
    "not_paused": "resume with no paused game",
    "not_host": "only the host (or staff) may",
    "not_your_turn": "(engine) another seat is to act",
    "illegal_action": "(engine) the action is not allowed now; the message lists what is",
    "bad_amount": "(engine) a bet or cut position outside what is allowed",
    "game_in_play": "start while a game is in play or announced",
    "not_enough_players": "start without enough eligible seats, or without a person",
    "cannot_start": "start: the rules refuse the table as it is",
    "no_ai_here": "add_ai outside classic and blackjack",
    "bad_level": "add_ai with an unknown level",
    "not_found": "no such seat, AI seat, game or table",
    "forbidden": "a record of a game this user did not play",
    "record_sealed": "a record of a tournament's duplicate shoe before the tournament ends",
    "table_closed": "the table is closed",
    "table_full": "every seat is taken",
    "invite_required": "a private table: the invite code is needed",
    "blocked": "a private table whose host blocked this user, or whom this user blocked",
    "seated_elsewhere": "already seated at another open chip table",
    "bots_not_allowed": "a bot account at a table whose host does not allow bots",
    "leaving": "sit again after standing up during the game in play",
    "banned": "a moderator banned this player from playing for a period",
    "linked_account": "a player-bank or tournament table where an account strongly linked "
    "with this one (shared sign-in address and device) is seated; the message names no one",
    "below_entry_limit": "fewer chips than the table's entry limit",
    "seat_taken": "a race for a seat was lost; try again",
    "insufficient_chips": "a stake could not be taken from a wallet; nothing was applied",
    "idempotency_conflict": "the chip ledger refused a movement; nothing was applied",
    "chips_error": "the chip ledger refused a movement; nothing was applied",
    "unavailable": "the server lost its database meanwhile; resend with the same id",
    "bad_table": "open_table: the table's fields are refused",
    "too_many_tables": "open_table: too many tables of yours are open (`limit` "
    "`open_tables`; close one: no retry_after)",
    "too_many_connections": "too many sockets open (`limit`, `retry_after`); the socket is "
    "closed with 4430",
    "chat_empty": "a chat text empty once trimmed",
    "chat_too_long": "a chat text over 200 characters",
    "session_ended": "the socket's session has ended; closed with 4440",
    "muted": "a moderator muted this player for a period",
    "scope_missing": "the socket's access token lacks the scope this needs (the message names it); "
    "at the handshake (no `read`): closed with 4403",
    "bad_token": "the handshake's access token is unknown, revoked or malformed; closed with 4401",
    "token_in_url": "an access token in the URL's query string: refused, closed with 4401",
}

ErrorCode = Literal[
    "rate_limited",
    "too_large",
    "bad_json",
    "bad_message",
    "unknown_type",
    "not_signed_in",
    "stale_version",
    "no_game",
    "not_seated",
    "no_shuffle",
    "bad_client_seed",
    "seed_given",
    "paused",
    "not_paused",
    "not_host",
    "not_your_turn",
    "illegal_action",
    "bad_amount",
    "game_in_play",
    "not_enough_players",
    "cannot_start",
    "no_ai_here",
    "bad_level",
    "not_found",
    "forbidden",
    "record_sealed",
    "table_closed",
    "table_full",
    "invite_required",
    "blocked",
    "seated_elsewhere",
    "bots_not_allowed",
    "leaving",
    "banned",
    "linked_account",
    "below_entry_limit",
    "seat_taken",
    "insufficient_chips",
    "idempotency_conflict",
    "chips_error",
    "unavailable",
    "bad_table",
    "too_many_tables",
    "too_many_connections",
    "chat_empty",
    "chat_too_long",
    "session_ended",
    "muted",
    "scope_missing",
    "bad_token",
    "token_in_url",
]

# The close codes of both sockets: code -> (meaning, whether and when to reconnect).
CLOSE_CODES: dict[int, tuple[str, str]] = {
    4401: (
        "not signed in (lobby only), or a bad access token or one in the URL (both sockets)",
        "after signing in, with a good token in the Authorization header",
    ),
    4403: (
        "private table: no invite, not the host, not seated, not staff; or an access token "
        "without `read`",
        "with the invite, or a token that has `read`",
    ),
    4404: ("no such table (the tournament socket: no such tournament)", "no"),
    4429: (
        "flooding: 100 messages in a row refused by the rate limit; or, at the handshake, too "
        "many bad access tokens from this address this hour",
        "yes, after a pause (for tokens: the next hour)",
    ),
    4430: ("too many sockets open at once (the user's or the address's)", "after closing one"),
    4440: ("the socket's session has ended", "after signing in again"),
    1013: ("the server could not reach its database while opening", "yes, after a pause"),
    1011: ("the server failed on this connection", "yes, at once, then with a growing pause"),
}

# Every limit the server enforces, by the key its refusals carry in `limit` (the socket
# `error`'s and the HTTP `429` body's), with the one line the specs print beside it.
LIMITS: dict[str, str] = {
    "socket_messages": "a socket's token bucket: 20 at once, 10 a second",
    "user_messages": "a signed-in user's messages over all their sockets: 30 a second",
    "address_messages": "an address's anonymous sockets' messages: 30 a second",
    "user_sockets": "sockets a signed-in user holds open at once",
    "address_sockets": "sockets a client address holds open at once",
    "table_opens": "tables a player opens per clock hour",
    "open_tables": "tables a player has open at once (freed by closing one: no retry_after)",
    "chat_messages": "chat messages per player per window",
    "friend_requests_and_invites": "friend requests and invites sent per clock hour",
    "reports": "reports filed per clock hour",
    "bonus_claims": "daily-bonus claims per clock hour",
    "sign_ups": "accounts made per client address per clock hour",
    "password_resets": "password-reset requests per client address per clock hour",
    "password_reset_emails": "password-reset requests per e-mail address per clock hour",
    "sign_ins": "failed sign-ins per user name and address, then a cool-off",
    "bad_tokens": "refused access tokens per client address per clock hour, then any token",
}

LimitKey = Literal[
    "socket_messages",
    "user_messages",
    "address_messages",
    "user_sockets",
    "address_sockets",
    "table_opens",
    "open_tables",
    "chat_messages",
    "friend_requests_and_invites",
    "reports",
    "bonus_claims",
    "sign_ups",
    "password_resets",
    "password_reset_emails",
    "sign_ins",
    "bad_tokens",
]
