"""The repository is self-contained: every document it cites is in it, and no file names
a path that exists only on one developer's machine.

Both rules read every tracked text file (`git ls-files`; binary files are skipped):

- a citation of a Markdown document under `docs/`, `rules/` or `specs/` names a file
  that exists, resolved from the repository's root (`docs/rules/classic.md §2.5`), and
  a Markdown link in a `.md` file (`[glossary](../glossary.md)`) names one that exists,
  resolved from the linking file's folder;
- no file holds an absolute path into a user's home or a checkout's location on one
  machine. URL paths (`/ws/tables/`, `/players/<name>/`) and the container's own paths
  (`/app`, `/tmp/…` in the Dockerfile and compose file) are part of the product, not of
  a machine, and pass.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# A cited document: a path from the root under docs/, rules/ or specs/, ending in .md.
# It must start where a path starts (not inside another path or a URL), and stop at .md.
CITATION = re.compile(r"(?<![\w./-])((?:docs|rules|specs)/(?:[\w.-]+/)*[\w.-]+\.md)(?![\w-])")
# A Markdown link to a local .md file (an anchor after it is allowed, a URL is not a file).
MD_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:)([^)\s#]+\.md)(?:#[^)\s]*)?\)")
# A path on one machine: a user's home (Linux, macOS), the root user's home, the folder
# the checkouts live in, or a Windows drive. The alternatives are spelled with a
# one-letter class so that this file does not match itself. Not inside another path or
# a URL: "https://example.org/home/x" and "static/home/x" pass.
MACHINE_PATH = re.compile(
    r"(?<![\w.~-])(?<![\w.~-]/)/(?:ho[m]e|User[s])/[\w.-]+"
    r"|(?<![\w.~-])(?<![\w.~-]/)/(?:roo[t]|wor[k])\b"
    r"|(?<![\w\\])[A-Z]:(?:\\{1,2}[\w.-]+)+"
)


def _tracked_files() -> list[str]:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    names = [name for name in listed.decode("utf-8").split("\0") if name]
    return [name for name in names if not name.startswith(".venv/")]


def _text_lines(name: str) -> list[str] | None:
    """The file's lines, or None for a binary file (or one deleted but still tracked)."""
    try:
        data = (ROOT / name).read_bytes()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return None


def _lines() -> Iterator[tuple[str, int, str]]:
    for name in _tracked_files():
        lines = _text_lines(name)
        for number, line in enumerate(lines or (), start=1):
            yield name, number, line


def missing_documents(lines: Iterator[tuple[str, int, str]]) -> list[str]:
    """`file:line: reference` for every cited document that is not in the repository."""
    missing = []
    for name, number, line in lines:
        links = list(MD_LINK.finditer(line)) if name.endswith(".md") else []
        # A link's target is relative to the linking file, not to the root.
        targets = [range(*link.span(1)) for link in links]
        for match in CITATION.finditer(line):
            if any(match.start(1) in target for target in targets):
                continue
            if not (ROOT / match.group(1)).is_file():
                missing.append(f"{name}:{number}: {match.group(1)}")
        for link in links:
            if not ((ROOT / name).parent / link.group(1)).resolve().is_file():
                missing.append(f"{name}:{number}: {link.group(1)} (a link)")
    return missing


def machine_paths(lines: Iterator[tuple[str, int, str]]) -> list[str]:
    """`file:line: path` for every absolute path on one machine."""
    return [
        f"{name}:{number}: {match.group(0)}"
        for name, number, line in lines
        for match in MACHINE_PATH.finditer(line)
    ]


def test_every_cited_document_is_in_the_repository():
    missing = missing_documents(_lines())
    assert not missing, "cited documents that are not in the repository:\n" + "\n".join(missing)


def test_no_file_names_a_path_on_a_developers_machine():
    found = machine_paths(_lines())
    assert not found, "absolute paths of one machine:\n" + "\n".join(found)


def test_the_rules_tell_citations_and_machine_paths_from_the_rest():
    # The samples that the rules must flag (and the names of documents that do not exist)
    # are put together here, so that this file, which the rules read too, holds none whole.
    gone, old_rules, old_spec = "docs/" + "no-such.md", "rules/" + "classic.md", "specs/" + "x.md"
    rules_page, docs_page = "docs/rules/" + "x.md", "docs/" + "x.md"
    home, users, checkout = "/" + "home/ann", "/" + "Users/ann", "/" + "work"
    cited = [
        ("x.py", 1, f"see docs/rules/classic.md §2.5 and {gone}"),
        ("x.py", 2, f"{old_rules}, {old_spec}, templates/rules/base.html"),
        ("x.py", 3, "docs/rules/<key>.md is a pattern; https://example.org/docs/x.md a URL"),
        (rules_page, 4, "[glossary](../glossary.md), [gone](../gone.md#top)"),
        (docs_page, 5, "[the rules](rules/" + "README.md), from docs/ itself"),
    ]
    assert missing_documents(iter(cited)) == [
        f"x.py:1: {gone}",
        f"x.py:2: {old_rules}",
        f"x.py:2: {old_spec}",
        f"{rules_page}:4: ../gone.md (a link)",
    ]
    samples = [
        ("a", 1, f"open('{home}/src/x')"),
        ("a", 2, f"# see {users}/projects/x"),
        ("a", 3, f"cd {checkout}/main && make"),
        ("a", 4, "C:" + "\\" + "Users" + "\\" + "ann"),
        ("a", 5, "file://" + home + "/x"),
        ("b", 1, "/ws/tables/12/ and /players/ann/ and /rules/solo/"),
        ("b", 2, "WORKDIR /app; --schedule /tmp/celerybeat-schedule"),
        ("b", 3, "https://example.org" + home + "/ and static" + home + "/x"),
        ("b", 4, r're.match(r"\d:\d\d", text)'),
    ]
    flagged = [":".join(entry.split(":")[:2]) for entry in machine_paths(iter(samples))]
    assert flagged == ["a:1", "a:2", "a:3", "a:4", "a:5"]
