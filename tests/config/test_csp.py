"""Every page carries the strict Content-Security-Policy (django-csp, config/settings.py).

The browser side (no violation reported while the pages load, WebSockets allowed under
connect-src 'self') is checked in tests/e2e.
"""

from __future__ import annotations

import re

import pytest

EXPECTED = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "font-src": ["'self'"],
    "manifest-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}

ANONYMOUS_PAGES = ["/", "/login/", "/signup/", "/admin/login/", "/password/reset/"]
SIGNED_IN_PAGES = ["/", "/chips/", "/password/change/"]


def parse(header: str) -> dict[str, list[str]]:
    directives: dict[str, list[str]] = {}
    for part in header.split(";"):
        name, *values = part.split()
        assert name not in directives, f"{name} twice"
        directives[name] = values
    return directives


def check(header: str | None) -> None:
    assert header, "no Content-Security-Policy header"
    assert "unsafe-inline" not in header and "unsafe-eval" not in header, header
    assert not re.search(r"https?:", header), f"an http(s) origin in {header!r}"
    assert "*" not in header, header
    assert parse(header) == EXPECTED


@pytest.mark.django_db
@pytest.mark.parametrize("path", ANONYMOUS_PAGES)
def test_anonymous_pages_carry_the_strict_policy(client, path):
    response = client.get(path)
    assert response.status_code == 200, path
    check(response.headers.get("Content-Security-Policy"))


@pytest.mark.parametrize("path", SIGNED_IN_PAGES)
def test_signed_in_pages_carry_the_strict_policy(client, make_user, path):
    client.force_login(make_user())
    response = client.get(path)
    assert response.status_code == 200, path
    check(response.headers.get("Content-Security-Policy"))


def test_redirects_and_form_errors_carry_it_too(client, db):
    assert client.get("/chips/").status_code == 302  # to the login page
    check(client.get("/chips/").headers.get("Content-Security-Policy"))
    answer = client.post("/login/", {"username": "nobody", "password": "wrong"})
    assert answer.status_code == 200
    check(answer.headers.get("Content-Security-Policy"))


def test_the_templates_have_no_inline_script_style_or_handler():
    # The policy would block them: scripts and styles belong in static files.
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "templates"
    inline = re.compile(r"<script(?![^>]*\bsrc=)|<style|\sstyle=|\son[a-z]+=|javascript:", re.I)
    offenders = [
        f"{path.relative_to(root)}: {match.group(0).strip()}"
        for path in sorted(root.rglob("*.html"))
        for match in inline.finditer(path.read_text())
    ]
    assert offenders == []
