"""The lobby page and the ws/lobby/ WebSocket (session auth + origin check)."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse

from accounts.services import chips_adjust, wallet_for
from config.asgi import application
from lobby.selectors import lobby_listing, player_lobby_state
from play.services.closing import game_void, table_close
from play.services.errors import SeatError
from play.services.seating import seat_take
from tables.models import Seat, Table
from tables.services import table_create
from tests.contract.lobby_frames import LobbyCommunicator


@pytest.fixture
def demo_tables(db):
    return {
        "banker36": table_create(variant="banker36", name="Банк", stake=20, entry_limit=200),
        "salon": table_create(variant="salon", name="Салон", min_bet=5, max_bet=50, entry_limit=60),
        "classic": table_create(variant="classic", name="Классика-7", match_length=7),
        "closed": table_create(variant="blackjack", name="Закрытый"),
    }


@pytest.mark.django_db
def test_lobby_lists_open_tables_with_variant_seats_stakes_and_entry_limit(
    client, demo_tables, make_user
):
    seat_take(table=demo_tables["banker36"], player=make_user())
    table_close(table=demo_tables["closed"])
    html = client.get(reverse("lobby")).content.decode()
    assert "Банк" in html and "Очко с банкиром (36 карт)" in html
    assert "1/4" in html and "ставка 20" in html and ">200<" in html
    assert "ставки 5–50" in html and ">60<" in html
    assert "партия из 7 раздач" in html
    assert "Закрытый" not in html
    # Variants in the registry's order: classic first.
    assert html.index(">Классика-7<") < html.index(">Салон<") < html.index(">Банк<")


@pytest.mark.django_db
def test_lobby_in_english(client, demo_tables):
    client.cookies["django_language"] = "en"
    html = client.get(reverse("lobby")).content.decode()
    assert "Open tables" in html and "Banker (36 cards)" in html and "Entry limit" in html
    assert "stake 20" in html


@pytest.mark.django_db
def test_static_css_is_served(client):
    response = client.get("/static/css/site.css")
    assert response.status_code == 200


def _session_cookie(client, user) -> bytes:
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_ws_lobby_sends_open_tables_to_a_signed_in_player(client, make_user):
    await database_sync_to_async(table_create)(variant="banker36", name="WS-стол", stake=10)
    user = await database_sync_to_async(make_user)()
    cookie = await database_sync_to_async(_session_cookie)(client, user)
    communicator = LobbyCommunicator(
        application,
        "/ws/lobby/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost"), (b"cookie", cookie)],
    )
    connected, _ = await communicator.connect()
    assert connected
    message = await communicator.receive_json_from(timeout=5)
    assert message["type"] == "lobby"
    (table,) = message["tables"]
    assert (table["name"], table["variant"], table["seat_count"], table["entry_limit"]) == (
        "WS-стол",
        "banker36",
        4,
        100,
    )
    await communicator.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_ws_lobby_closes_anonymous_connections_with_4401():
    communicator = LobbyCommunicator(
        application,
        "/ws/lobby/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")],
    )
    connected, _ = await communicator.connect()
    assert connected  # accepted only to deliver the close code to the browser
    closing = await communicator.receive_output(timeout=5)
    assert closing == {"type": "websocket.close", "code": 4401}


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_ws_lobby_refuses_a_foreign_origin_even_with_a_valid_session(client, make_user):
    user = await database_sync_to_async(make_user)()
    cookie = await database_sync_to_async(_session_cookie)(client, user)
    communicator = LobbyCommunicator(
        application,
        "/ws/lobby/",
        headers=[(b"origin", b"https://evil.example"), (b"cookie", cookie)],
    )
    connected, _ = await communicator.connect()
    assert not connected


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_ws_lobby_refuses_bad_frames_and_floods_without_dropping_the_connection(
    client, make_user
):
    from play.edge.sockets import BURST, MAX_FRAME_BYTES

    user = await database_sync_to_async(make_user)()
    cookie = await database_sync_to_async(_session_cookie)(client, user)
    communicator = LobbyCommunicator(
        application,
        "/ws/lobby/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost"), (b"cookie", cookie)],
    )
    assert (await communicator.connect())[0]
    await communicator.receive_json_from(timeout=5)  # the table list
    await communicator.send_to(text_data="x" * (MAX_FRAME_BYTES + 1))
    assert (await communicator.receive_json_from(timeout=5))["code"] == "too_large"
    await communicator.send_to(text_data="{not json")
    assert (await communicator.receive_json_from(timeout=5))["code"] == "bad_json"
    await communicator.send_to(text_data='{"type": "dance"}')
    assert (await communicator.receive_json_from(timeout=5))["code"] == "unknown_type"
    for _ in range(BURST + 5):
        await communicator.send_to(text_data='{"type": "dance"}')
    codes = []
    while "rate_limited" not in codes and len(codes) <= BURST + 5:
        codes.append((await communicator.receive_json_from(timeout=5))["code"])
    assert codes[-1] == "rate_limited" and set(codes[:-1]) == {"unknown_type"}
    await communicator.disconnect()


# --- who may sit where: the lobby's join buttons -----------------------------------------


def _take(user, amount: int) -> None:
    chips_adjust(
        wallet=wallet_for(user), amount=-amount, memo="test", by=None, idempotency_key=f"t{user.pk}"
    )


def _lobby_item(table):
    return next(t for t in lobby_listing()["tables"] if t["id"] == table.pk)


def _scenarios(make_user):
    """(code, table, player): each situation seat_take refuses ("" where it seats,
    "seated" where the player sits there already)."""
    rich = make_user()
    poor = make_user()
    _take(poor, 9_950)  # 50 chips left
    full = table_create(variant="banker36", name="Полный", seat_count=2)
    seat_take(table=full, player=make_user())
    seat_take(table=full, player=make_user())
    busy = make_user()
    seat_take(table=table_create(variant="salon", name="Где-то"), player=busy)
    standing = make_user()
    left = table_create(variant="banker36", name="Покинутый")
    seat_take(table=left, player=standing)
    # Stood up during a game: the seat is freed when the game ends.
    Seat.objects.filter(table=left, player=standing).update(leaving=True)
    home = make_user()
    own = table_create(variant="classic", name="Свой")
    seat_take(table=own, player=home)
    return [
        ("below_entry_limit", table_create(variant="banker36", name="Дорогой"), poor),
        ("table_full", full, rich),
        ("seated_elsewhere", table_create(variant="banker36", name="Второй"), busy),
        ("leaving", left, standing),
        ("seated", own, home),
        ("", table_create(variant="salon", name="Открытый"), rich),
        ("", table_create(variant="classic", name="Для бедных"), poor),
    ]


def _seat_take_says(table, player) -> tuple[str, str]:
    """What seat_take answers: its refusal's code and message, "seated" for the seat the
    player has there already, "" for a new seat."""
    before = Seat.objects.filter(table=table, player=player).exists()
    try:
        seat_take(table=table, player=player)
    except SeatError as error:
        return error.code, error.messages[0]
    return ("seated" if before else ""), ""


@pytest.mark.django_db
def test_every_join_verdict_of_the_lobby_is_the_one_seat_take_makes(make_user):
    """lobby.json's `join` (and the page's row, which shows it) for each viewer is
    play.services.seating's verdict: the same refusal, with the same message, as sitting down."""
    for expected, table, player in _scenarios(make_user):
        viewer = Client()
        viewer.force_login(player)
        row = _row(viewer.get(reverse("lobby_state") + "?html=1").json()["tables"], table.pk)
        page = viewer.get(reverse("lobby")).content.decode()
        assert _tr(page, table.pk) == row["html"], table.name
        code, message = _seat_take_says(table, player)
        assert code == expected, table.name
        state = {"": "join", "seated": "seated"}.get(code, "refused")
        assert row["join"] == {
            "state": state,
            "code": "" if state != "refused" else code,
            "message": message,
        }, table.name


@pytest.mark.django_db
def test_a_closed_table_and_a_visitor_are_refused_as_play_seating_says(make_user):
    from lobby import rows

    table = table_create(variant="salon", name="Салон")
    player = make_user()
    row = _lobby_item(table)
    me = rows.sitter_from(player_lobby_state(player))
    visitor = Client().get(reverse("lobby_state")).json()["tables"][0]["join"]
    assert (visitor["state"], visitor["code"]) == ("refused", "not_signed_in")
    assert visitor["message"] == rows.verdict(row, None).message == "Войдите, чтобы сесть за стол."
    table_close(table=table)
    closed = rows.for_viewer(row, me, html=True, closed=True)
    assert closed["join"] == {"state": "refused", "code": "table_closed", "message": "Стол закрыт."}
    assert "data-closed" in closed["html"] and "Закрыт" in closed["html"]
    with pytest.raises(SeatError) as refusal:
        seat_take(table=table, player=player)
    assert (refusal.value.code, refusal.value.messages[0]) == ("table_closed", "Стол закрыт.")


def _tr(html: str, table_id: int) -> str:
    """The page's row of a table, as it stands in the page."""
    start = html.index(f'<tr data-table-id="{table_id}"')
    return html[start : html.index("</tr>", start) + len("</tr>")]


@pytest.mark.django_db
def test_lobby_page_says_why_a_join_button_is_disabled(client, make_user):
    player = make_user()
    _take(player, 9_950)
    table_create(variant="banker36", name="Дорогой", stake=10, entry_limit=100)
    anonymous = client.get(reverse("lobby")).content.decode()
    assert "Войдите, чтобы сесть за стол." in anonymous
    client.force_login(player)
    html = client.get(reverse("lobby")).content.decode()
    assert "Нужно не меньше 100 фишек, у вас 50." in html
    assert 'disabled aria-describedby="why-' in html


@pytest.mark.django_db
def test_lobby_page_offers_a_seat_and_a_way_back(client, make_user):
    player = make_user()
    open_table = table_create(variant="salon", name="Свободный")
    mine = table_create(variant="classic", name="Мой")
    seat_take(table=mine, player=player)
    client.force_login(player)
    html = client.get(reverse("lobby")).content.decode()
    assert f'href="{reverse("table", args=[open_table.pk])}?sit=1"' in html
    assert "Вернуться за стол" in html


@pytest.mark.django_db
def test_lobby_filter_from_the_query_lists_only_that_variant(client, demo_tables):
    html = client.get(reverse("lobby") + "?variant=salon").content.decode()
    assert f'data-table-id="{demo_tables["salon"].pk}" data-variant="salon">' in html
    assert f'data-table-id="{demo_tables["banker36"].pk}"' not in html
    # The variants' counts are of every table, not only the shown ones.
    assert 'data-count="banker36">1</span>' in html and 'data-count="">4</span>' in html


@pytest.mark.django_db
def test_lobby_state_json_for_a_visitor_and_a_player(client, make_user):
    table = table_create(variant="salon", name="Салон")
    answer = client.get(reverse("lobby_state")).json()
    assert answer["me"] is None and [t["id"] for t in answer["tables"]] == [table.pk]
    player = make_user()
    seat_take(table=table, player=player)
    client.force_login(player)
    me = client.get(reverse("lobby_state")).json()["me"]
    assert me == {
        "balance": 10_000,
        "seats": [{"table": table.pk, "name": "Салон", "variant": "salon", "leaving": False}],
        "bot": False,
        "tables": [],
    }


# --- one click to play ----------------------------------------------------------------------


@pytest.mark.django_db
def test_one_click_solo_opens_a_private_table_seats_the_player_and_deals(client, make_user):
    player = make_user()
    client.force_login(player)
    response = client.post(reverse("quick_start", args=["solo"]))
    table = Table.objects.get(variant="solo")
    assert response.status_code == 302 and response["Location"] == reverse("table", args=[table.pk])
    assert table.private and table.created_by == player
    assert list(table.seats.values_list("player", flat=True)) == [player.pk]
    assert table.games.count() == 1  # solo deals as soon as its one player sits
    # A second click goes back to it instead of opening another.
    again = client.post(reverse("quick_start", args=["solo"]))
    assert again["Location"] == reverse("table", args=[table.pk])
    assert Table.objects.filter(variant="solo").count() == 1


@pytest.mark.django_db
def test_one_click_blackjack_opens_a_training_table_with_two_ai_seats(client, make_user):
    player = make_user()
    client.force_login(player)
    response = client.post(reverse("quick_start", args=["blackjack"]))
    table = Table.objects.get(variant="blackjack")
    assert response["Location"] == reverse("table", args=[table.pk])
    seats = list(Seat.objects.filter(table=table).order_by("number"))
    assert [s.player_id for s in seats] == [player.pk, None, None]
    assert [s.ai_level for s in seats[1:]] == ["medium", "hard"]
    assert table.private and Table.objects.count() == 1


@pytest.mark.django_db
def test_one_click_is_post_only_signed_in_and_csrf_protected(client, make_user):
    url = reverse("quick_start", args=["solo"])
    assert client.post(url).status_code == 302  # to the sign-in page
    assert client.post(url)["Location"].startswith(reverse("login"))
    player = make_user()
    client.force_login(player)
    assert client.get(url).status_code == 405
    assert client.post(reverse("quick_start", args=["salon"])).status_code == 404
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(player)
    assert strict.post(url).status_code == 403
    assert not Table.objects.exists()


# --- «Открыть стол» -------------------------------------------------------------------------


@pytest.mark.django_db
def test_open_table_form_creates_the_table_seats_the_opener_and_goes_there(client, make_user):
    player = make_user()
    client.force_login(player)
    response = client.post(
        reverse("table_new"),
        {
            "variant": "salon",
            "name": "Вечерний салон",
            "seat_count": "4",
            "min_bet": "5",
            "max_bet": "50",
            "entry_limit": "60",
            "stake": "99",  # not a salon field: ignored, not refused
            "sit": "on",
        },
    )
    table = Table.objects.get(name="Вечерний салон")
    assert response.status_code == 302 and response["Location"] == reverse("table", args=[table.pk])
    assert (table.variant, table.seat_count, table.min_bet, table.max_bet) == ("salon", 4, 5, 50)
    assert (table.entry_limit, table.stake, table.private) == (60, None, False)
    assert table.created_by == player and table.seats.get().player == player


@pytest.mark.django_db
def test_open_table_form_fills_defaults_and_may_leave_the_opener_standing(client, make_user):
    player = make_user("vasya")
    client.force_login(player)
    client.post(reverse("table_new"), {"variant": "banker36", "private": "on"})
    table = Table.objects.get()
    assert (table.name, table.stake, table.entry_limit, table.seat_count) == (
        "Стол vasya",
        10,
        100,
        4,
    )
    assert table.private and table.invite_code and not table.seats.exists()


@pytest.mark.django_db
def test_open_table_form_shows_the_models_refusals(client, make_user):
    client.force_login(make_user())
    response = client.post(
        reverse("table_new"),
        {"variant": "salon", "min_bet": "50", "max_bet": "10", "seat_count": "12"},
    )
    assert response.status_code == 400
    assert not Table.objects.exists()
    errors = response.context["form"].errors
    assert "seat_count" in errors
    html = response.content.decode()
    assert '<details id="open-table" open>' in html


@pytest.mark.django_db
def test_open_table_needs_a_signed_in_post(client):
    assert client.post(reverse("table_new"), {"variant": "classic"}).status_code == 302
    assert not Table.objects.exists()


# --- rules -----------------------------------------------------------------------------------

RULE_WORDS = {
    "classic": ("Ход дилера", "The dealer's turn"),
    "salon": ("банкомёт", "ponters"),
    "solo": ("Золотое очко", "golden point"),
    "banker36": ("Пять картинок", "Five pictures"),
    "blackjack": ("Разделить", "Split"),
}


@pytest.mark.django_db
@pytest.mark.parametrize("variant", list(RULE_WORDS))
def test_rules_page_in_russian_and_in_english(client, variant):
    russian, english = RULE_WORDS[variant]
    html = client.get(reverse("rules", args=[variant])).content.decode()
    assert russian in html and '<html lang="ru">' in html
    client.cookies["django_language"] = "en"
    html = client.get(reverse("rules", args=[variant])).content.decode()
    assert english in html and '<html lang="en">' in html


@pytest.mark.django_db
def test_rules_of_an_unknown_variant_are_not_found(client):
    assert client.get("/rules/poker/").status_code == 404
    assert client.get(reverse("rules_index")).status_code == 200


# --- the lobby socket pushes every change ----------------------------------------------------


def _row(tables: list[dict], table_id: int) -> dict | None:
    return next((t for t in tables if t["id"] == table_id), None)


def _id_of(row) -> int | None:
    return row.get("id") if isinstance(row, dict) else None


LOBBY_PUSHES = ("lobby", "table_added", "table_changed", "table_removed", "lobby_counts")


class LobbySocket:
    """A signed-in lobby connection and the newest table list it was sent."""

    def __init__(self, communicator: WebsocketCommunicator) -> None:
        self.comm = communicator
        self.tables: list[dict] = []
        self.pushes = 0
        self.ids_seen: set[int] = set()  # the tables any diff was about

    @classmethod
    async def open(cls, user, language: str = "", query: str = "") -> LobbySocket:
        client = Client()
        cookie = await database_sync_to_async(_session_cookie)(client, user)
        if language:
            cookie += f"; django_language={language}".encode()
        communicator = LobbyCommunicator(
            application,
            "/ws/lobby/" + query,
            headers=[
                (b"origin", b"http://localhost"),
                (b"host", b"localhost"),
                (b"cookie", cookie),
            ],
        )
        assert (await communicator.connect())[0]
        socket = cls(communicator)
        socket.first = await socket.receive()
        return socket

    async def next_about(self, kind: str, table_id: int) -> dict:
        """The next `kind` message about the table, the others applied on the way."""
        for _ in range(50):
            message = await self.receive()
            named = message.get("table")
            if message["type"] == kind and (named == table_id or _id_of(named) == table_id):
                return message
        raise AssertionError(f"no {kind} of table {table_id}")

    async def receive(self) -> dict:
        """The next message; the list and the diffs applied to `tables` as a client does."""
        message = await self.comm.receive_json_from(timeout=5)
        kind = message["type"]
        if kind == "lobby":
            self.tables = message["tables"]
        elif kind in ("table_added", "table_changed"):
            row = message["table"]
            self.ids_seen.add(row["id"])
            self.tables = [t for t in self.tables if t["id"] != row["id"]] + [row]
        elif kind == "table_removed":
            self.ids_seen.add(message["table"])
            self.tables = [t for t in self.tables if t["id"] != message["table"]]
        if kind in LOBBY_PUSHES:
            self.pushes += 1
        return message

    def row(self, table_id: int) -> dict | None:
        return _row(self.tables, table_id)

    async def until(self, predicate, what: str) -> dict | None:
        """Wait (a push may come up to LOBBY_COALESCE_SECONDS late, and several changes
        may come as one) until the newest list satisfies `predicate`."""
        for _ in range(50):
            if predicate(self.tables):
                return None
            try:
                await self.receive()
            except TimeoutError:
                break
        raise AssertionError(f"the lobby never showed: {what}; last list {self.tables}")

    async def send(self, message: dict) -> dict:
        """A lobby message and its answer (not a pushed list)."""
        await self.comm.send_json_to(message)
        while True:
            answer = await self.receive()
            if answer["type"] not in LOBBY_PUSHES:
                return answer


async def _table_socket(table_id: int, user):
    from tests.play.ws_play import Viewer

    client = await Viewer.open(table_id, user)
    await client.recv()  # the snapshot
    return client


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_ws_lobby_pushes_a_table_opened_filled_started_and_closed(make_user):
    from lobby.broadcast import LOBBY_COALESCE_SECONDS

    assert LOBBY_COALESCE_SECONDS < 5  # the waits below
    ann, bob = await database_sync_to_async(lambda: (make_user("ann"), make_user("bob")))()
    opener, watcher = await LobbySocket.open(ann), await LobbySocket.open(bob)
    english = await LobbySocket.open(bob, language="en")
    assert watcher.tables == []

    # Opened: every lobby lists it, labelled in its own language.
    opened = await opener.send(
        {
            "type": "open_table",
            "variant": "banker36",
            "name": "Живой",
            "stake": 10,
            "entry_limit": 100,
        }
    )
    assert opened["type"] == "table_opened"
    tid = opened["table"]
    for socket in (watcher, english, opener):
        await socket.until(lambda ts: _row(ts, tid) is not None, "the new table")
        row = socket.row(tid)
        assert (row["name"], row["seats_taken"], row["playing"]) == ("Живой", 0, False)
    assert watcher.row(tid)["variant_name"] == "Очко с банкиром (36 карт)"
    assert english.row(tid)["variant_name"] == "Banker (36 cards)"

    # Filled: two players sit over their table sockets; not started (nobody is ready).
    players = [await _table_socket(tid, ann), await _table_socket(tid, bob)]
    for n, player in enumerate(players, start=1):
        assert (await player.command("sit"))["type"] == "ack"
        await watcher.until(lambda ts, n=n: _row(ts, tid)["seats_taken"] == n, f"{n} seated")
    assert watcher.row(tid)["seat_count"] == 4 and watcher.row(tid)["playing"] is False

    # Started: both say ready, the game is dealt.
    pushes = watcher.pushes
    for player in players:
        assert (await player.command("ready"))["type"] == "ack"
    await watcher.until(lambda ts: _row(ts, tid)["playing"] is True, "the game in play")
    assert watcher.pushes > pushes and watcher.row(tid)["seats_taken"] == 2

    # Closed by its host: with the bank in play the close waits for it (issue 17, item 5);
    # the table closes when that game ends (here an administrator voids it), and is then
    # gone from every lobby.
    answer = await players[0].command("close")
    assert answer["type"] == "ack" and answer["closing"] is True
    from play.models import Game

    game = await database_sync_to_async(
        lambda: Game.objects.get(table_id=tid, status=Game.Status.PLAYING)
    )()
    await database_sync_to_async(game_void)(game=game)
    for socket in (watcher, english, opener):
        await socket.until(lambda ts: _row(ts, tid) is None, "the table gone")

    # A private table is never listed, not even to its opener: no diff names it, while
    # the public table opened after it arrives.
    private = await opener.send({"type": "open_table", "variant": "salon", "private": True})
    assert private["type"] == "table_opened" and private["invite"]
    public = await opener.send({"type": "open_table", "variant": "salon"})
    await watcher.until(lambda ts: _row(ts, public["table"]) is not None, "the public table")
    assert watcher.row(private["table"]) is None
    assert private["table"] not in watcher.ids_seen | opener.ids_seen
    for socket in (opener, watcher, english):
        await socket.comm.disconnect()
    for player in players:
        await player.close()


def _page_as(user, path: str = "/") -> str:
    client = Client()
    client.force_login(user)
    return client.get(path).content.decode()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_live_row_is_the_row_the_page_renders_for_the_same_viewer(make_user):
    """The socket's rows (first list and changes, `?html=1`) are the page's own `<tr>` for
    the same viewer, with the same verdict: the page and the socket render one template
    from one decision (lobby/rows.py, play.services.seating)."""

    def setup():
        ann, other = make_user("ann"), make_user("other")
        _take(ann, 9_950)  # 50 chips left
        dear = table_create(variant="banker36", name="Дорогой", stake=10, entry_limit=100)
        classic = table_create(variant="classic", name="Классика")
        return ann, other, dear, classic

    ann, other, dear, classic = await database_sync_to_async(setup)()
    socket = await LobbySocket.open(ann, query="?html=1")
    page = await database_sync_to_async(_page_as)(ann)
    for row in socket.first["tables"]:
        assert row["html"] == _tr(page, row["id"]), row["name"]
    assert socket.row(dear.pk)["join"]["code"] == "below_entry_limit"

    # Someone else sits down: the row changes for everyone, and stays ann's.
    await database_sync_to_async(seat_take)(table=dear, player=other)
    changed = (await socket.next_about("table_changed", dear.pk))["table"]
    assert changed["seats_taken"] == 1 and changed["join"]["code"] == "below_entry_limit"
    assert changed["html"] == _tr(await database_sync_to_async(_page_as)(ann), dear.pk)

    # Ann sits down elsewhere (another tab): the socket reads her seats again, so the row
    # of her table says she is there — the page's row again.
    await database_sync_to_async(seat_take)(table=classic, player=ann)
    mine = (await socket.next_about("table_changed", classic.pk))["table"]
    assert mine["join"] == {"state": "seated", "code": "", "message": ""}
    assert mine["html"] == _tr(await database_sync_to_async(_page_as)(ann), classic.pk)
    assert "Вернуться за стол" in mine["html"]

    # Closed: the row as it stands closed comes with the removal.
    await database_sync_to_async(table_close)(table=dear)
    removed = await socket.next_about("table_removed", dear.pk)
    assert "data-closed" in removed["html"] and ">Стол закрыт.<" in removed["html"]
    assert 'class="status status-closed">Закрыт<' in removed["html"]

    # Without `?html=1` a socket gets the verdicts and no markup.
    plain = await LobbySocket.open(ann)
    assert "html" not in plain.first["tables"][0]
    assert plain.row(classic.pk)["join"]["state"] == "seated"
    for each in (socket, plain):
        await each.comm.disconnect()


@pytest.mark.services
@pytest.mark.asyncio
async def test_the_lobby_list_is_built_only_while_someone_is_in_the_lobby(monkeypatch, redis_url):
    import asyncio

    from config.channel_layer import RedisChannelLayer
    from lobby import broadcast
    from play.frames import broadcast as sending

    layer = RedisChannelLayer(hosts=[redis_url], prefix="lobby-test")
    # The lobby asks the layer who is in its group; live play's send queues send the diff.
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: layer)
    monkeypatch.setattr(sending, "get_channel_layer", lambda: layer)
    built: list[int] = []

    def message(changes: dict) -> dict:
        built.append(1)
        return {"type": "lobby.diff", "tables": {}, "added": [], "removed": list(changes)}

    monkeypatch.setattr(broadcast, "_lobby_message", message)
    loop = asyncio.get_running_loop()
    try:
        broadcast._lobby_due[loop] = {7: False}
        await broadcast._lobby_send(loop)
        assert built == []  # nobody to send it to: not built
        listener = await layer.new_channel()
        await layer.group_add(broadcast.LOBBY_GROUP, listener)
        broadcast._lobby_due[loop] = {7: False}
        await broadcast._lobby_send(loop)
        assert built == [1]
        received = await asyncio.wait_for(layer.receive(listener), 2)
        assert received == {"type": "lobby.diff", "tables": {}, "added": [], "removed": [7]}
    finally:
        await layer.flush()
