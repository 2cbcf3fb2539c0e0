"""Games in play and what keeps them live: one engine game per row (its state, its
record's seed and actions, its clock), the transitions it went through, the command ids
a client's resend is answered from, and who is connected to a table.

These rows were made by the `tables` app before live play had a room of its own; their
database tables keep the names they had (`db_table`: play/migrations/0001 moved only
Django's idea of them, not the data)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from tables.models import ExactJSONField, Table
from tables.variants import variant_choices


class Game(models.Model):
    """One game of the rules engine at a table — a `classic` match, a `salon` or
    `blackjack` shoe, a `banker36` bank, a `solo` game — and so one hand record with one
    seed. Written only by live play (play/services/lifecycle.py); the full state never
    leaves the server."""

    class Status(models.TextChoices):
        PLAYING = "playing", _("идёт")
        FINISHED = "finished", _("сыграна")
        VOIDED = "voided", _("отменена")

    table = models.ForeignKey(
        Table, verbose_name=_("стол"), on_delete=models.PROTECT, related_name="games"
    )
    number = models.PositiveIntegerField(_("номер игры"))
    variant = models.CharField(_("вариант"), max_length=16, choices=variant_choices)
    status = models.CharField(
        _("статус"), max_length=16, choices=Status.choices, default=Status.PLAYING
    )
    state = ExactJSONField(_("состояние"))
    # Who played: [{"id", "user": pk | None, "ai": level | "", "number", "chips"?}]
    players = models.JSONField(_("игроки"))
    # The options the engine was given (the record states them as a replay reads them:
    # play.services.records.game_record), and the first banker.
    options = models.JSONField(_("параметры"))
    first_banker = models.CharField(_("первый банкир"), max_length=160, blank=True)
    # The record's seed, derived from the server seed and the client seeds.
    seed = models.CharField(_("ключ"), max_length=128)
    server_seed = models.CharField(_("ключ сервера"), max_length=64, blank=True)
    client_seeds = models.JSONField(_("ключи игроков"), default=list)
    commitment = models.CharField(_("отпечаток"), max_length=64)
    # The fairness context's `table` when it is not this game's table: a tournament's
    # duplicate shoe, dealt alike at every entrant's table (docs/fairness.md).
    context_table = models.IntegerField(_("стол в контексте"), null=True, blank=True)
    # A duplicate shoe's seed stays secret after this game is over, until its tournament
    # ends: the same cards are still being dealt to other entrants.
    sealed = models.BooleanField(_("ключ запечатан"), default=False)
    actions = models.JSONField(_("ходы"), default=list)
    # Net chips each seat has in this game's escrow account (chip variants only).
    escrowed = models.JSONField(_("в депозите"), default=dict)
    # Session units carried from earlier shoes of the same blackjack session.
    carry = models.JSONField(_("перенос"), default=dict)
    deadline = models.DateTimeField(_("срок решения"), null=True, blank=True, db_index=True)
    # When the running decision's clock starts, if later than the move that began it: in
    # `classic`, the pause after a settled round (play.services.lifecycle); the deadline is a
    # decision's time after it. Null: the clock started with the move.
    clock_starts_at = models.DateTimeField(_("отсчёт начинается"), null=True, blank=True)
    deadline_seat = models.CharField(_("чьё решение"), max_length=160, blank=True)
    paused_remaining_ms = models.PositiveIntegerField(_("осталось на паузе, мс"), null=True)
    # The engine version whose decision already got a reconnect grace (one per decision).
    grace_version = models.PositiveIntegerField(null=True, blank=True)
    result = models.JSONField(_("результат"), null=True, blank=True)
    # How many of `actions` the decision review has looked at (insights.reviews).
    reviewed_actions = models.PositiveIntegerField(_("ходов разобрано"), default=0)
    started_at = models.DateTimeField(_("начата"), auto_now_add=True)
    finished_at = models.DateTimeField(_("окончена"), null=True, blank=True)

    class Meta:
        db_table = "tables_game"
        verbose_name = _("игра")
        verbose_name_plural = _("игры")
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="game_number_per_table"),
            models.UniqueConstraint(
                fields=["table"],
                condition=models.Q(status="playing"),
                name="game_one_playing_per_table",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table.name} · {_('игра')} {self.number}"

    @property
    def is_playing(self) -> bool:
        return self.status == self.Status.PLAYING

    @property
    def seed_revealed(self) -> bool:
        """Whether the game's seed and server seed may be shown: it is over, and not a
        duplicate shoe whose tournament is still dealing it."""
        return not self.is_playing and not self.sealed

    @property
    def context(self) -> dict[str, Any]:
        """What the game's commitment binds (docs/fairness.md)."""
        table = self.table_id if self.context_table is None else self.context_table
        return {"table": table, "shoe": self.number, "variant": self.variant}

    @property
    def paused(self) -> bool:
        return self.paused_remaining_ms is not None

    @property
    def seat_ids(self) -> list[str]:
        return [p["id"] for p in self.players]

    def player_entry(self, seat_id: str) -> dict[str, Any] | None:
        return next((p for p in self.players if p["id"] == seat_id), None)


class GameEvent(models.Model):
    """One transition of a game: what was applied and every event it produced (unfiltered:
    read only through games.engine.events_for)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events")
    version = models.PositiveIntegerField(_("версия движка"))
    action = models.JSONField(null=True, blank=True)
    events = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "tables_gameevent"
        verbose_name = _("событие игры")
        verbose_name_plural = _("события игры")
        ordering = ["game", "version"]
        constraints = [
            models.UniqueConstraint(fields=["game", "version"], name="game_event_version_unique")
        ]

    def __str__(self) -> str:
        return f"{self.game} v{self.version}"


class ClientCommand(models.Model):
    """A client's message id and the outcome it got, so a resend is answered, not redone."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="+")
    client_id = models.CharField(max_length=64)
    outcome = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        db_table = "tables_clientcommand"
        constraints = [
            models.UniqueConstraint(
                fields=["user", "table", "client_id"], name="client_command_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user_id}@{self.table_id}: {self.client_id}"


class Presence(models.Model):
    """An open WebSocket of a signed-in user at a table (one row per tab)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="presences")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    channel_name = models.CharField(max_length=200, unique=True)
    seen_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "tables_presence"

    def __str__(self) -> str:
        return f"{self.user_id}@{self.table_id}"
