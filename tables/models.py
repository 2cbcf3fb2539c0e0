from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import (
    MaxValueValidator,
    MinValueValidator,
    ProhibitNullCharactersValidator,
    RegexValidator,
)
from django.db import models
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from accounts.templatetags.numbers import number
from tables.variants import STAKE_FIELDS, Variant, get_variant, variant_choices


class ExactJSONField(models.TextField):  # type: ignore[type-arg]
    """JSON kept as its own text, so a value comes back exactly as it was stored.

    The rules engine's state must serialise to JSON and back exactly (key order included:
    a variant may walk a dict in its insertion order), and PostgreSQL's jsonb — what
    Django's JSONField uses there — reorders object keys."""

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        return None if value is None else json.loads(value)

    def to_python(self, value: Any) -> Any:
        return json.loads(value) if isinstance(value, str) else value

    def get_prep_value(self, value: Any) -> Any:
        if value is None:
            return None
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    def value_to_string(self, obj: Any) -> str:
        return str(self.get_prep_value(self.value_from_object(obj)))


class Table(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("Открыт")
        CLOSED = "closed", _("Закрыт")

    variant = models.CharField(_("вариант"), max_length=16, choices=variant_choices)
    name = models.CharField(_("название"), max_length=80)
    status = models.CharField(
        _("статус"), max_length=16, choices=Status.choices, default=Status.OPEN
    )
    # blank=True: left empty, the variant's default is filled in by clean().
    seat_count = models.PositiveSmallIntegerField(
        _("мест за столом"),
        blank=True,
        help_text=_(
            "Классика и салонная игра: 2–10; против банкира: 1; "
            "очко с банкиром: 2–4; блэкджек: 1–7."
        ),
    )
    stake = models.PositiveIntegerField(
        _("ставка стола"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_("Только для «Очко с банкиром»: начальная ставка банка (по умолчанию 10)."),
    )
    min_bet = models.PositiveIntegerField(
        _("минимальная ставка"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_("Только для салонной игры (по умолчанию 10)."),
    )
    max_bet = models.PositiveIntegerField(
        _("максимальная ставка"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_("Только для салонной игры (по умолчанию 100)."),
    )
    entry_limit = models.PositiveIntegerField(
        _("лимит входа"),
        blank=True,
        help_text=_(
            "Сколько фишек игрок должен иметь, чтобы сесть за стол. Не меньше ставки "
            "стола (минимальной ставки). Для вариантов без фишек обычно 0."
        ),
    )
    decision_seconds = models.PositiveSmallIntegerField(
        _("время на решение, с"),
        default=15,
        validators=[MinValueValidator(5), MaxValueValidator(120)],
    )
    reconnect_grace_seconds = models.PositiveSmallIntegerField(
        _("ожидание переподключения, с"),
        default=30,
        validators=[MinValueValidator(0), MaxValueValidator(300)],
    )
    match_length = models.PositiveSmallIntegerField(
        _("раздач в партии"),
        null=True,
        blank=True,
        choices=[(5, "5"), (7, "7"), (10, "10")],
        help_text=_("Только для классики: 5, 7 или 10 (по умолчанию 5)."),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("создал"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(_("создан"), auto_now_add=True)
    closed_at = models.DateTimeField(_("закрыт"), null=True, blank=True)
    # The host closed the table while chips were in play at a chip table: it closes once
    # the deal (salon) or the bank (banker36) in play settles, instead of voiding a deal
    # the host has seen (play.services.closing.table_close_by_host).
    closing = models.BooleanField(_("закроется после раздачи"), default=False, editable=False)
    # A private table is not listed in the lobby; its invite link carries this code.
    private = models.BooleanField(_("частный"), default=False)
    # Opened by the lobby's one-click «Играть» (a solo game, a blackjack training table):
    # each player has at most one per variant, which the button reuses, so it does not
    # count towards TABLES_OPEN_PER_USER (lobby.services.table_open).
    one_click = models.BooleanField(_("в один клик"), default=False, editable=False)
    invite_code = models.CharField(_("код приглашения"), max_length=32, blank=True)
    # Whether bot accounts may sit here: the host's choice; unset, the variant decides
    # (not at chip tables, where a bot's chips would be a person's loss: `allows_bots`).
    bots_allowed = models.BooleanField(
        _("боты за столом"),
        null=True,
        blank=True,
        help_text=_("Пусто — по умолчанию: да, кроме столов на фишки."),
    )
    # The live table's version: every change its players see (a move, a seat, a pause)
    # adds one, and every frame sent to a client carries it (docs/protocol.md).
    version = models.PositiveIntegerField(_("версия"), default=0, editable=False)
    # When the next game (bank, shoe, match) starts by itself; swept like a turn deadline.
    next_game_at = models.DateTimeField(_("следующая игра"), null=True, blank=True, db_index=True)
    # The next game announced and waiting for its players' client seeds
    # (docs/fairness.md): its number, players, server seed (secret), commitment and the
    # client seeds given so far. Dealt when every player has given one, or at `deal_at`.
    pending = ExactJSONField(_("объявленная игра"), null=True, blank=True, editable=False)
    # A tournament's duplicate heat (tournaments/): {"server_seed", "context_table",
    # "rounds"}. Its games are dealt at once from the event's committed server seed in the
    # event's context, with no client seeds, so every entrant's shoe is the same; they
    # stay sealed until the event ends, and no game follows the heat's.
    duplicate = ExactJSONField(_("дубликатный заезд"), null=True, blank=True, editable=False)
    # A table whose players play with stacks its owner gives them (a tournament's
    # sit-and-go), not with their wallets' chips: {"chips": {"<user id>": stack},
    # "banks": n}. Its one game is dealt with each seat's stack as its chips and plays `n`
    # banks; no chip of it moves through the ledger, only players given a stack may sit,
    # and no game follows it. The owner reads the final stacks from the game's result.
    stacks = ExactJSONField(_("турнирные стеки"), null=True, blank=True, editable=False)
    deal_at = models.DateTimeField(_("раздача в"), null=True, blank=True, db_index=True)
    # The page this table belongs to, set by its owner when it creates the table (a
    # tournament's event page for its heat or sit-and-go tables), so that the table page
    # leads back there — on a phone, where the site's menu hides the way — without live
    # play knowing its owner. A local path and the words of its link (the event's name);
    # both empty for a table of its own (the lobby's).
    parent_path = models.CharField(
        _("страница владельца"),
        max_length=200,
        blank=True,
        default="",
        editable=False,
        validators=[
            RegexValidator(
                r"^/(?![/\\])\S*$",
                _("Адрес страницы — путь на этом сайте, начиная с «/»."),
            )
        ],
    )
    parent_label = models.CharField(
        _("название страницы владельца"), max_length=80, blank=True, default="", editable=False
    )

    class Meta:
        verbose_name = _("стол")
        verbose_name_plural = _("столы")
        ordering = ["variant", "name", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(seat_count__gte=1) & models.Q(seat_count__lte=10),
                name="table_seat_count_1_to_10",
            ),
            models.CheckConstraint(
                condition=models.Q(min_bet__isnull=True)
                | models.Q(max_bet__isnull=True)
                | models.Q(max_bet__gte=models.F("min_bet")),
                name="table_max_bet_not_below_min_bet",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.variant_spec.name})"

    @property
    def variant_spec(self) -> Variant:
        return get_variant(self.variant)

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    @property
    def one_game(self) -> bool:
        """A tournament's table (a duplicate heat, or stacks for a sit-and-go): its owner
        deals its one game, and no game follows it. It has no host, and nobody is invited
        to it or starts, readies or adds an AI seat there."""
        return self.duplicate is not None or self.stacks is not None

    def stack_of(self, user_id: int | None) -> int | None:
        """A stacks table's stack for the player (None: not given one, or no such table)."""
        if self.stacks is None or user_id is None:
            return None
        stack: int | None = self.stacks["chips"].get(str(user_id))
        return stack

    @property
    def allows_bots(self) -> bool:
        if self.bots_allowed is not None:
            return self.bots_allowed
        return not self.variant_spec.stakes_chips

    def stakes_label(self) -> str:
        """How the table is played for, in one short phrase."""
        spec = self.variant_spec
        if self.stake is not None and "stake" in spec.stake_defaults:
            return gettext("ставка %(stake)s") % {"stake": number(self.stake)}
        if "min_bet" in spec.stake_defaults:
            return gettext("ставки %(min)s–%(max)s") % {
                "min": number(self.min_bet),
                "max": number(self.max_bet),
            }
        if spec.currency == "points":
            n = self.match_length
            return ngettext(
                "на очки, партия из %(n)d раздачи", "на очки, партия из %(n)d раздач", n or 0
            ) % {"n": n}
        if spec.currency == "coins":
            return gettext("на монеты игры, не фишки")
        return gettext("учебные единицы, не фишки")

    def apply_variant_defaults(self) -> None:
        """Fill the fields the variant needs and the admin left empty."""
        spec = self.variant_spec
        if self.seat_count is None:
            self.seat_count = spec.default_seats
        for name, default in spec.stake_defaults.items():
            if getattr(self, name) is None:
                setattr(self, name, default)
        if self.entry_limit is None:
            self.entry_limit = spec.default_entry_limit
        if spec.match_lengths and self.match_length is None:
            self.match_length = spec.default_match_length

    def clean(self) -> None:
        super().clean()
        # A form's CharField refuses a NUL; a model field does not, and PostgreSQL's
        # driver then fails on the string (a lobby socket's open_table died of it). Here
        # rather than in the field's validators: the same check, without a migration.
        try:
            ProhibitNullCharactersValidator()(self.name)
        except ValidationError as error:
            raise ValidationError({"name": error.messages}) from None
        if self.variant not in dict(variant_choices()):
            return  # the field's own choices validation reports it
        spec = self.variant_spec
        self.apply_variant_defaults()
        errors: dict[str, list[Any]] = {}

        def refuse(field: str, message: Any) -> None:
            errors.setdefault(field, []).append(message)

        # A tournament's heat table seats its one entrant, in classic too.
        min_seats = 1 if self.duplicate is not None else spec.min_seats
        if not min_seats <= self.seat_count <= spec.max_seats:
            if spec.min_seats == spec.max_seats:
                msg = _("В варианте «%(variant)s» за столом ровно %(n)d мест(о).") % {
                    "variant": spec.name,
                    "n": spec.min_seats,
                }
            else:
                msg = _("В варианте «%(variant)s» за столом от %(min)d до %(max)d мест.") % {
                    "variant": spec.name,
                    "min": spec.min_seats,
                    "max": spec.max_seats,
                }
            refuse("seat_count", msg)

        for name in STAKE_FIELDS:
            if name not in spec.stake_defaults and getattr(self, name) is not None:
                refuse(
                    name,
                    _("В варианте «%(variant)s» это поле не используется: оставьте его пустым.")
                    % {"variant": spec.name},
                )

        if spec.match_lengths:
            if self.match_length not in spec.match_lengths:
                refuse("match_length", _("Партия бывает из 5, 7 или 10 раздач."))
        elif self.match_length is not None:
            refuse(
                "match_length",
                _("Длина партии задаётся только в классике: оставьте поле пустым."),
            )

        if (
            self.min_bet is not None
            and self.max_bet is not None
            and self.max_bet < self.min_bet
            and "min_bet" in spec.stake_defaults
        ):
            refuse("max_bet", _("Максимальная ставка не может быть меньше минимальной."))

        floor_field = spec.entry_limit_floor_field
        if floor_field is not None:
            floor = getattr(self, floor_field)
            if floor is not None and self.entry_limit < floor:
                refuse(
                    "entry_limit",
                    _(
                        "Лимит входа (%(limit)d) не может быть меньше, чем %(what)s "
                        "(%(floor)d): игрок должен хотя бы раз сделать ставку."
                    )
                    % {
                        "limit": self.entry_limit,
                        "what": self._meta.get_field(floor_field).verbose_name,
                        "floor": floor,
                    },
                )

        if bool(self.parent_path) != bool(self.parent_label):
            # A link needs both: where it leads and what it says.
            refuse(
                "parent_path" if not self.parent_path else "parent_label",
                _("Страница владельца задаётся вместе: адрес и название."),
            )

        if self.pk is not None:
            highest = self.seats.aggregate(models.Max("number"))["number__max"]
            if highest is not None and self.seat_count < highest:
                refuse(
                    "seat_count",
                    _("Место №%(n)d занято: нельзя сделать стол меньше.") % {"n": highest},
                )

        if errors:
            raise ValidationError(errors)

    def engine_options(self) -> dict[str, int]:
        """The table's options in the form the rules engine's hand records use."""
        spec = self.variant_spec
        options = {name: getattr(self, name) for name in spec.stake_defaults}
        if spec.entry_limit_in_rules:
            options["entry_limit"] = self.entry_limit
        if spec.match_lengths:
            options["rounds"] = self.match_length
        options.update(spec.fixed_options)
        return options


# Seat ids the rules engine gives its own roles; a player of that name gets another id.
RESERVED_SEAT_IDS = frozenset({"dealer", "banker", "bank"})


class Seat(models.Model):
    """An occupied seat: the row exists while a player (or an AI) sits there."""

    table = models.ForeignKey(
        Table, verbose_name=_("стол"), on_delete=models.CASCADE, related_name="seats"
    )
    number = models.PositiveSmallIntegerField(_("место №"), validators=[MinValueValidator(1)])
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("игрок"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="seats",
    )
    # An AI seat has no player, only a level (games.ai.LEVELS).
    ai_level = models.CharField(_("уровень ИИ"), max_length=16, blank=True)
    ready = models.BooleanField(_("готов"), default=False)
    # Stood up during a game: the seat's decisions time out at once and the row goes when
    # the game ends (chips in play stay where the rules put them).
    leaving = models.BooleanField(_("уходит"), default=False)
    # Since when the player has had no open connection (None while connected): a player
    # away longer than the reconnect grace is stood up before the next game starts.
    away_since = models.DateTimeField(_("нет на связи с"), null=True, blank=True)
    seated_at = models.DateTimeField(_("сел"), auto_now_add=True)

    class Meta:
        verbose_name = _("место")
        verbose_name_plural = _("места")
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="seat_number_unique"),
            models.UniqueConstraint(fields=["table", "player"], name="seat_one_per_player"),
            models.CheckConstraint(
                condition=(models.Q(player__isnull=False) & models.Q(ai_level=""))
                | (models.Q(player__isnull=True) & ~models.Q(ai_level="")),
                name="seat_player_or_ai",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table.name} #{self.number}: {self.label}"

    @property
    def is_ai(self) -> bool:
        return bool(self.ai_level)

    @property
    def is_bot(self) -> bool:
        """A bot account's seat (not an AI seat: a bot is an account of its own)."""
        return self.player_id is not None and self.player.bot_owner_id is not None

    @property
    def seat_id(self) -> str:
        """The id this seat plays under in the rules engine and its hand records."""
        if self.player_id is None:
            return f"ai:{self.number}"
        return seat_id_for(self.player)

    @property
    def label(self) -> str:
        if self.player_id is None:
            return _("ИИ %(number)d (%(level)s)") % {"number": self.number, "level": self.ai_level}
        return str(self.player.username)


def seat_id_for(user: Any) -> str:
    """A player's seat id: the user name (which cannot hold ':'), or ``user:<pk>`` where
    the name is one the engine keeps for its own roles."""
    name = str(user.username)
    return f"user:{user.pk}" if name.lower() in RESERVED_SEAT_IDS else name
