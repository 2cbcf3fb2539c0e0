"""The JSON bodies of the HTTP endpoints (docs/protocol.md: "The chip balance (HTTP)",
"The daily bonus (HTTP)", "The coach (HTTP)", "Friends, invites and blocks (HTTP)",
"Reports (HTTP)", and `lobby.json` in §14): what each reads and what each answers.

A request body is read by `contract.reading.read`: a field of the wrong type, missing or
unknown, a string holding a NUL or over its length answers `400` with the field named in
`error.field`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from contract.base import Card, Message, SeatId, Sha256Hex, VariantKey
from contract.codes import LimitKey
from contract.lobby import Counts, ListedRow, Me
from contract.registry import Endpoint, Response
from contract.table_out import Fairness, HandRecord

# --- shared shapes ---------------------------------------------------------------------

# A string of a request body: no NUL (PostgreSQL refuses it in a query, and no name or
# text of ours holds one).
_NO_NUL = r"^[^\x00]*$"
UserName = Annotated[
    str,
    msgspec.Meta(
        max_length=150, pattern=_NO_NUL, description="a user name, as on /players/<name>/"
    ),
]
NextPath = Annotated[
    str,
    msgspec.Meta(
        max_length=2000,
        pattern=_NO_NUL,
        description="where a form post returns to (ignored by a JSON answer)",
    ),
]
Id = Annotated[int, msgspec.Meta(description="a row's id")]
IsoTime = Annotated[str, msgspec.Meta(description="an ISO 8601 time with its UTC offset")]
Path = Annotated[str, msgspec.Meta(description="a path of this site")]


class ErrorDetail(Message, kw_only=True):
    code: Annotated[str, msgspec.Meta(description="the same in every language")]
    message: Annotated[str, msgspec.Meta(description="in the request's language")]
    field: (
        Annotated[
            str,
            msgspec.Meta(
                description="the malformed body's field (`name`, `note`): only on a `400` "
                "for a field of the body that has the wrong type, is missing, unknown, holds a "
                "NUL or is too long"
            ),
        ]
        | msgspec.UnsetType
    ) = msgspec.UNSET
    limit: (
        Annotated[LimitKey, msgspec.Meta(description="a `429`'s limit (docs/protocol.md §3)")]
        | msgspec.UnsetType
    ) = msgspec.UNSET
    retry_after: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1, description="a `429`: whole seconds to wait, as the `Retry-After` header"
            ),
        ]
        | msgspec.UnsetType
    ) = msgspec.UNSET


class ErrorBody(Message, kw_only=True):
    """A refusal: `{"error": {"code", "message", "field"?, "limit"?, "retry_after"?}}`."""

    error: ErrorDetail


# --- the chip balance ------------------------------------------------------------------


class BonusGranted(Message, kw_only=True):
    """A daily bonus granted: the chips added and the wallet after them."""

    amount: Annotated[int, msgspec.Meta(ge=1)]
    balance: int


class ChipBalance(Message, kw_only=True):
    """The signed-in user's wallet; `null` and `false` when not signed in."""

    balance: int | None
    bonus: Annotated[bool, msgspec.Meta(description="whether the daily bonus can be claimed")]


# --- the coach -------------------------------------------------------------------------


class CoachOption(Message, kw_only=True):
    action: Literal["hit", "stand", "double", "split", "bet"]
    amount: Annotated[int, msgspec.Meta(description="a bet's amount")] | msgspec.UnsetType = (
        msgspec.UNSET
    )
    value: Annotated[float, msgspec.Meta(description="the expected result, in `unit`s")]
    label: str
    chosen: bool
    best: bool


class BetRange(Message, kw_only=True):
    min: int
    max: int
    per_coin: Annotated[float, msgspec.Meta(description="the value of one coin bet")]


class CoachDecision(Message, kw_only=True):
    """A decision, valued: a `hint` (not made yet: `chosen` and `loss` null) or an entry of
    a review."""

    situation: Annotated[str, msgspec.Meta(description="`hard16:T`, `total14`, `bet:J`…")]
    label: str
    options: list[CoachOption]
    chosen: Annotated[str | None, msgspec.Meta(description="the label of what was done")]
    best: Annotated[str, msgspec.Meta(description="the best option's label")]
    loss: Annotated[float, msgspec.Meta(ge=0)] | None
    mistake: bool
    timeout: bool
    bet: BetRange | msgspec.UnsetType = msgspec.UNSET


class CoachSummary(Message, kw_only=True):
    decisions: int
    best: int
    accuracy: Annotated[float, msgspec.Meta(ge=0, le=1)]
    lost: float
    lost_per_100: float


class CoachRound(CoachSummary, kw_only=True):
    game: int
    round: int
    review: list[CoachDecision]


class Coach(Message, kw_only=True):
    type: Literal["coach"]
    table: Id
    variant: Literal["blackjack", "solo"]
    version: int
    game: int | None
    unit: Literal["units", "coins"]
    hint: CoachDecision | None
    last_round: CoachRound | None
    session: CoachSummary


class CoachError(Message, kw_only=True):
    """The coach's refusal (its own form, as the table socket's `error`)."""

    type: Literal["error"]
    code: Literal["not_coached", "not_seated"]
    message: str


# --- friends, invites and blocks -------------------------------------------------------


class NextOnly(Message, kw_only=True):
    """A body with nothing but the form's `next` (block, unblock, dismiss)."""

    next: NextPath | msgspec.UnsetType = msgspec.UNSET


class Named(Message, kw_only=True):
    """A friend request, accepting, declining, cancelling or removing: whom."""

    name: UserName
    next: NextPath | msgspec.UnsetType = msgspec.UNSET


class InviteRequest(Message, kw_only=True):
    table: Annotated[int, msgspec.Meta(description="the private table's id")]
    name: Annotated[UserName, msgspec.Meta(description="the friend invited")]
    next: NextPath | msgspec.UnsetType = msgspec.UNSET


FriendState = Literal["blocked", "none", "outgoing", "friends", "dismissed"]


class Done(Message, kw_only=True):
    ok: Literal[True]
    state: FriendState
    message: str


class Invited(Message, kw_only=True):
    ok: Literal[True]
    state: Literal["invited"]
    message: str
    invite: Id


class FriendTable(Message, kw_only=True):
    id: Id
    name: str
    variant: VariantKey
    variant_name: str
    private: bool
    seated: bool
    watch_url: Path
    sit_url: Path


class Friend(Message, kw_only=True):
    name: str
    profile: Path
    online: bool
    table: FriendTable | None


class FriendRequest(Message, kw_only=True):
    name: str
    profile: Path
    sent_at: IsoTime


class InviteTable(Message, kw_only=True):
    id: Id
    name: str
    variant: VariantKey
    variant_name: str


class Invite(Message, kw_only=True):
    id: Id
    from_: str = msgspec.field(name="from")
    from_profile: Path
    table: InviteTable
    join_url: Path
    dismiss_url: Path
    sent_at: IsoTime
    expires_at: IsoTime


class FriendsPanel(Message, kw_only=True):
    friends: list[Friend]
    online: Annotated[int, msgspec.Meta(ge=0, description="friends online")]
    incoming: list[FriendRequest]
    outgoing: list[FriendRequest]
    invites: list[Invite]


# --- reports ---------------------------------------------------------------------------

ReportReason = Literal["insult", "collusion", "spam", "other"]


class ReportRequest(Message, kw_only=True):
    """A report on a chat message (its author) or on a player; `message` wins."""

    message: Annotated[int, msgspec.Meta(description="a chat message's id")] | msgspec.UnsetType = (
        msgspec.UNSET
    )
    player: UserName | msgspec.UnsetType = msgspec.UNSET
    reason: ReportReason
    note: Annotated[str, msgspec.Meta(max_length=500, pattern=_NO_NUL)] = ""


class ReportFiled(Message, kw_only=True):
    report: Id
    message: Annotated[str, msgspec.Meta(description="thanks, in the request's language")]


# --- lobby.json ------------------------------------------------------------------------


# The row, the counts and the viewer's `me` are the lobby socket's (contract.lobby).


class LobbyState(Message, kw_only=True):
    tables: list[ListedRow]
    page: Annotated[int, msgspec.Meta(ge=1)]
    pages: Annotated[int, msgspec.Meta(ge=1)]
    total: int
    counts: Counts
    counts_total: int
    me: Me | None
    unavailable: list[Literal["tables", "me"]]


# --- the web app manifest ------------------------------------------------------------


class ManifestIcon(Message, kw_only=True):
    src: Annotated[str, msgspec.Meta(description="the icon's static URL")]
    sizes: Literal["192x192", "512x512", "any"]
    type: Literal["image/png", "image/svg+xml"]
    purpose: Literal["any", "maskable"]


class WebManifest(Message, kw_only=True):
    """The site's web app manifest (`application/manifest+json`)."""

    id: Literal["/"]
    name: str
    short_name: str
    description: str
    lang: str
    start_url: Literal["/"]
    scope: Literal["/"]
    display: Literal["standalone"]
    orientation: Literal["any"]
    theme_color: str
    background_color: str
    icons: list[ManifestIcon]


# --- Web Push --------------------------------------------------------------------------

# The browser's keys, base64url (RFC 8291): its P-256 public key and its auth secret.
_BASE64URL = r"^[A-Za-z0-9_-]+=*$"
PushEndpoint = Annotated[
    str,
    msgspec.Meta(
        max_length=1000,
        pattern=r"^https?://[^\s\x00]+$",
        description="the push service's URL for this browser: https (http only to this "
        "machine, 127.0.0.1 or localhost, while the site is served over plain http)",
    ),
]


class PushKeys(Message, kw_only=True):
    p256dh: Annotated[str, msgspec.Meta(min_length=1, max_length=200, pattern=_BASE64URL)]
    auth: Annotated[str, msgspec.Meta(min_length=1, max_length=100, pattern=_BASE64URL)]


class PushSubscriptionBody(Message, kw_only=True):
    """A browser's push subscription, as `PushSubscription.toJSON()` gives it."""

    endpoint: PushEndpoint
    keys: PushKeys
    # The browser's own name for it (PushSubscription.toJSON): read, not kept.
    expirationTime: int | msgspec.UnsetType | None = msgspec.UNSET


class PushUnsubscribeBody(Message, kw_only=True):
    """The subscription to forget, by its endpoint."""

    endpoint: PushEndpoint


class PushSubscribed(Message, kw_only=True):
    subscription: Id
    created: Annotated[bool, msgspec.Meta(description="false: this browser's, updated")]


class PushUnsubscribed(Message, kw_only=True):
    deleted: Annotated[bool, msgspec.Meta(description="false: there was none")]


class PushPayload(Message, kw_only=True):
    """What a push message carries (encrypted for the browser): the notification the
    service worker shows."""

    title: str
    body: str
    url: Annotated[str, msgspec.Meta(description="a path of this site, opened on a click")]
    tag: Annotated[
        str,
        msgspec.Meta(description="`table-<id>` or `tournament-<id>`: one notification per tag"),
    ]


# --- the replay page's data and the health check --------------------------------------


class ReplayCut(Message, kw_only=True):
    position: Annotated[int, msgspec.Meta(description="cards lifted from the top")]
    by: Annotated[
        Literal["server", "player"],
        msgspec.Meta(description="`server`: made by the clock for a player who did not cut"),
    ]


class ReplayShuffle(Message, kw_only=True):
    """One shuffle of the game, as the verifier (docs/fairness.md) redraws it."""

    number: Annotated[int, msgspec.Meta(description="the shuffle's number in the game, from 0")]
    fresh: Annotated[bool, msgspec.Meta(description="a fresh deck of the variant was shuffled")]
    pile: Annotated[list[Card], msgspec.Meta(description="else the pile shuffled, in order")]
    cut: ReplayCut | None
    passes: Annotated[
        list[list[Card]],
        msgspec.Meta(
            description="the cards dealt from the top, a list per pass (a redeal starts one)"
        ),
    ]


class ReplayLot(Message, kw_only=True):
    seats: Annotated[list[SeatId], msgspec.Meta(description="the seats drawn among")]
    chosen: Annotated[SeatId, msgspec.Meta(description="the first banker drawn")]


class ReplayVerify(Message, kw_only=True):
    """What the page's «Проверить» recomputes in the browser (docs/fairness.md)."""

    variant: VariantKey
    seed: Sha256Hex
    fairness: Fairness
    shuffles: list[ReplayShuffle]
    lot: ReplayLot | None


class Replay(Message, kw_only=True):
    """A game's replay page's data. While its seed is secret — the game is in play, or it
    is a tournament's duplicate shoe and the tournament has not ended — only `game`,
    `status` and `commitment`; once revealed, everything but `commitment`."""

    game: int
    status: Literal["playing", "finished", "voided"]
    commitment: Annotated[
        Sha256Hex | msgspec.UnsetType, msgspec.Meta(description="only while the seed is secret")
    ] = msgspec.UNSET
    variant: VariantKey | msgspec.UnsetType = msgspec.UNSET
    seat: Annotated[
        SeatId | msgspec.UnsetType | None,
        msgspec.Meta(description="the viewer's seat; null for staff who did not play"),
    ] = msgspec.UNSET
    unit: Annotated[
        str | msgspec.UnsetType,
        msgspec.Meta(description="the word for the variant's unit, in the viewer's language"),
    ] = msgspec.UNSET
    steps: Annotated[
        list[dict[str, Any]] | msgspec.UnsetType,
        msgspec.Meta(
            description="the page's steps (a title, the narration and the scene, in the "
            "viewer's language): for showing, not for parsing; a program reads the hand "
            "record (`handRecord`) instead"
        ),
    ] = msgspec.UNSET
    verify: ReplayVerify | msgspec.UnsetType = msgspec.UNSET


class Health(Message, kw_only=True):
    status: Literal["ok", "database unavailable"]


# --- the endpoints ---------------------------------------------------------------------

_MALFORMED = (
    "a field of the body has the wrong type, is missing, unknown, holds a NUL or is too long"
)
_LOGIN = Response(302, "not signed in: to `/login/?next=…`")
_NOT_POST = Response(405, "any method but POST")


def _people(
    method_path: str,
    operation_id: str,
    summary: str,
    request: type,
    done: Response,
    errors: tuple[Response, ...] = (),
) -> Endpoint:
    # Friends, invites and blocks: a token's `play` (docs/protocol.md §2.2.1).
    return Endpoint(
        "post",
        method_path,
        operation_id,
        summary,
        (
            done,
            Response(
                400, "not a JSON object, or " + _MALFORMED, ErrorBody, ("bad_json", "bad_message")
            ),
            *errors,
            _LOGIN,
            _NOT_POST,
        ),
        request=request,
        description="A JSON body (`Content-Type: application/json`) or a form; a form post "
        "without `Accept: application/json` is answered with a 302 to `next`.",
        scopes=("play",),
    )


_DONE = Response(200, "done", Done)
_NOT_FOUND = Response(404, "no such player", ErrorBody, ("not_found",))
_BLOCKED = Response(403, "one of you blocked the other", ErrorBody, ("blocked",))
_PEOPLE_LIMIT = Response(
    429,
    "over 60 friend requests and invites together this clock hour (a form post: a 302 "
    "with the message)",
    ErrorBody,
    ("rate_limited",),
    ("friend_requests_and_invites",),
)

ENDPOINTS = (
    Endpoint(
        "get",
        "/chips/balance.json",
        "chipBalance",
        "The signed-in user's chip balance and whether the daily bonus can be claimed",
        (
            Response(200, "the balance (null when not signed in)", ChipBalance),
            Response(405, "any method but GET"),
        ),
        query={"tz": ("string", "an IANA time zone counting the bonus's day")},
        auth="none",
        scopes=("read",),
    ),
    Endpoint(
        "post",
        "/chips/bonus/",
        "dailyBonusClaim",
        "Claim the daily bonus (a form post)",
        (
            Response(
                200,
                "granted, to a request with `Accept: application/json` (a form post: a 302)",
                BonusGranted,
            ),
            Response(302, "a form post: to `next`, the outcome as the page's message"),
            Response(
                409,
                "nothing granted, to a request with `Accept: application/json`: the bonus "
                "is off, the wallet is not below the floor, today's was taken, a bot, or an "
                "account too new that has played too little (docs/fair-play.md)",
                ErrorBody,
                (
                    "bonus_off",
                    "bonus_above_floor",
                    "bonus_claimed_today",
                    "bonus_not_for_bots",
                    "bonus_account_too_new",
                ),
            ),
            Response(
                429,
                "over 20 claims this clock hour, to a request with `Accept: application/json` "
                "(a form post: a 302 with the message)",
                ErrorBody,
                ("rate_limited",),
                ("bonus_claims",),
            ),
            _LOGIN,
            _NOT_POST,
        ),
        description="A form: `time_zone` (IANA), `next`. With `Accept: application/json`, "
        "the outcome is answered as JSON instead of a redirect.",
        scopes=("play",),
    ),
    Endpoint(
        "get",
        "/tables/{table_id}/coach.json",
        "coach",
        "The coach: the values of the decision faced now, the last round's review, the session",
        (
            Response(200, "the coach's figures", Coach),
            Response(400, "not a `blackjack` or `solo` table", CoachError, ("not_coached",)),
            Response(403, "not seated at this table", CoachError, ("not_seated",)),
            Response(404, "no such table (an HTML page)"),
            _LOGIN,
        ),
        scopes=("read",),
    ),
    Endpoint(
        "get",
        "/games/{game_id}/record.json",
        "handRecord",
        "A game's hand record (docs/hand-record.md), to its players and staff",
        (
            Response(
                200,
                "the record, as a file download; while the game is in play without its seed "
                "and server seed (docs/protocol.md §15)",
                HandRecord,
            ),
            Response(404, "no such game among yours (an HTML page)"),
            Response(
                409,
                "a tournament's duplicate shoe before the tournament ends (docs/tournaments.md)",
                ErrorBody,
                ("record_sealed",),
            ),
            _LOGIN,
        ),
        scopes=("read",),
    ),
    _people(
        "/players/{name}/block/",
        "playerBlock",
        "Block a player",
        NextOnly,
        Response(200, "blocked", Done),
        (
            Response(400, "yourself", ErrorBody, ("self",)),
            Response(404, "no such player (an HTML page)"),
        ),
    ),
    _people(
        "/players/{name}/unblock/",
        "playerUnblock",
        "Unblock a player",
        NextOnly,
        Response(200, "unblocked (or was not blocked)", Done),
        (Response(404, "no such player (an HTML page)"),),
    ),
    _people(
        "/friends/request/",
        "friendRequest",
        "Send a friend request",
        Named,
        _DONE,
        (
            Response(400, "yourself", ErrorBody, ("self",)),
            _BLOCKED,
            _NOT_FOUND,
            _PEOPLE_LIMIT,
        ),
    ),
    _people(
        "/friends/accept/",
        "friendAccept",
        "Accept a friend request",
        Named,
        _DONE,
        (
            _BLOCKED,
            Response(404, "no such player, or no request", ErrorBody, ("not_found", "no_request")),
        ),
    ),
    _people(
        "/friends/decline/",
        "friendDecline",
        "Decline a friend request",
        Named,
        _DONE,
        (_NOT_FOUND,),
    ),
    _people(
        "/friends/cancel/", "friendCancel", "Cancel a friend request", Named, _DONE, (_NOT_FOUND,)
    ),
    _people("/friends/remove/", "friendRemove", "End a friendship", Named, _DONE, (_NOT_FOUND,)),
    _people(
        "/friends/invite/",
        "inviteSend",
        "Invite a friend to a private table",
        InviteRequest,
        Response(200, "invited", Invited),
        (
            Response(
                400,
                "a public or closed table, or yourself",
                ErrorBody,
                ("not_private", "table_closed", "self"),
            ),
            Response(
                403,
                "not at the table, not friends, or blocked",
                ErrorBody,
                ("not_at_table", "not_friends", "bots_not_allowed", "blocked"),
            ),
            Response(404, "no such table or player", ErrorBody, ("not_found",)),
            _PEOPLE_LIMIT,
        ),
    ),
    _people(
        "/friends/invites/{invite_id}/dismiss/",
        "inviteDismiss",
        "Hide an invite",
        NextOnly,
        Response(200, "dismissed (also when already gone)", Done),
    ),
    Endpoint(
        "get",
        "/friends/panel.json",
        "friendsPanel",
        "Friends, requests and invites, as the lobby's panel shows them",
        (
            Response(200, "the panel", FriendsPanel),
            Response(403, "not signed in", ErrorBody, ("not_signed_in",)),
        ),
        auth="none",
        scopes=("read",),
    ),
    Endpoint(
        "post",
        "/report/",
        "reportFile",
        "Report a chat message or a player to the moderators",
        (
            Response(201, "filed (or the open report already filed)", ReportFiled),
            Response(
                400,
                "not JSON; not an object, " + _MALFORMED + ", an unknown reason, nothing named; "
                "or a report on yourself",
                ErrorBody,
                ("bad_json", "bad_message", "self_report"),
            ),
            Response(401, "not signed in", ErrorBody, ("not_signed_in",)),
            Response(403, "no CSRF token (an HTML page)"),
            Response(404, "no such message or player", ErrorBody, ("not_found",)),
            Response(405, "any method but GET or POST"),
            Response(
                429,
                "over `REPORTS_PER_HOUR` reports this clock hour",
                ErrorBody,
                ("rate_limited",),
                ("reports",),
            ),
        ),
        request=ReportRequest,
        description="As JSON (`Content-Type: application/json`); a form post answers a page.",
        scopes=("chat",),
    ),
    Endpoint(
        "get",
        "/history/{game_id}/replay.json",
        "gameReplay",
        "The replay page's data: its steps as the viewer saw them and the draws to verify",
        (
            Response(200, "the replay (only its commitment while the game is in play)", Replay),
            Response(404, "no such game among the viewer's (an HTML page)"),
            _LOGIN,
        ),
        description="To the game's players and staff. Built for the replay page "
        "(`/history/{game_id}/`); `verify` is what docs/fairness.md's verification reads.",
        scopes=("read",),
    ),
    Endpoint(
        "get",
        "/healthz",
        "health",
        "Whether the site answers and reaches its database (the container's health check)",
        (
            Response(200, "it does", Health),
            Response(503, "the database does not answer", Health),
        ),
        description="Answered before the site's middleware: any host name, plain HTTP.",
        auth="none",
    ),
    Endpoint(
        "get",
        "/manifest.webmanifest",
        "webManifest",
        "The web app manifest",
        (Response(200, "the manifest, as `application/manifest+json`", WebManifest),),
        auth="none",
    ),
    Endpoint(
        "post",
        "/push/subscriptions/",
        "pushSubscribe",
        "Keep this browser's Web Push subscription for the signed-in player",
        (
            Response(201, "kept", PushSubscribed),
            Response(
                200, "this browser's, updated (its keys, its player, its language)", PushSubscribed
            ),
            Response(
                400,
                "not JSON; not an object, " + _MALFORMED + "; an http endpoint (but a local one "
                "while the site is served over http)",
                ErrorBody,
                ("bad_json", "bad_message"),
            ),
            Response(401, "not signed in", ErrorBody, ("not_signed_in",)),
            Response(403, "no CSRF token (an HTML page)"),
            Response(404, "Web Push is off on this site (no VAPID keys)", ErrorBody, ("push_off",)),
            Response(405, "any method but POST or DELETE"),
        ),
        request=PushSubscriptionBody,
        description="JSON (`Content-Type: application/json`) with the `csrftoken` cookie's "
        "value in `X-CSRFToken`.",
    ),
    Endpoint(
        "delete",
        "/push/subscriptions/",
        "pushUnsubscribe",
        "Forget this browser's Web Push subscription",
        (
            Response(200, "forgotten (or there was none)", PushUnsubscribed),
            Response(
                400,
                "not JSON; not an object, or " + _MALFORMED,
                ErrorBody,
                ("bad_json", "bad_message"),
            ),
            Response(401, "not signed in", ErrorBody, ("not_signed_in",)),
            Response(403, "no CSRF token (an HTML page)"),
            Response(404, "Web Push is off on this site (no VAPID keys)", ErrorBody, ("push_off",)),
        ),
        request=PushUnsubscribeBody,
        description="JSON, with `X-CSRFToken`, as the subscription.",
    ),
    Endpoint(
        "get",
        "/lobby.json",
        "lobbyState",
        "A page of the open public tables and the viewer's seats and tables",
        (
            Response(200, "the page", LobbyState),
            Response(400, "a bad query parameter", ErrorBody, ("bad_filter",)),
        ),
        query={
            "variant": ("string", "one variant key: only its tables"),
            "min_entry": ("integer", "only tables whose entry limit is at least this"),
            "max_entry": ("integer", "only tables whose entry limit is at most this"),
            "page": ("integer", "the page, from 1 (past the last: the last)"),
            "html": ("string", "`1`: each row also carries its markup"),
        },
        auth="none",
        scopes=("read",),
    ),
)
