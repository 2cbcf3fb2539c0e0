from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.db import transaction
from django.db.models.signals import post_save, pre_save
from django.dispatch import Signal, receiver

from accounts.services import wallet_for, welcome_grant
from accounts.sessions import sessions_may_have_ended

free_chips_requested = Signal()
"""A player asks for chips the house gives away — the daily bonus (accounts.bonus), a
freeroll's entry (tournaments.services) — with ``player``. Sent with `Signal.send`
before anything is written: a receiver that refuses raises `accounts.bonus.FreeChipsRefused`
with a message fit for the player. So fair play (fairplay.enforcement: an account too new
and too little played) refuses without accounts or tournaments importing it."""


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts_welcome_grant")
def grant_welcome_chips(
    sender: Any, instance: Any, created: bool, raw: bool, **kwargs: Any
) -> None:
    """Every new person, however created, gets a wallet and the welcome chips. A bot gets
    an empty wallet: chips of the house's would make every bot a farm account's feeder
    (docs/decisions.md); an administrator may grant it chips."""
    if created and not raw:
        if instance.is_bot:
            wallet_for(instance)
        else:
            welcome_grant(user=instance)


@receiver(user_logged_out, dispatch_uid="accounts_sockets_signed_out")
def close_signed_out_sockets(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """Signing out ends this session's sockets too (the session is flushed right after
    this signal, so they are told which session it was rather than left to look)."""
    session = getattr(request, "session", None)
    if user is not None and session is not None and session.session_key:
        sessions_may_have_ended(user_id=user.pk, session_key=session.session_key)


@receiver(pre_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts_password_seen")
def note_password_change(sender: Any, instance: Any, raw: bool, **kwargs: Any) -> None:
    """Whether this save changes the password or deactivates the user: each ends every
    session of theirs (Django's session hash is made from the password). However the
    password is changed — the password-change and reset pages, the admin, a command."""
    fields = kwargs.get("update_fields")
    instance._sessions_end = False
    if (
        raw
        or instance.pk is None
        or (fields is not None and not {"password", "is_active"} & set(fields))
    ):
        return
    before = sender._default_manager.filter(pk=instance.pk).values("password", "is_active").first()
    instance._sessions_end = before is not None and (
        before["password"] != instance.password or (before["is_active"] and not instance.is_active)
    )


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts_sockets_password")
def close_sockets_after_password_change(sender: Any, instance: Any, **kwargs: Any) -> None:
    if getattr(instance, "_sessions_end", False):
        instance._sessions_end = False
        user_id = instance.pk
        # Once the new password is committed, or the sockets would check the old one.
        transaction.on_commit(lambda: sessions_may_have_ended(user_id=user_id))
