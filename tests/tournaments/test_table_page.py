"""A tournament's table page: it leads back to the event's page, and it offers nothing an
entrant cannot do there — no invite, no start, no «Готов», no AI seats, no host's
controls (the page's script draws those from `one_game`; tests/e2e/test_tournaments.py
sees them absent in a browser). An ordinary table's page is as it was."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from people.friends import PeopleError, invite_send
from tables import services as table_services
from tables.models import Table
from tests.tournaments.helpers import make_tournament
from tournaments.models import Entry, Tournament
from tournaments.services import entry_register, tournament_registration_open, tournament_start

pytestmark = pytest.mark.django_db


def page_of(user: Any, table: Table) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(reverse("table", args=[table.pk]))
    assert response.status_code == 200
    return response.content.decode()


def config_of(page: str) -> dict[str, Any]:
    found = re.search(r'<script id="table-config" type="application/json">(.*?)</script>', page)
    assert found is not None
    config: dict[str, Any] = json.loads(found.group(1))
    return config


def parent_link(page: str) -> tuple[str, str] | None:
    """The table page's way back: (href, text) of its link, None without one."""
    found = re.search(
        r'<a href="([^"]*)" data-link="parent"><span aria-hidden="true">← </span>([^<]*)</a>',
        page,
    )
    return (found.group(1), found.group(2)) if found else None


def register(tournament: Tournament, user: Any) -> Entry:
    return entry_register(tournament_id=tournament.pk, player=user, now=timezone.now())


def heat_table(make_user: Any) -> tuple[Tournament, Any, Table]:
    tournament = tournament_registration_open(
        tournament=make_tournament(
            name="Вечерний «БД»", variant="blackjack", rounds=3, starts_at=timezone.now()
        )
    )
    vera = make_user("vera")
    register(tournament, vera)
    register(tournament, make_user("bob"))
    tournament_start(tournament=tournament)
    entry = Entry.objects.select_related("table").get(tournament=tournament, player=vera)
    assert entry.table is not None
    return tournament, vera, entry.table


def test_a_heat_tables_page_leads_back_to_the_event_and_offers_no_host_controls(make_user):
    tournament, vera, table = heat_table(make_user)
    assert table.private and table.created_by_id is None and table.one_game
    page = page_of(vera, table)
    assert parent_link(page) == (reverse("tournament", args=[tournament.pk]), "Вечерний «БД»")
    # The script offers no start, «Готов», AI seats or close at such a table.
    assert config_of(page)["one_game"] is True
    # Nor the coach: it is silent while the heat is sealed (a blackjack table offers it).
    assert config_of(page)["coach_url"] is None
    # A private table's seated player is offered «Пригласить друга» — not at a heat.
    assert "Пригласить друга" not in page and 'id="table-invite"' not in page


def test_a_sit_and_go_tables_page_leads_back_to_the_event_and_offers_no_host_controls(
    make_user,
):
    tournament = tournament_registration_open(
        tournament=make_tournament(
            name="Банк на троих",
            variant="banker36",
            format=Tournament.Format.SIT_AND_GO,
            max_entrants=2,
            rounds=1,
            starting_stack=200,
        )
    )
    ann = make_user("ann")
    register(tournament, ann)
    register(tournament, make_user("bob"))  # the last seat: it starts now
    entry = Entry.objects.select_related("table").get(tournament=tournament, player=ann)
    assert entry.table is not None and entry.table.stacks is not None
    page = page_of(ann, entry.table)
    assert parent_link(page) == (reverse("tournament", args=[tournament.pk]), "Банк на троих")
    assert config_of(page)["one_game"] is True
    assert "Пригласить друга" not in page


def test_an_ordinary_tables_page_is_unchanged(make_user):
    host = make_user("host")
    table = table_services.table_create(
        created_by=host, variant="blackjack", name="Свой", private=True
    )
    page = page_of(host, table)
    assert parent_link(page) is None and 'data-link="parent"' not in page
    assert config_of(page)["one_game"] is False
    assert config_of(page)["coach_url"] is not None
    assert "Пригласить друга" in page


def test_nobody_is_invited_to_a_tournaments_table(make_user):
    _tournament, vera, table = heat_table(make_user)
    with pytest.raises(PeopleError) as refused:
        invite_send(sender=vera, recipient=make_user("fay"), table=table)
    assert refused.value.code == "not_at_table"
    assert "турнирный стол" in str(refused.value)


@pytest.mark.parametrize(
    "path", ["//evil.example/", "https://evil.example/", "/\\evil.example", "/a b", "rel/"]
)
def test_a_tables_parent_page_is_a_path_on_this_site(path):
    table = Table(variant="blackjack", name="x", parent_path=path, parent_label="Событие")
    with pytest.raises(ValidationError) as refused:
        table.full_clean()
    assert "parent_path" in refused.value.message_dict


def test_a_tables_parent_page_needs_its_path_and_its_label_together():
    for fields in ({"parent_path": "/tournaments/1/"}, {"parent_label": "Событие"}):
        with pytest.raises(ValidationError):
            Table(variant="blackjack", name="x", **fields).full_clean()
    Table(
        variant="blackjack", name="x", parent_path="/tournaments/1/", parent_label="Событие"
    ).full_clean()
