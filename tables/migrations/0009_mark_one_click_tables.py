"""The one-click tables opened before `Table.one_click` existed are marked as such.

The lobby's «Играть» made a private `solo` table, or a private `blackjack` table with AI
seats, for its player and seated them. Marked, they are reused by the button and left out
of the open-at-once limit like the ones made from now on; unmarked, they would count
against their players' limit for good (the page had no way to close them).
"""

from django.db import migrations
from django.db.models import Q


def mark(apps, schema_editor):
    Table = apps.get_model("tables", "Table")
    opened_by_the_button = Q(variant="solo") | Q(variant="blackjack", seats__ai_level__gt="")
    Table.objects.filter(
        opened_by_the_button, status="open", private=True, created_by__isnull=False
    ).update(one_click=True)


class Migration(migrations.Migration):
    dependencies = [("tables", "0008_table_one_click")]

    operations = [migrations.RunPython(mark, migrations.RunPython.noop)]
