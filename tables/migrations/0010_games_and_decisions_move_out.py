"""Games in play and decision reviews leave the `tables` app for their own rooms (`play`
0001, `insights` 0001): dropped from this app's state only, their database tables and
rows stay where they are."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0009_mark_one_click_tables"),
        ("play", "0001_initial"),
        ("insights", "0001_initial"),
        ("accounts", "0005_ledger_entry_game_in_play"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name="decision",
                    name="game",
                ),
                migrations.RemoveField(
                    model_name="decision",
                    name="user",
                ),
                migrations.RemoveField(
                    model_name="game",
                    name="table",
                ),
                migrations.RemoveField(
                    model_name="gameevent",
                    name="game",
                ),
                migrations.RemoveField(
                    model_name="presence",
                    name="table",
                ),
                migrations.RemoveField(
                    model_name="presence",
                    name="user",
                ),
                migrations.DeleteModel(
                    name="ClientCommand",
                ),
                migrations.DeleteModel(
                    name="Decision",
                ),
                migrations.DeleteModel(
                    name="Game",
                ),
                migrations.DeleteModel(
                    name="GameEvent",
                ),
                migrations.DeleteModel(
                    name="Presence",
                ),
            ],
            database_operations=[],
        ),
    ]
