from typing import Any

from django import forms
from django.contrib.auth.forms import BaseUserCreationForm, PasswordResetForm
from django.template import loader
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from accounts.tasks import mail_send


class SignUpForm(BaseUserCreationForm):  # type: ignore[type-arg]
    email = forms.EmailField(
        label=_("E-mail"),
        help_text=_("Нужен, чтобы восстановить пароль."),
    )

    class Meta:
        model = User
        fields = ("username", "email")

    def clean_username(self) -> str:
        username: str = self.cleaned_data["username"]
        if User.objects.filter(username__iexact=username).exists():
            raise forms.ValidationError(_("Это имя уже занято."))
        return username

    def _get_validation_exclusions(self) -> set[str]:
        # Nor is the model's unique-address constraint checked here, for the same reason.
        return {*super()._get_validation_exclusions(), "email"}

    def clean_email(self) -> str:
        # A taken address is not refused here: that would tell anyone which addresses
        # have accounts. accounts.services.player_register deals with it.
        return str(self.cleaned_data["email"]).strip()


class MailLaterPasswordResetForm(PasswordResetForm):
    """Django's reset form; the link is rendered here and mailed by the worker
    (accounts.tasks), so that a registered address is not the one slow to answer."""

    def send_mail(
        self,
        subject_template_name: str,
        email_template_name: str,
        context: dict[str, Any],
        from_email: str | None,
        to_email: str,
        html_email_template_name: str | None = None,
    ) -> None:
        subject = "".join(loader.render_to_string(subject_template_name, context).splitlines())
        mail_send.delay(
            subject=subject,
            body=loader.render_to_string(email_template_name, context),
            to=[to_email],
            from_email=from_email,
            html=(
                loader.render_to_string(html_email_template_name, context)
                if html_email_template_name
                else ""
            ),
        )


class ChipsAdjustForm(forms.Form):
    """Admin: grant or take chips from one wallet, with a reason, through the ledger."""

    GRANT = "grant"
    TAKE = "take"

    direction = forms.ChoiceField(
        label=_("Действие"),
        choices=[(GRANT, _("Начислить")), (TAKE, _("Списать"))],
        widget=forms.RadioSelect,
        initial=GRANT,
    )
    amount = forms.IntegerField(label=_("Фишек"), min_value=1, max_value=10**12)
    memo = forms.CharField(label=_("Причина"), max_length=200)
    # Made when the form is shown, so a double submit is applied once.
    idempotency_key = forms.CharField(widget=forms.HiddenInput, max_length=128)

    def signed_amount(self) -> int:
        data: dict[str, Any] = self.cleaned_data
        amount: int = data["amount"]
        return amount if data["direction"] == self.GRANT else -amount


class BotForm(forms.Form):
    """A new bot account: its user name, checked as a person's is at sign-up."""

    username = forms.CharField(
        label=_("Имя бота"),
        max_length=150,
        validators=[User.username_validator],
        help_text=_("Буквы, цифры и @ . + - _; имя видно за столом с пометкой «бот»."),
    )


class AccessTokenForm(forms.Form):
    """A new personal access token: its name and scopes (accounts.tokens.SCOPES)."""

    name = forms.CharField(label=_("Название"), max_length=60, strip=True)
    scopes = forms.MultipleChoiceField(
        label=_("Права"),
        choices=[
            ("read", _("read — лобби, наблюдение за столами, JSON-запросы GET")),
            ("play", _("play — команды за столом, открыть стол, друзья и приглашения")),
            ("chat", _("chat — чат стола и жалобы на сообщения")),
        ],
        widget=forms.CheckboxSelectMultiple,
        initial=["read", "play"],
    )
