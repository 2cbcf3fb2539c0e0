"""Chip wallets and the chip ledger.

`chips_transfer` is the only code that changes a balance. Everything else (the welcome
grant, admin grants, stakes into escrow and payouts out of it) is a call to it.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.hashers import make_password
from django.db import IntegrityError, transaction
from django.db.models import Sum
from django.utils.translation import gettext as _

from accounts import ledger
from accounts.models import Account, LedgerEntry, User

WELCOME_GRANT_CHIPS = 10_000
GRANTS_ACCOUNT_CODE = "grants"


class ChipsError(Exception):
    """A chip movement was refused; the message is fit to show the user."""

    code = "chips_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InsufficientChips(ChipsError):
    code = "insufficient_chips"


class IdempotencyConflict(ChipsError):
    """The idempotency key was already used for a different movement."""

    code = "idempotency_conflict"


# --- accounts --------------------------------------------------------------------------


def wallet_for(user: Any) -> Account:
    """The user's wallet (created, empty, on first use)."""
    wallet, _created = Account.objects.get_or_create(owner=user, kind=Account.Kind.PLAYER)
    return wallet


def grants_account() -> Account:
    """The system account that every grant comes from (its balance goes negative)."""
    account, _created = Account.objects.get_or_create(
        code=GRANTS_ACCOUNT_CODE, defaults={"kind": Account.Kind.SYSTEM}
    )
    return account


def escrow_account(code: str) -> Account:
    """An escrow account for stakes in play, e.g. escrow_account("escrow:round:42")."""
    return _escrow_made(code, Account.objects.filter(code=code).first())


def escrow_and_wallet(code: str, user_id: int) -> tuple[Account, Account]:
    """The escrow account `code` (made if missing, as `escrow_account`) and the wallet of
    user `user_id`, read in one statement: a stake or a payout of a game needs both, and
    the game's every chip move reads them (play.services.chips). The wallet must exist."""
    escrow = wallet = None
    for account in ledger.escrow_and_wallet_read(code, user_id):
        if account.code == code:
            escrow = account
        else:
            wallet = account
    if wallet is None:
        raise Account.DoesNotExist(f"no wallet of user {user_id}")
    return _escrow_made(code, escrow), wallet


def wallet_of(user_id: int) -> Account:
    """The wallet of user `user_id`, which must exist (a seated player's: every chip move
    of a game reads one, play.services.chips). `wallet_for` makes a missing one instead."""
    wallet = ledger.wallet_read(user_id)
    if wallet is None:
        raise Account.DoesNotExist(f"no wallet of user {user_id}")
    return wallet


def _escrow_made(code: str, account: Account | None) -> Account:
    """The escrow account `code` as read (`account`), made now if it was not there."""
    if account is None:  # as get_or_create makes it, without its read again
        try:
            with transaction.atomic():
                account = Account.objects.create(code=code, kind=Account.Kind.ESCROW)
        except IntegrityError:  # made meanwhile by another transaction
            account = Account.objects.filter(code=code).first()
            if account is None:
                raise
    if account.kind != Account.Kind.ESCROW:
        raise ValueError(f"account {code!r} exists and is not an escrow account")
    return account


# --- the transfer ----------------------------------------------------------------------


def _same_movement(
    entry: LedgerEntry, source: Account, destination: Account, amount: int, reason: str
) -> bool:
    return (
        entry.source_id == source.pk
        and entry.destination_id == destination.pk
        and entry.amount == amount
        and entry.reason == reason
    )


def _replay(
    key: str, source: Account, destination: Account, amount: int, reason: str
) -> LedgerEntry | None:
    entry = LedgerEntry.objects.filter(idempotency_key=key).first()
    if entry is None:
        return None
    if not _same_movement(entry, source, destination, amount, reason):
        raise IdempotencyConflict(
            _("Ключ %(key)s уже использован для другого перевода.") % {"key": key}
        )
    return entry


def chips_transfer(
    *,
    source: Account,
    destination: Account,
    amount: int,
    reason: str,
    idempotency_key: str,
    round_ref: str = "",
    game: Any = None,
    memo: str = "",
    created_by: Any = None,
) -> LedgerEntry:
    """Move `amount` chips from `source` to `destination` as one ledger entry.

    Idempotent: a second call with the same key returns the first call's entry and moves
    nothing; the same key with a different movement raises IdempotencyConflict. Raises
    InsufficientChips when a non-system source would go below zero (the database's check
    constraint refuses it too, as the last line of defence).
    """
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise ValueError(f"amount must be a positive integer, not {amount!r}")
    if source.pk == destination.pk:
        raise ValueError("source and destination must be different accounts")
    if not idempotency_key:
        raise ValueError("idempotency_key is required")
    if reason not in LedgerEntry.Reason.values:
        raise ValueError(f"unknown reason {reason!r}")

    answer: LedgerEntry | None = None
    refusal: ChipsError | None = None
    # Its own transaction, or its caller's without a savepoint (two round trips saved): a
    # refusal is decided before anything is written and raised once the block is left,
    # so the caller's transaction goes on untouched; a failed write (the database's
    # balance check) fails the caller's transaction with it.
    with transaction.atomic(savepoint=False):
        low, high = sorted((source.pk, destination.pk))
        locked = {a.pk: a for a in ledger.accounts_locked(low, high)}
        src, dst = locked[source.pk], locked[destination.pk]
        try:
            if src.kind != Account.Kind.SYSTEM and src.balance < amount:
                # A replay of a transfer made already moves nothing and gets its entry,
                # whatever the balance is since.
                answer = _replay(idempotency_key, src, dst, amount, reason)
                if answer is None:
                    raise InsufficientChips(
                        _("Недостаточно фишек: нужно %(amount)d, доступно %(balance)d.")
                        % {"amount": amount, "balance": src.balance}
                    )
            else:
                # The key is not looked for first (a statement with every transfer, to
                # catch a few replays): the entry's insert finds it and nothing moves.
                entry = LedgerEntry(
                    source=src,
                    destination=dst,
                    amount=amount,
                    reason=reason,
                    memo=memo,
                    round_ref=round_ref,
                    game=game,
                    idempotency_key=idempotency_key,
                    source_balance_after=src.balance - amount,
                    destination_balance_after=dst.balance + amount,
                    created_by=created_by,
                )
                src.balance -= amount
                dst.balance += amount
                if ledger.transfer_written(entry, src, dst):
                    answer = entry
                else:
                    src.balance += amount
                    dst.balance -= amount
                    # The key was used already, maybe committed meanwhile by another
                    # transaction (the insert waited for it): its entry is the answer.
                    answer = _replay(idempotency_key, src, dst, amount, reason)
                    if answer is None:  # pragma: no cover - the key is there
                        raise IdempotencyConflict(idempotency_key)
        except ChipsError as error:
            refusal = error
    if refusal is not None:
        raise refusal
    assert answer is not None
    # Keep the callers' objects in step with the database.
    source.balance, destination.balance = src.balance, dst.balance
    return answer


# --- grants ----------------------------------------------------------------------------


def welcome_grant(*, user: Any) -> LedgerEntry:
    """Give a new player their welcome chips, once (idempotent per user)."""
    return chips_transfer(
        source=grants_account(),
        destination=wallet_for(user),
        amount=WELCOME_GRANT_CHIPS,
        reason=LedgerEntry.Reason.WELCOME_GRANT,
        idempotency_key=f"welcome:{user.pk}",
    )


def chips_adjust(
    *, wallet: Account, amount: int, memo: str, by: Any, idempotency_key: str
) -> LedgerEntry:
    """An admin grants (amount > 0) or takes (amount < 0) chips, with a stated reason."""
    if wallet.kind != Account.Kind.PLAYER:
        raise ValueError("only player wallets can be adjusted by an admin")
    if not memo.strip():
        raise ValueError("an adjustment needs a reason")
    if amount > 0:
        return chips_transfer(
            source=grants_account(),
            destination=wallet,
            amount=amount,
            reason=LedgerEntry.Reason.ADMIN_GRANT,
            memo=memo,
            created_by=by,
            idempotency_key=idempotency_key,
        )
    return chips_transfer(
        source=wallet,
        destination=grants_account(),
        amount=-amount,
        reason=LedgerEntry.Reason.ADMIN_TAKE,
        memo=memo,
        created_by=by,
        idempotency_key=idempotency_key,
    )


@transaction.atomic
def player_register(*, username: str, email: str, password: str) -> Any:
    """Create a player account; its welcome chips arrive in the same transaction.

    The grant itself is made by the post_save handler (accounts.signals), so that users
    created any other way (admin, createsuperuser) get their chips too.

    An address that already belongs to an account is not refused — the sign-up page
    would then tell anyone which addresses are registered. The new account is made
    without an address, exactly as the page would show any sign-up, and the address's
    owner gets a note by e-mail instead (they may have forgotten they have an account).

    The password is hashed once, before either insert: hashed again for the second, a
    taken address took one more hashing's time (about a second with the real hasher) to
    answer, which told what the page does not.
    """
    password_hash = make_password(password)
    try:
        with transaction.atomic():
            return _user_create(username=username, email=email, password_hash=password_hash)
    except IntegrityError:
        owner = User.objects.filter(email__iexact=email).first() if email else None
        if owner is None:
            raise  # the user name was taken meanwhile: the caller's form says so
    user = _user_create(username=username, email="", password_hash=password_hash)
    transaction.on_commit(lambda: _tell_address_owner(owner, username))
    return user


def _user_create(*, username: str, email: str, password_hash: str) -> Any:
    # UserManager.create_user's steps, with the password already hashed.
    user = User(
        username=User.normalize_username(username),
        email=User.objects.normalize_email(email),
        password=password_hash,
    )
    user.save()
    return user


def _tell_address_owner(owner: Any, new_username: str) -> None:
    from django.conf import settings
    from django.utils import translation

    from accounts.tasks import mail_send

    with translation.override(settings.LANGUAGE_CODE):
        mail_send.delay(
            subject=_("Регистрация с вашим адресом"),
            body=_(
                "Кто-то (возможно, вы) зарегистрировал на «Двадцать одно» игрока "
                "«%(new)s», указав ваш адрес. Но этот адрес уже принадлежит вашему игроку "
                "«%(owner)s», поэтому к новому игроку он не привязан.\n\n"
                "Если это были вы и вы забыли пароль, восстановите его на странице входа. "
                "Если нет — ничего делать не нужно."
            )
            % {"new": new_username, "owner": owner.username},
            to=[owner.email],
        )


# --- selectors -------------------------------------------------------------------------


def chips_in_circulation() -> int:
    """Sum of all wallets and escrow: changes only by grants (= -grants balance)."""
    total = Account.objects.exclude(kind=Account.Kind.SYSTEM).aggregate(s=Sum("balance"))["s"]
    return int(total or 0)


# --- ledger maintenance ------------------------------------------------------------------

# A row here lets the database empty the ledger (TRUNCATE on PostgreSQL, DELETE on
# SQLite), which it otherwise refuses (accounts/migrations/0004). No model maps the table,
# so no flush empties it and no page writes it.
LEDGER_MAINTENANCE_TABLE = "accounts_ledger_maintenance"


def ledger_maintenance_begin(reason: str, *, using: str = "default") -> None:
    """Let the ledger be emptied: for wiping a test or staging database, never live play."""
    from django.db import connections

    with connections[using].cursor() as cursor:
        cursor.execute(f"INSERT INTO {LEDGER_MAINTENANCE_TABLE} (reason) VALUES (%s)", [reason])


def ledger_maintenance_end(*, using: str = "default") -> None:
    from django.db import connections

    with connections[using].cursor() as cursor:
        cursor.execute(f"DELETE FROM {LEDGER_MAINTENANCE_TABLE}")
