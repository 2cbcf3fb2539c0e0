"""Demo data for a local run: one open table per variant and an admin. Idempotent."""

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from tables.models import Table
from tables.services import table_create
from tables.variants import VARIANTS

DEMO_ADMIN_USERNAME = "admin"
DEMO_ADMIN_PASSWORD = "twentyone-admin"

DEMO_TABLES: dict[str, dict[str, Any]] = {
    "classic": {"name": "Демо: классика", "match_length": 5},
    "salon": {"name": "Демо: салон", "min_bet": 10, "max_bet": 100, "entry_limit": 100},
    "solo": {"name": "Демо: против банкира"},
    "banker36": {"name": "Демо: очко с банкиром", "stake": 10, "entry_limit": 100},
    "blackjack": {"name": "Демо: блэкджек"},
}
assert set(DEMO_TABLES) == set(VARIANTS), "one demo table per variant"


class Command(BaseCommand):
    help = "Create a demo admin and one open table of each variant (safe to run again)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--base-url",
            default="http://127.0.0.1:8000",
            help="Where the server will listen, for the admin's address it prints "
            "(make run passes its HOST and PORT).",
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="Run even with DEBUG off (creates an admin with a published password).",
        )

    def handle(
        self,
        *args: Any,
        force: bool = False,
        base_url: str = "http://127.0.0.1:8000",
        **options: Any,
    ) -> None:
        if not settings.DEBUG and not force:
            raise CommandError(
                "demo_setup creates an admin with a published password; it refuses to run "
                "with DEBUG off. Use createsuperuser in production (or --force)."
            )
        for variant, fields in DEMO_TABLES.items():
            table = Table.objects.filter(variant=variant, name=fields["name"]).first()
            if table is None:
                table = table_create(variant=variant, **fields)
                self.stdout.write(f"created table {table.name!r} ({variant})")
            elif not table.is_open:
                self.stdout.write(f"table {table.name!r} exists (closed; left as it is)")

        User = get_user_model()
        admin = User.objects.filter(username=DEMO_ADMIN_USERNAME).first()
        if admin is None:
            User.objects.create_superuser(
                username=DEMO_ADMIN_USERNAME,
                email="admin@example.com",
                password=DEMO_ADMIN_PASSWORD,
            )
            state = "created"
        elif admin.check_password(DEMO_ADMIN_PASSWORD):
            state = "exists"
        else:
            state = "exists, password changed since: not shown"
        self.stdout.write(self.style.SUCCESS("Demo admin (" + state + "):"))
        self.stdout.write(f"  URL:      {base_url.rstrip('/')}/admin/")
        self.stdout.write(f"  username: {DEMO_ADMIN_USERNAME}")
        if state != "exists, password changed since: not shown":
            self.stdout.write(f"  password: {DEMO_ADMIN_PASSWORD}")
