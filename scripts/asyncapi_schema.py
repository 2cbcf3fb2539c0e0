"""Fetch AsyncAPI's own JSON Schema of AsyncAPI 3.0.0 into the virtualenv, for the test
that validates docs/asyncapi.yaml (tests/contract/test_spec.py). It comes from the npm
registry's @asyncapi/specs package (AsyncAPI's published schemas), pinned and checked
against the registry's integrity hash, as a lock pins a wheel; nothing of it is
committed.

    python scripts/asyncapi_schema.py DESTINATION
"""

from __future__ import annotations

import base64
import hashlib
import io
import sys
import tarfile
import urllib.request
from pathlib import Path

PACKAGE = "https://registry.npmjs.org/@asyncapi/specs/-/specs-6.11.1.tgz"
INTEGRITY = (
    "sha512-"
    "A3WBLqAKGoJ2+6FWFtpjBlCQ1oFCcs4GxF7zsIGvNqp/klGUHjlA3aAcZ9XMMpLGE8zPeYDz2x9FmO6DSuKraQ=="
)
MEMBER = "package/schemas/3.0.0-without-$id.json"


def main() -> None:
    destination = Path(sys.argv[1])
    with urllib.request.urlopen(PACKAGE, timeout=60) as answer:
        data = answer.read()
    digest = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    if digest != INTEGRITY:
        sys.exit(f"{PACKAGE}: integrity {digest} is not the pinned {INTEGRITY}")
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        member = archive.extractfile(MEMBER)
        if member is None:
            sys.exit(f"{PACKAGE} has no {MEMBER}")
        schema = member.read()
    destination.parent.mkdir(parents=True, exist_ok=True)
    destination.write_bytes(schema)


if __name__ == "__main__":
    main()
