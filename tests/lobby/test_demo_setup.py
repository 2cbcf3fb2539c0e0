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


def test_demo_setup_prints_the_admin_address_where_the_server_will_listen(settings, capsys):
    settings.DEBUG = True
    call_command("demo_setup", base_url="http://0.0.0.0:9123")
    assert "URL:      http://0.0.0.0:9123/admin/" in capsys.readouterr().out


def test_make_run_passes_its_host_and_port_to_the_banner_and_demo_setup():
    from pathlib import Path

    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    assert "demo_setup --base-url http://$(HOST):$(PORT)" in makefile
    assert "Serving Twenty-One on http://$(HOST):$(PORT)/" in makefile
