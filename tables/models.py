from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from tables.variants import STAKE_FIELDS, Variant, get_variant, variant_choices


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
        if self.variant not in dict(variant_choices()):
            return  # the field's own choices validation reports it
        spec = self.variant_spec
        self.apply_variant_defaults()
        errors: dict[str, list[Any]] = {}

        def refuse(field: str, message: Any) -> None:
            errors.setdefault(field, []).append(message)

        if not spec.min_seats <= self.seat_count <= spec.max_seats:
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
        if spec.stakes_chips:
            options["entry_limit"] = self.entry_limit
        if spec.match_lengths:
            options["rounds"] = self.match_length
        options.update(spec.fixed_options)
        return options


class Seat(models.Model):
    """An occupied seat: the row exists while a player sits there."""

    table = models.ForeignKey(
        Table, verbose_name=_("стол"), on_delete=models.CASCADE, related_name="seats"
    )
    number = models.PositiveSmallIntegerField(_("место №"), validators=[MinValueValidator(1)])
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("игрок"),
        on_delete=models.CASCADE,
        related_name="seats",
    )
    seated_at = models.DateTimeField(_("сел"), auto_now_add=True)

    class Meta:
        verbose_name = _("место")
        verbose_name_plural = _("места")
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="seat_number_unique"),
            models.UniqueConstraint(fields=["table", "player"], name="seat_one_per_player"),
        ]

    def __str__(self) -> str:
        return f"{self.table.name} #{self.number}: {self.player}"
