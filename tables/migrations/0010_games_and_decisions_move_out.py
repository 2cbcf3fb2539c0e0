"""Games in play and decision reviews leave the `tables` app for their own rooms (`play`
0001, `insights` 0001): dropped from this app's state only, their database tables and
rows stay where they are; their content types follow them to the new app labels."""

from django.db import migrations

# Each moved model's new app.
MOVED = {
    "game": "play",
    "gameevent": "play",
    "presence": "play",
    "clientcommand": "play",
    "decision": "insights",
}


def relabel(apps, source_of, target_of):
    """The content types of the moved models follow them, so that the permissions granted
    on them and the admin's log of changes to them stay theirs. Where both rows exist (a
    process of the other release made one for the model meanwhile), what hangs on the row
    left behind moves to the other, and that row goes."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    LogEntry = apps.get_model("admin", "LogEntry")
    for model, app in MOVED.items():
        old = ContentType.objects.filter(app_label=source_of(app), model=model).first()
        if old is None:
            continue
        new = ContentType.objects.filter(app_label=target_of(app), model=model).first()
        if new is None:
            old.app_label = target_of(app)
            old.save(update_fields=["app_label"])
            continue
        for permission in Permission.objects.filter(content_type=old):
            twin = Permission.objects.filter(content_type=new, codename=permission.codename).first()
            if twin is None:
                permission.content_type = new
                permission.save(update_fields=["content_type"])
                continue
            twin.user_set.add(*permission.user_set.all())
            twin.group_set.add(*permission.group_set.all())
            permission.delete()
        LogEntry.objects.filter(content_type=old).update(content_type=new)
        old.delete()


def content_types_to_new_apps(apps, schema_editor):
    relabel(apps, source_of=lambda app: "tables", target_of=lambda app: app)


def content_types_to_tables(apps, schema_editor):
    relabel(apps, source_of=lambda app: app, target_of=lambda app: "tables")


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0009_mark_one_click_tables"),
        ("play", "0001_initial"),
        ("insights", "0001_initial"),
        ("accounts", "0005_ledger_entry_game_in_play"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("admin", "0003_logentry_add_action_flag_choices"),
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
        migrations.RunPython(content_types_to_new_apps, content_types_to_tables),
    ]
