"""docs/asyncapi.yaml and docs/openapi.yaml: what the code generates (contract.spec), valid
documents of their kinds, and in step with docs/protocol.md's tables."""

from __future__ import annotations

import json
import re
import sys
import typing
from pathlib import Path

import jsonschema
import pytest
import yaml
from openapi_spec_validator import validate as validate_openapi

from contract import spec
from contract.codes import CLOSE_CODES, ERROR_CODES, LIMITS, LimitKey

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
# AsyncAPI's JSON Schema of 3.0.0, fetched by `make install` (scripts/asyncapi_schema.py).
ASYNCAPI_SCHEMA = Path(sys.prefix) / "share" / "asyncapi" / "3.0.0.json"


@pytest.mark.parametrize(
    ("path", "build"), [(spec.ASYNCAPI, spec.asyncapi), (spec.OPENAPI, spec.openapi)]
)
def test_the_committed_spec_is_what_the_definitions_generate(path, build):
    assert path.read_text(encoding="utf-8") == spec.as_yaml(build()), (
        f"{path.name} is out of date: run `make spec`"
    )


def test_the_asyncapi_spec_is_valid_asyncapi_3():
    assert ASYNCAPI_SCHEMA.exists(), f"{ASYNCAPI_SCHEMA} is missing: run `make install`"
    schema = json.loads(ASYNCAPI_SCHEMA.read_text(encoding="utf-8"))
    document = yaml.safe_load(spec.ASYNCAPI.read_text(encoding="utf-8"))
    errors = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}"
        for e in jsonschema.Draft7Validator(schema).iter_errors(document)
    ]
    assert errors == []


def test_the_asyncapi_validator_would_see_a_broken_document():
    schema = json.loads(ASYNCAPI_SCHEMA.read_text(encoding="utf-8"))
    document = yaml.safe_load(spec.ASYNCAPI.read_text(encoding="utf-8"))
    document["channels"]["table"]["address"] = 5
    del document["operations"]["table_send"]["action"]
    assert len(list(jsonschema.Draft7Validator(schema).iter_errors(document))) >= 2


def test_the_openapi_spec_is_valid_openapi_3_1():
    validate_openapi(yaml.safe_load(spec.OPENAPI.read_text(encoding="utf-8")))


def _codes_of_the_table(heading: str) -> list[str]:
    """The first column of the table under `heading` in docs/protocol.md."""
    section = PROTOCOL[PROTOCOL.index(heading) :]
    rows = re.findall(r"^\| `([^|]+)` \|", section[: section.index("\n## ", 1)], re.M)
    codes = []
    for row in rows:
        codes.extend(code.strip("` ") for code in row.split(","))
    return codes


def test_the_error_codes_are_those_docs_protocol_lists():
    assert sorted(_codes_of_the_table("## 13. Error codes")) == sorted(ERROR_CODES)


def test_the_limit_keys_are_those_docs_protocol_lists():
    section = PROTOCOL[PROTOCOL.index("## 3. Limits") :]
    section = section[: section.index("\n## ", 1)]
    listed = re.findall(r"^\| [^|]+ \| `([a-z_]+)` \|", section, re.M)
    assert sorted(listed) == sorted(LIMITS) == sorted(typing.get_args(LimitKey))


def test_the_close_codes_are_those_docs_protocol_lists():
    section = PROTOCOL[PROTOCOL.index("Close codes the server uses:") :]
    listed = re.findall(r"^\| (\d{4}) \|", section[: section.index("\n\n(")], re.M)
    assert sorted(map(int, listed)) == sorted(CLOSE_CODES)


def test_every_socket_message_and_endpoint_is_in_the_specs():
    asyncapi = yaml.safe_load(spec.ASYNCAPI.read_text(encoding="utf-8"))
    listed = {
        (message["name"], key.split("_")[1])
        for key, message in asyncapi["components"]["messages"].items()
    }
    assert listed == {(m.name, m.direction) for m in spec.socket_messages()}
    openapi = yaml.safe_load(spec.OPENAPI.read_text(encoding="utf-8"))
    operations = {(path, method) for path, ops in openapi["paths"].items() for method in ops}
    assert operations == {(e.path, e.method) for e in spec.endpoints()}
