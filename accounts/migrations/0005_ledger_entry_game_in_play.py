"""A ledger entry's game is live play's (`play.Game`, moved there from `tables` in state
only): the same column and foreign key in the database."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_ledger_refuses_truncate_and_delete"),
        ("play", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="ledgerentry",
                    name="game",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="ledger_entries",
                        to="play.game",
                        verbose_name="игра",
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]
