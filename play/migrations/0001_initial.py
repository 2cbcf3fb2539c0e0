"""Live play gets a room of its own: Game, GameEvent, Presence and ClientCommand move from
the `tables` app to `play` in Django's state only. Their database tables keep their names
(`db_table`) and their rows; `tables` 0010 drops them from the old app's state and
gives their content types the new app label."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import tables.models
import tables.variants


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("tables", "0009_mark_one_click_tables"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Game",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("number", models.PositiveIntegerField(verbose_name="номер игры")),
                        (
                            "variant",
                            models.CharField(
                                choices=tables.variants.variant_choices,
                                max_length=16,
                                verbose_name="вариант",
                            ),
                        ),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("playing", "идёт"),
                                    ("finished", "сыграна"),
                                    ("voided", "отменена"),
                                ],
                                default="playing",
                                max_length=16,
                                verbose_name="статус",
                            ),
                        ),
                        ("state", tables.models.ExactJSONField(verbose_name="состояние")),
                        ("players", models.JSONField(verbose_name="игроки")),
                        ("options", models.JSONField(verbose_name="параметры")),
                        (
                            "first_banker",
                            models.CharField(
                                blank=True, max_length=160, verbose_name="первый банкир"
                            ),
                        ),
                        ("seed", models.CharField(max_length=128, verbose_name="ключ")),
                        (
                            "server_seed",
                            models.CharField(
                                blank=True, max_length=64, verbose_name="ключ сервера"
                            ),
                        ),
                        (
                            "client_seeds",
                            models.JSONField(default=list, verbose_name="ключи игроков"),
                        ),
                        ("commitment", models.CharField(max_length=64, verbose_name="отпечаток")),
                        ("actions", models.JSONField(default=list, verbose_name="ходы")),
                        ("escrowed", models.JSONField(default=dict, verbose_name="в депозите")),
                        ("carry", models.JSONField(default=dict, verbose_name="перенос")),
                        (
                            "deadline",
                            models.DateTimeField(
                                blank=True, db_index=True, null=True, verbose_name="срок решения"
                            ),
                        ),
                        (
                            "deadline_seat",
                            models.CharField(
                                blank=True, max_length=160, verbose_name="чьё решение"
                            ),
                        ),
                        (
                            "paused_remaining_ms",
                            models.PositiveIntegerField(
                                null=True, verbose_name="осталось на паузе, мс"
                            ),
                        ),
                        ("grace_version", models.PositiveIntegerField(blank=True, null=True)),
                        (
                            "result",
                            models.JSONField(blank=True, null=True, verbose_name="результат"),
                        ),
                        (
                            "reviewed_actions",
                            models.PositiveIntegerField(default=0, verbose_name="ходов разобрано"),
                        ),
                        (
                            "started_at",
                            models.DateTimeField(auto_now_add=True, verbose_name="начата"),
                        ),
                        (
                            "finished_at",
                            models.DateTimeField(blank=True, null=True, verbose_name="окончена"),
                        ),
                        (
                            "table",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="games",
                                to="tables.table",
                                verbose_name="стол",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "игра",
                        "verbose_name_plural": "игры",
                        "db_table": "tables_game",
                        "ordering": ["-id"],
                    },
                ),
                migrations.CreateModel(
                    name="GameEvent",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("version", models.PositiveIntegerField(verbose_name="версия движка")),
                        ("action", models.JSONField(blank=True, null=True)),
                        ("events", models.JSONField()),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "game",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="events",
                                to="play.game",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "событие игры",
                        "verbose_name_plural": "события игры",
                        "db_table": "tables_gameevent",
                        "ordering": ["game", "version"],
                    },
                ),
                migrations.CreateModel(
                    name="Presence",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("channel_name", models.CharField(max_length=200, unique=True)),
                        ("seen_at", models.DateTimeField(auto_now=True)),
                        (
                            "table",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="presences",
                                to="tables.table",
                            ),
                        ),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "tables_presence",
                    },
                ),
                migrations.CreateModel(
                    name="ClientCommand",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("client_id", models.CharField(max_length=64)),
                        ("outcome", models.JSONField()),
                        ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                        (
                            "table",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="tables.table",
                            ),
                        ),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "tables_clientcommand",
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("user", "table", "client_id"), name="client_command_once"
                            )
                        ],
                    },
                ),
                migrations.AddConstraint(
                    model_name="game",
                    constraint=models.UniqueConstraint(
                        fields=("table", "number"), name="game_number_per_table"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="game",
                    constraint=models.UniqueConstraint(
                        condition=models.Q(("status", "playing")),
                        fields=("table",),
                        name="game_one_playing_per_table",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="gameevent",
                    constraint=models.UniqueConstraint(
                        fields=("game", "version"), name="game_event_version_unique"
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]
