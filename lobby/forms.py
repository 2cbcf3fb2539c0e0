"""The lobby's «Открыть стол» form."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tables.models import Table
from tables.variants import VARIANTS

# Which variants each optional field belongs to (the page shows only those; the form
# empties the others, so a hidden field never refuses a table).
FIELD_VARIANTS: dict[str, tuple[str, ...]] = {
    "seat_count": tuple(k for k, v in VARIANTS.items() if v.min_seats != v.max_seats),
    "stake": tuple(k for k, v in VARIANTS.items() if "stake" in v.stake_defaults),
    "min_bet": tuple(k for k, v in VARIANTS.items() if "min_bet" in v.stake_defaults),
    "max_bet": tuple(k for k, v in VARIANTS.items() if "max_bet" in v.stake_defaults),
    "entry_limit": tuple(k for k, v in VARIANTS.items() if v.stakes_chips),
    "match_length": tuple(k for k, v in VARIANTS.items() if v.match_lengths),
}


class TableOpenForm(forms.ModelForm):  # type: ignore[type-arg]
    """Variant, stakes, seats, private — validated by the model's own rules
    (`Table.clean`), then opened through `lobby.services.table_open`."""

    sit = forms.BooleanField(label=_("Сразу сесть за стол"), required=False, initial=True)

    class Meta:
        model = Table
        fields = [
            "variant",
            "name",
            "seat_count",
            "stake",
            "min_bet",
            "max_bet",
            "entry_limit",
            "match_length",
            "private",
            "bots_allowed",
        ]
        labels = {
            "variant": _("Вариант"),
            "name": _("Название"),
            "seat_count": _("Мест за столом"),
            "stake": _("Ставка стола"),
            "min_bet": _("Минимальная ставка"),
            "max_bet": _("Максимальная ставка"),
            "entry_limit": _("Лимит входа"),
            "match_length": _("Раздач в партии"),
            "private": _("Частный стол (только по приглашению)"),
            "bots_allowed": _("Боты за столом"),
        }
        help_texts = {
            "name": _("Можно не заполнять."),
            "seat_count": "",
            "stake": _("Начальная ставка банка."),
            "min_bet": "",
            "max_bet": "",
            "entry_limit": _("Сколько фишек нужно, чтобы сесть."),
            "match_length": "",
            "private": _("Его не видно в лобби; позовите друзей ссылкой со страницы стола."),
        }

    def __init__(self, *args: Any, user: Any = None, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.user = user
        self.fields["name"].required = False
        self.fields["variant"].choices = [(v.key, v.name) for v in VARIANTS.values()]
        self.fields["match_length"].choices = [
            ("", _("по умолчанию")),
            *((n, str(n)) for n in VARIANTS["classic"].match_lengths),
        ]
        for name, variants in FIELD_VARIANTS.items():
            field = self.fields[name]
            field.variants = " ".join(variants)  # type: ignore[attr-defined]
            field.widget.attrs["inputmode"] = "numeric"
        self.fields["match_length"].widget.attrs.pop("inputmode", None)
        self.fields["bots_allowed"].widget = forms.Select(
            choices=[
                ("", _("по умолчанию: да, кроме столов на фишки")),
                ("true", _("пускать")),
                ("false", _("не пускать")),
            ]
        )
        self.fields["bots_allowed"].help_text = _(
            "Бот — аккаунт программы; за столом он помечен «бот»."
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        variant = data.get("variant")
        for name, variants in FIELD_VARIANTS.items():
            if variant not in variants:
                data[name] = None
        if not data.get("name") and self.user is not None:
            data["name"] = gettext("Стол %(user)s") % {"user": self.user.username}
        return data

    def table_fields(self) -> dict[str, Any]:
        """The fields for `lobby.services.table_open` (those left empty take the defaults)."""
        return {
            name: self.cleaned_data[name]
            for name in ("name", "bots_allowed", *FIELD_VARIANTS)
            if self.cleaned_data.get(name) not in (None, "")
        }


class LobbyFilterForm(forms.Form):
    """The lobby's query parameters (the page and lobby.json): which tables, which page."""

    variant = forms.ChoiceField(
        required=False, choices=[("", ""), *((k, k) for k in VARIANTS)], label=_("Вариант")
    )
    min_entry = forms.IntegerField(required=False, min_value=0, label=_("Лимит входа от"))
    max_entry = forms.IntegerField(required=False, min_value=0, label=_("Лимит входа до"))
    page = forms.IntegerField(required=False, min_value=1, label=_("Страница"))

    def filters(self) -> dict[str, Any]:
        """The valid parameters for `selectors.lobby_listing` (an invalid one is dropped)."""
        self.is_valid()  # a field in error is left out of cleaned_data
        data = self.cleaned_data
        return {
            "variant": data.get("variant") or "",
            "min_entry": data.get("min_entry"),
            "max_entry": data.get("max_entry"),
            "page": data.get("page") or 1,
        }

    def error_text(self) -> str:
        return " ".join(
            f"{self.fields[name].label}: {' '.join(errors)}" for name, errors in self.errors.items()
        )
