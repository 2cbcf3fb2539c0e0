"""The variant and AI registries: mypy checks each registered module against its Protocol
(`games.variants.Variant`, `games.ai.AISeat`), so every module must be registered."""

from __future__ import annotations

import pkgutil

import pytest

import games.ai
import games.variants
from games import engine
from games.errors import BAD_RECORD, RulesError


def _modules(package: object) -> set[str]:
    path = package.__path__  # type: ignore[attr-defined]
    return {m.name for m in pkgutil.iter_modules(path) if not m.name.startswith("_")}


def test_every_variant_module_is_registered_and_so_checked_against_the_protocol():
    assert set(games.variants.VARIANTS) == _modules(games.variants)
    for key, variant in games.variants.VARIANTS.items():
        assert variant.__name__ == f"games.variants.{key}"  # type: ignore[attr-defined]


def test_the_variant_keys_keep_the_documents_order():
    assert engine.VARIANT_KEYS == ("classic", "salon", "solo", "banker36", "blackjack")


def test_every_ai_module_with_levels_is_registered_under_its_variant():
    ai_modules = _modules(games.ai) - {"charts"}  # the published charts are data, not a seat
    assert set(games.ai.AIS) == ai_modules
    assert set(games.ai.AIS) == set(engine.VARIANT_KEYS)
    assert {key: ai.LEVELS for key, ai in games.ai.AIS.items()} == games.ai.LEVELS


def test_an_unknown_variant_is_a_bad_record_naming_the_known_ones():
    with pytest.raises(RulesError) as caught:
        engine.find_variant("poker")
    assert caught.value.code == BAD_RECORD
    assert "classic, salon, solo, banker36, blackjack" in str(caught.value)
