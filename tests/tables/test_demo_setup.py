from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from accounts.models import User
from accounts.services import wallet_for
from tables.models import Table
from tables.variants import VARIANTS

pytestmark = pytest.mark.django_db


def test_demo_setup_creates_a_table_per_variant_and_an_admin_idempotently(settings, capsys):
    settings.DEBUG = True
    call_command("demo_setup")
    call_command("demo_setup")
    out = capsys.readouterr().out
    assert sorted(Table.objects.values_list("variant", flat=True)) == sorted(VARIANTS)
    admin = User.objects.get(username="admin")
    assert admin.is_superuser and admin.check_password("twentyone-admin")
    assert out.count("password: twentyone-admin") == 2
    assert wallet_for(admin).balance == 10_000


def test_demo_setup_refuses_production(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DEBUG"):
        call_command("demo_setup")
