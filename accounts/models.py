from __future__ import annotations

from typing import Any, NoReturn

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    """The platform's user, custom from day one so that fields can be added later."""

    email = models.EmailField(_("e-mail"), blank=True)
    # A bot account (a program that plays through the protocol with its owner's tokens):
    # owned by the person who registered it, marked «бот» wherever it shows, rated apart,
    # given no chips of the house's (bots/services.py, docs/decisions.md).
    bot_owner = models.ForeignKey(
        "self",
        verbose_name=_("владелец бота"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="bots",
    )

    # Held off the leaderboards while a fair-play case about the player is open in the
    # moderation queue (moderation.services: set when the case opens, cleared when no open
    # case is left); the only automatic consequence of a case (docs/fair-play.md).
    leaderboard_hold = models.BooleanField(
        _("скрыт из рейтингов"),
        default=False,
        help_text=_("Пока открыто дело о честной игре, игрока нет в таблицах лидеров."),
    )

    @property
    def is_bot(self) -> bool:
        return self.bot_owner_id is not None

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        constraints = [
            # Password reset goes by e-mail, so one address means one person.
            models.UniqueConstraint(
                Lower("email"),
                condition=~models.Q(email=""),
                name="user_email_unique_ci",
            ),
        ]


class Account(models.Model):
    """A chip account. Its balance changes only through accounts.services.chips_transfer.

    - player: a user's wallet; never below zero (the database refuses it).
    - escrow: holds stakes in play for a table or round; never below zero.
    - system: the source of grants (welcome chips, admin grants). It is the only account
      allowed below zero: its balance is minus the chips granted so far, so the sum over
      all accounts is always 0 and the sum of wallets plus escrow changes only by grants.
    """

    class Kind(models.TextChoices):
        PLAYER = "player", _("кошелёк игрока")
        ESCROW = "escrow", _("депозит ставок")
        SYSTEM = "system", _("системный")

    kind = models.CharField(_("вид"), max_length=8, choices=Kind.choices)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("владелец"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="chip_accounts",
    )
    # Escrow and system accounts are found by code, e.g. "grants", "escrow:round:42".
    code = models.CharField(_("код"), max_length=64, unique=True, null=True, blank=True)
    balance = models.BigIntegerField(_("баланс"), default=0, editable=False)
    created_at = models.DateTimeField(_("создан"), auto_now_add=True)

    class Meta:
        verbose_name = _("счёт фишек")
        verbose_name_plural = _("счета фишек")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(balance__gte=0) | models.Q(kind="system"),
                name="account_balance_non_negative",
                violation_error_message=_("Баланс не может быть отрицательным."),
            ),
            models.UniqueConstraint(
                fields=["owner"],
                condition=models.Q(kind="player"),
                name="account_one_wallet_per_player",
            ),
            models.CheckConstraint(
                condition=(models.Q(kind="player") & models.Q(owner__isnull=False))
                | (~models.Q(kind="player") & models.Q(code__isnull=False)),
                name="account_wallet_has_owner_others_have_code",
            ),
        ]

    def __str__(self) -> str:
        if self.kind == self.Kind.PLAYER:
            return _("Кошелёк %(user)s") % {"user": self.owner}
        return str(self.code)


class LedgerEntryQuerySet(models.QuerySet["LedgerEntry"]):
    def update(self, **kwargs: Any) -> NoReturn:
        raise TypeError("The chip ledger is append-only: entries cannot be updated.")

    def delete(self) -> NoReturn:
        raise TypeError("The chip ledger is append-only: entries cannot be deleted.")

    def for_account(self, account: Account) -> LedgerEntryQuerySet:
        return self.filter(models.Q(source=account) | models.Q(destination=account))


class LedgerEntry(models.Model):
    """One chip movement. Written only by accounts.services.chips_transfer; never changed."""

    class Reason(models.TextChoices):
        WELCOME_GRANT = "welcome_grant", _("Приветственные фишки")
        ADMIN_GRANT = "admin_grant", _("Начисление администратором")
        ADMIN_TAKE = "admin_take", _("Списание администратором")
        STAKE = "stake", _("Ставка")
        PAYOUT = "payout", _("Выигрыш")
        REFUND = "refund", _("Возврат ставки")
        DAILY_BONUS = "daily_bonus", _("Ежедневный бонус")
        TOURNAMENT_BUY_IN = "tournament_buy_in", _("Взнос за турнир")
        TOURNAMENT_REFUND = "tournament_refund", _("Возврат взноса за турнир")
        TOURNAMENT_PRIZE = "tournament_prize", _("Приз турнира")
        FAIRPLAY_REVERSAL = "fairplay_reversal", _("Возврат по решению модератора")

    source = models.ForeignKey(
        Account, verbose_name=_("откуда"), on_delete=models.PROTECT, related_name="+"
    )
    destination = models.ForeignKey(
        Account, verbose_name=_("куда"), on_delete=models.PROTECT, related_name="+"
    )
    amount = models.BigIntegerField(_("сумма"))
    reason = models.CharField(_("причина"), max_length=32, choices=Reason.choices)
    memo = models.CharField(_("комментарий"), max_length=200, blank=True)
    # The game it belongs to as text ("game:<id>"), kept with the `game` link below so a
    # statement line reads on its own; empty for grants.
    round_ref = models.CharField(_("раздача"), max_length=64, blank=True, db_index=True)
    # The live game (a bank, a shoe) the movement belongs to; empty for grants.
    game = models.ForeignKey(
        "play.Game",
        verbose_name=_("игра"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="ledger_entries",
    )
    idempotency_key = models.CharField(_("ключ идемпотентности"), max_length=128, unique=True)
    source_balance_after = models.BigIntegerField(_("остаток источника"))
    destination_balance_after = models.BigIntegerField(_("остаток получателя"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("кем"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    created_at = models.DateTimeField(_("время"), auto_now_add=True, db_index=True)

    objects = LedgerEntryQuerySet.as_manager()

    class Meta:
        verbose_name = _("запись журнала фишек")
        verbose_name_plural = _("журнал фишек")
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(amount__gt=0), name="ledger_amount_positive"),
            models.CheckConstraint(
                condition=~models.Q(source=models.F("destination")),
                name="ledger_source_is_not_destination",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.source} → {self.destination}: {self.amount} ({self.reason})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise TypeError("The chip ledger is append-only: entries cannot be changed.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("The chip ledger is append-only: entries cannot be deleted.")


class DailyBonusClaim(models.Model):
    """One daily bonus, beside its ledger entry: the player's calendar day and the time
    zone it was counted in. The zone is kept because the next claim must fall on a new day
    in it as well as in the zone posted then — otherwise hopping from zone to zone would
    find a fresh midnight somewhere every hour (docs/decisions.md, «Ежедневный бонус»)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("игрок"),
        on_delete=models.PROTECT,
        related_name="daily_bonus_claims",
    )
    entry = models.OneToOneField(
        LedgerEntry, verbose_name=_("запись журнала"), on_delete=models.PROTECT, related_name="+"
    )
    day = models.DateField(_("день игрока"))
    time_zone = models.CharField(_("часовой пояс"), max_length=64)
    claimed_at = models.DateTimeField(_("время"), db_index=True)

    class Meta:
        verbose_name = _("ежедневный бонус")
        verbose_name_plural = _("ежедневные бонусы")
        ordering = ["-claimed_at"]
        constraints = [
            # The ledger's key (bonus:<user>:<day>) says the same; this says it in the
            # bonus's own terms.
            models.UniqueConstraint(fields=["user", "day"], name="daily_bonus_once_per_day"),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.day} ({self.time_zone})"


class DailyBonusSwitch(models.Model):
    """The admin's switch for the daily bonus: one row (pk 1), edited in Django admin, so
    that turning the bonus off needs neither a deploy nor a restart. No row = on."""

    SINGLETON_PK = 1

    enabled = models.BooleanField(_("бонус включён"), default=True)
    note = models.CharField(_("почему"), max_length=200, blank=True)
    changed_at = models.DateTimeField(_("изменён"), auto_now=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("кем"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        editable=False,
    )

    class Meta:
        verbose_name = _("переключатель ежедневного бонуса")
        verbose_name_plural = _("переключатель ежедневного бонуса")

    def __str__(self) -> str:
        if self.enabled:
            return str(_("Ежедневный бонус: включён"))
        return str(_("Ежедневный бонус: выключен"))

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.pk = self.SINGLETON_PK
        super().save(*args, **kwargs)


class AccessToken(models.Model):
    """A personal access token: a program signs in with it (`Authorization: Bearer`) on
    the sockets and the JSON endpoints (docs/protocol.md §2.2). Only the SHA-256 of its
    secret is kept; the secret itself is shown once, when it is made (accounts.tokens)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="access_tokens"
    )
    name = models.CharField(_("название"), max_length=60)
    # Space-separated, from accounts.tokens.SCOPES.
    scopes = models.CharField(_("права"), max_length=60)
    digest = models.CharField(max_length=64, unique=True)
    # The secret's first characters, so that its owner can tell tokens apart.
    prefix = models.CharField(_("начало"), max_length=12)
    created_at = models.DateTimeField(_("создан"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("последнее использование"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("отозван"), null=True, blank=True)

    class Meta:
        verbose_name = _("токен доступа")
        verbose_name_plural = _("токены доступа")
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def scope_list(self) -> list[str]:
        return self.scopes.split()


class AccessTokenEvent(models.Model):
    """The audit of tokens, as django-axes keeps one of sign-ins: each token made and
    revoked, and each refused `Authorization: Bearer` (with the client's address)."""

    class Kind(models.TextChoices):
        CREATED = "created", _("создан")
        REVOKED = "revoked", _("отозван")
        REFUSED = "refused", _("отказ")

    kind = models.CharField(max_length=10, choices=Kind.choices)
    token = models.ForeignKey(
        AccessToken, null=True, blank=True, on_delete=models.SET_NULL, related_name="events"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    address = models.CharField(max_length=64, blank=True)
    # Why a bearer was refused (bad_token, token_in_url, …); who revoked a token.
    detail = models.CharField(max_length=100, blank=True)
    at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("событие токена")
        verbose_name_plural = _("события токенов")
        ordering = ("-at",)

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.at:%Y-%m-%d %H:%M} {self.address}"
