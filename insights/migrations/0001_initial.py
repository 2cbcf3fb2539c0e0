"""Insights get a room of their own: Decision moves from the `tables` app to `insights` in
Django's state only; its database table keeps its name (`db_table`) and its rows
(`tables` 0010 drops it from the old app's state and relabels its content type)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import tables.variants


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("play", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Decision",
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
                        (
                            "variant",
                            models.CharField(
                                choices=tables.variants.variant_choices,
                                max_length=16,
                                verbose_name="вариант",
                            ),
                        ),
                        ("seat", models.CharField(max_length=160, verbose_name="место")),
                        ("number", models.PositiveIntegerField(verbose_name="ход №")),
                        ("round", models.PositiveIntegerField(verbose_name="раздача")),
                        ("situation", models.CharField(max_length=32, verbose_name="положение")),
                        ("options", models.JSONField(verbose_name="варианты")),
                        ("chosen", models.JSONField(verbose_name="выбрано")),
                        ("best", models.JSONField(verbose_name="лучшее")),
                        ("loss", models.FloatField(verbose_name="потеря")),
                        ("timeout", models.BooleanField(default=False, verbose_name="время вышло")),
                        (
                            "reviewed_at",
                            models.DateTimeField(auto_now_add=True, verbose_name="разобрано"),
                        ),
                    ],
                    options={
                        "verbose_name": "решение",
                        "verbose_name_plural": "решения",
                        "db_table": "tables_decision",
                        "ordering": ["game", "number"],
                    },
                ),
                migrations.AddField(
                    model_name="decision",
                    name="game",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="decisions",
                        to="play.game",
                        verbose_name="игра",
                    ),
                ),
                migrations.AddField(
                    model_name="decision",
                    name="user",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="decisions",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="игрок",
                    ),
                ),
                migrations.AddIndex(
                    model_name="decision",
                    index=models.Index(fields=["user", "variant"], name="decision_user_variant"),
                ),
                migrations.AddConstraint(
                    model_name="decision",
                    constraint=models.UniqueConstraint(
                        fields=("game", "number"), name="decision_once_per_action"
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]
