"""Django's makemessages, also reading `t("…")` in the page scripts.

The scripts under static/js call Django's JavaScript catalogue through a short wrapper,
`t(text)` (it falls back to the Russian source when the catalogue is missing), which
xgettext does not know as a keyword by itself.
"""

from typing import Any

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    def handle(self, *args: Any, **options: Any) -> Any:
        if options.get("domain") == "djangojs":
            self.xgettext_options = [*self.xgettext_options, "--keyword=t"]
        return super().handle(*args, **options)
