"""A tournament and its entries (docs/tournaments.md).

A tournament's chips: every buy-in moves from the entrant's wallet into the event's escrow
account (`escrow:tournament:<id>`) through the one ledger; prizes leave it by place, a
withdrawal or a cancellation refunds from it. A freeroll's prizes are granted by the house
when the event ends. Tournament stacks are counters of the event, never wallet chips.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from tables.variants import VARIANTS, variant_choices

# The variants a duplicate heat is played in (tournaments/heats.py): against the house,
# with a fixed number of rounds in one game.
HEAT_VARIANTS = ("classic", "solo", "blackjack")

# The variants a sit-and-go is played in (the player-bank ones) and their seats.
SIT_AND_GO_SEATS: dict[str, tuple[int, int]] = {"banker36": (2, 4), "salon": (2, 10)}
SIT_AND_GO_DEFAULT_STAKE = 10
MULTI_TABLE_MAX_ROUNDS = 20
# The seating's swaps grow with the cube of the field (tournaments/multitable.py): 64
# players (16 tables) are seated in well under a second.
MULTI_TABLE_MOST = 64


class Tournament(models.Model):
    class Format(models.TextChoices):
        DUPLICATE = "duplicate", _("дубликатный заезд")
        SIT_AND_GO = "sit_and_go", _("сит-энд-гоу")
        MULTI_TABLE = "multi_table", _("многостоловый")

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("запланирован")
        REGISTERING = "registering", _("регистрация")
        RUNNING = "running", _("идёт")
        FINISHED = "finished", _("завершён")
        CANCELLED = "cancelled", _("отменён")

    class Repeat(models.TextChoices):
        ONCE = "once", _("один раз")
        HOURLY = "hourly", _("каждый час")
        DAILY = "daily", _("каждый день")
        WEEKLY = "weekly", _("каждую неделю")

    name = models.CharField(_("название"), max_length=80)
    variant = models.CharField(_("вариант"), max_length=16, choices=variant_choices())
    format = models.CharField(_("формат"), max_length=16, choices=Format.choices)
    status = models.CharField(
        _("состояние"), max_length=12, choices=Status.choices, default=Status.SCHEDULED
    )
    repeat = models.CharField(
        _("повтор"),
        max_length=8,
        choices=Repeat.choices,
        default=Repeat.ONCE,
        help_text=_("Когда событие закончится, следующее такое же будет создано само."),
    )
    registration_opens_at = models.DateTimeField(_("регистрация открывается"))
    starts_at = models.DateTimeField(_("начало"))
    ends_at = models.DateTimeField(
        _("конец окна"), help_text=_("К этому времени все партии турнира должны закончиться.")
    )
    late_registration_minutes = models.PositiveIntegerField(
        _("поздняя регистрация, минут"),
        default=0,
        help_text=_(
            "Сколько минут после начала ещё можно зарегистрироваться (где формат позволяет)."
        ),
    )
    buy_in = models.PositiveIntegerField(
        _("взнос"), default=0, help_text=_("Фишки с кошелька в призовой фонд; 0 — фриролл.")
    )
    freeroll_pool = models.PositiveIntegerField(
        _("призовой фонд фриролла"),
        default=0,
        help_text=_("Фишки, которые дом раздаёт призёрам фриролла."),
    )

    class PrizeTable(models.TextChoices):
        BY_FIELD = "by_field", _("по числу участников (100 · 50/30/20 · 40/25/15/10/10 · …)")
        WINNER = "winner", _("победитель забирает всё")
        TOP3 = "top3", _("трое призёров: 50/30/20")
        TOP5 = "top5", _("пятеро призёров: 40/25/15/10/10")

    prize_table = models.CharField(
        _("таблица призов"),
        max_length=8,
        choices=PrizeTable.choices,
        default=PrizeTable.BY_FIELD,
        help_text=_("Как делится призовой фонд между местами (docs/tournaments.md)."),
    )
    max_entrants = models.PositiveIntegerField(
        _("мест"), validators=[MinValueValidator(2), MaxValueValidator(1000)], default=16
    )
    min_entrants = models.PositiveIntegerField(
        _("минимум участников"),
        validators=[MinValueValidator(1)],
        default=2,
        help_text=_("Если к началу участников меньше, турнир отменяется и взносы возвращаются."),
    )
    rounds = models.PositiveIntegerField(
        _("раундов"),
        validators=[MinValueValidator(1), MaxValueValidator(200)],
        default=10,
        help_text=_(
            "Дубликатный заезд: раундов в игре. Сит-энд-гоу: сколько раз банк будет у "
            "каждого игрока."
        ),
    )
    starting_stack = models.PositiveIntegerField(
        _("турнирный стек"), validators=[MinValueValidator(1)], default=1000
    )
    # A sit-and-go's table: banker36's table stake, salon's minimum bet (its maximum is ten
    # times that); empty, the variant's own (10).
    stake = models.PositiveIntegerField(
        _("ставка стола"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_(
            "Сит-энд-гоу: ставка стола «Очко с банкиром» или минимальная ставка салонной "
            "игры (максимальная — вдесятеро больше). Пусто — 10."
        ),
    )
    min_account_age_days = models.PositiveIntegerField(
        _("возраст аккаунта, дней"), default=0, help_text=_("Не моложе стольких дней.")
    )
    min_games_played = models.PositiveIntegerField(
        _("сыграно игр"), default=0, help_text=_("Не меньше стольких сыгранных игр.")
    )
    # Multi-table: the round in play (0 before the start).
    round = models.PositiveSmallIntegerField(_("раунд"), default=0, editable=False)
    # The duplicate shoe's server seed: drawn when registration opens, its commitment
    # published then, the seed itself only once the tournament is over (docs/fairness.md).
    server_seed = models.CharField(max_length=64, blank=True, editable=False)
    commitment = models.CharField(_("отпечаток"), max_length=64, blank=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("создал"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(_("создан"), auto_now_add=True)
    # The event this one repeats (the next is made from it when it ends).
    previous = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="next_event"
    )

    class Meta:
        verbose_name = _("турнир")
        verbose_name_plural = _("турниры")
        ordering = ["starts_at", "id"]
        indexes = [models.Index(fields=["status", "starts_at"])]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(registration_opens_at__lte=models.F("starts_at"))
                & models.Q(starts_at__lt=models.F("ends_at")),
                name="tournament_times_in_order",
            ),
            models.CheckConstraint(
                condition=models.Q(min_entrants__lte=models.F("max_entrants")),
                name="tournament_min_entrants_within_cap",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        if self.starts_at and self.ends_at and self.registration_closes_at > self.ends_at:
            raise ValidationError(
                {
                    "late_registration_minutes": _(
                        "Поздняя регистрация должна закончиться до конца турнира."
                    )
                }
            )
        if self.format == self.Format.SIT_AND_GO:
            self._clean_sit_and_go()
            return
        if self.format == self.Format.MULTI_TABLE:
            self._clean_multi_table()
            return
        # Duplicate heats: the variants against the house (docs/tournaments.md).
        if self.format != self.Format.DUPLICATE or self.variant not in HEAT_VARIANTS:
            raise ValidationError(
                {"format": _("Дубликатные заезды играют в классику, против банкира и в блэкджек.")}
            )
        # A classic heat is one match: its length is one the rules know.
        lengths = VARIANTS[self.variant].match_lengths
        if lengths and self.rounds not in lengths:
            raise ValidationError(
                {
                    "rounds": _("Партия в классике — %(choices)s раздач.")
                    % {"choices": ", ".join(map(str, lengths))}
                }
            )
        if self.stake is not None:
            raise ValidationError(
                {"stake": _("Ставка стола задаётся для сит-энд-гоу и многостолового турнира.")}
            )

    def _clean_sit_and_go(self) -> None:
        """A sit-and-go is one table of the player-bank variants: its seats are the event's
        places, each entrant's stack must let them bet, and nobody registers late."""
        from django.core.exceptions import ValidationError

        seats = SIT_AND_GO_SEATS.get(self.variant)
        if seats is None:
            raise ValidationError(
                {"variant": _("Сит-энд-гоу играют в «Очко с банкиром» и салонную игру.")}
            )
        errors: dict[str, Any] = {}
        low, high = seats
        if self.max_entrants is not None and not low <= self.max_entrants <= high:
            errors["max_entrants"] = _(
                "Мест в сит-энд-гоу столько, сколько за столом: от %(low)d до %(high)d."
            ) % {"low": low, "high": high}
        if self.min_entrants is not None and self.min_entrants < 2:
            errors["min_entrants"] = _("За стол сит-энд-гоу садятся не меньше двух игроков.")
        if self.late_registration_minutes:
            errors["late_registration_minutes"] = _(
                "В сит-энд-гоу поздней регистрации нет: стол собирается до начала."
            )
        stake = self.stake or SIT_AND_GO_DEFAULT_STAKE
        # banker36's bank needs the stake, salon's twice the minimum bet.
        least = stake if self.variant == "banker36" else 2 * stake
        if self.starting_stack is not None and self.starting_stack < least:
            errors["starting_stack"] = _(
                "Турнирный стек должен быть не меньше %(n)d: иначе игрок не сможет держать банк."
            ) % {"n": least}
        if errors:
            raise ValidationError(errors)

    def _clean_multi_table(self) -> None:
        """Multi-table is `banker36` at tables of up to four, in at least two rounds (the
        last the final table), with a stack that can hold the bank; nobody registers late."""
        from django.core.exceptions import ValidationError

        errors: dict[str, Any] = {}
        if self.variant != "banker36":
            errors["variant"] = _("Многостоловый турнир играют в «Очко с банкиром».")
        if self.max_entrants is not None and not 5 <= self.max_entrants <= MULTI_TABLE_MOST:
            errors["max_entrants"] = _(
                "В многостоловом турнире от 5 мест (больше одного стола) до %(n)d."
            ) % {"n": MULTI_TABLE_MOST}
        if self.min_entrants is not None and self.min_entrants < 2:
            errors["min_entrants"] = _("За стол садятся не меньше двух игроков.")
        if self.rounds is not None and not 2 <= self.rounds <= MULTI_TABLE_MAX_ROUNDS:
            errors["rounds"] = _("Раундов от 2 до %(n)d: последний — финальный стол.") % {
                "n": MULTI_TABLE_MAX_ROUNDS
            }
        if self.late_registration_minutes:
            errors["late_registration_minutes"] = _(
                "В многостоловом турнире поздней регистрации нет."
            )
        stake = self.stake or SIT_AND_GO_DEFAULT_STAKE
        if self.starting_stack is not None and self.starting_stack < stake:
            errors["starting_stack"] = _(
                "Турнирный стек должен быть не меньше %(n)d: иначе игрок не сможет держать банк."
            ) % {"n": stake}
        if errors:
            raise ValidationError(errors)

    @property
    def escrow_code(self) -> str:
        return f"escrow:tournament:{self.pk}"

    @property
    def freeroll(self) -> bool:
        return self.buy_in == 0

    @property
    def registration_closes_at(self) -> datetime.datetime:
        return self.starts_at + datetime.timedelta(minutes=self.late_registration_minutes)


class Entry(models.Model):
    class Status(models.TextChoices):
        REGISTERED = "registered", _("зарегистрирован")
        WITHDRAWN = "withdrawn", _("снялся")
        REFUNDED = "refunded", _("взнос возвращён")
        FINISHED = "finished", _("доиграл")

    tournament = models.ForeignKey(
        Tournament, verbose_name=_("турнир"), on_delete=models.CASCADE, related_name="entries"
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("игрок"),
        on_delete=models.PROTECT,
        related_name="tournament_entries",
    )
    status = models.CharField(
        _("состояние"), max_length=12, choices=Status.choices, default=Status.REGISTERED
    )
    # How many times this player has registered for this event (a withdrawal and a
    # second registration make a new buy-in with a key of its own).
    attempt = models.PositiveIntegerField(default=1)
    # The buy-in this registration paid into the escrow: a refund returns it, whatever the
    # event's buy-in says now.
    paid = models.PositiveIntegerField(_("уплачено"), default=0)
    registered_at = models.DateTimeField(_("зарегистрирован"), auto_now_add=True)
    stack = models.BigIntegerField(_("стек"), null=True, blank=True)
    place = models.PositiveIntegerField(_("место"), null=True, blank=True)
    # The entrant's table — a duplicate heat's own, a sit-and-go's shared — and whether
    # the entrant's game there is over (its result is the entry's stack).
    # (A sit-and-go seats every entrant at the one table.)
    table = models.ForeignKey(
        "tables.Table",
        verbose_name=_("стол"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="tournament_entries",
    )
    heat_over = models.BooleanField(_("заезд сыгран"), default=False)
    # The entrant made no decision of their own in their heat: the clock played it all.
    # Repeated no-shows keep a player from registering for a while (docs/tournaments.md).
    no_show = models.BooleanField(_("не пришёл"), default=False)
    heat_ended_at = models.DateTimeField(_("заезд окончен"), null=True, blank=True)
    prize = models.PositiveIntegerField(_("приз"), default=0)
    # Multi-table: the placement points of the rounds played so far.
    points = models.PositiveIntegerField(_("очки"), default=0)

    class Meta:
        verbose_name = _("участие")
        verbose_name_plural = _("участия")
        ordering = ["tournament", "place", "registered_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player"], name="entry_one_per_player_and_tournament"
            )
        ]

    def __str__(self) -> str:
        return f"{self.player} @ {self.tournament}"

    @property
    def active(self) -> bool:
        return self.status in (self.Status.REGISTERED, self.Status.FINISHED)


class RoundSeat(models.Model):
    """Multi-table: an entrant's table in one round, and what the round gave them there
    (docs/tournaments.md, «Multi-table»)."""

    entry = models.ForeignKey(
        Entry, verbose_name=_("участие"), on_delete=models.CASCADE, related_name="round_seats"
    )
    round = models.PositiveSmallIntegerField(_("раунд"))
    table = models.ForeignKey(
        "tables.Table", verbose_name=_("стол"), on_delete=models.PROTECT, related_name="+"
    )
    # Set when the table's game is over: the final stack there and its placement points.
    stack = models.BigIntegerField(_("стек"), null=True, blank=True)
    points = models.PositiveSmallIntegerField(_("очки"), null=True, blank=True)

    class Meta:
        verbose_name = _("место в раунде")
        verbose_name_plural = _("места в раундах")
        ordering = ["entry", "round"]
        constraints = [
            models.UniqueConstraint(fields=["entry", "round"], name="round_seat_one_per_round")
        ]

    def __str__(self) -> str:
        return f"{self.entry} · {self.round}"
