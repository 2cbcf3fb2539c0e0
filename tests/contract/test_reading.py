"""contract.reading: what msgspec says of a message that does not fit, read into the
field and the reason. msgspec's sentences are read here only; these tests pin each form,
so that a release which words them otherwise fails here, not in a player's socket."""

from __future__ import annotations

import importlib.metadata

import pytest

from contract import table_in
from contract.reading import Problem, read


def test_the_sentences_read_are_msgspecs_of_the_pinned_minor_release():
    # pyproject.toml admits msgspec 0.19–0.23; a newer one is read here first.
    major, minor, *_ = importlib.metadata.version("msgspec").split(".")
    assert (int(major), int(minor)) <= (0, 23)


@pytest.mark.parametrize(
    ("message", "field", "reason", "expected", "got"),
    [
        ({"type": "remove_ai", "id": "a", "number": "3"}, "number", "type", "int", "str"),
        ({"type": "remove_ai", "id": "a", "number": True}, "number", "type", "int", "bool"),
        ({"type": "remove_ai", "id": "a", "number": 3.0}, "number", "type", "int", "float"),
        ({"type": "remove_ai", "id": "a", "number": None}, "number", "type", "int", "null"),
        ({"type": "remove_ai", "id": "a"}, "number", "missing", "", ""),
        ({"type": "remove_ai", "id": "a", "number": 3, "colour": 1}, "colour", "unknown", "", ""),
        ({"type": "remove_ai", "id": "a" * 65, "number": 3}, "id", "value", "", ""),
        ({"type": "remove_ai", "id": "a", "number": 3, "version": -1}, "version", "value", "", ""),
    ],
)
def test_a_message_that_does_not_fit_names_its_field_and_why(message, field, reason, expected, got):
    problem = read(message, table_in.RemoveAi)
    assert isinstance(problem, Problem)
    assert (problem.field, problem.reason, problem.expected, problem.got) == (
        field,
        reason,
        expected,
        got,
    )


def test_a_message_that_fits_is_read_with_absent_fields_unset():
    action = read({"type": "action", "id": "a", "action": "bet", "amount": 50}, table_in.Action)
    assert isinstance(action, table_in.Action)
    assert (action.action, action.amount) == ("bet", 50)
    assert action.position is table_in.UNSET and action.version is table_in.UNSET


def test_null_is_no_value_of_an_optional_field():
    problem = read({"type": "sit", "id": "a", "invite": None}, table_in.Sit)
    assert isinstance(problem, Problem)
    assert (problem.field, problem.reason, problem.got) == ("invite", "type", "null")


def test_every_command_of_the_socket_has_a_definition_and_no_definition_is_unused():
    from play.edge.consumers import TableConsumer

    # The consumer's own commands, and `chat`, which the chat extension serves.
    assert set(table_in.COMMANDS) == {*TableConsumer._COMMANDS, "chat"}
