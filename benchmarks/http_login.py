"""Signing a player in through the real /login/ form over plain HTTP: the session cookie
a WebSocket client then sends. Shared by `make bench-live` and the integration tests."""

from __future__ import annotations

import http.client
import re
from http.cookies import SimpleCookie
from urllib.parse import urlencode


def http_request(
    port: int,
    method: str,
    path: str,
    body: str | None = None,
    headers: dict[str, str] | None = None,
    *,
    timeout: float = 10.0,
) -> tuple[int, str, dict[str, str]]:
    """(status, body text, cookies set) of one request to 127.0.0.1:port."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        text = response.read().decode("utf-8", errors="replace")
        cookies: dict[str, str] = {}
        for header in response.headers.get_all("Set-Cookie") or []:
            jar: SimpleCookie = SimpleCookie()
            jar.load(header)
            cookies.update({name: morsel.value for name, morsel in jar.items()})
        return response.status, text, cookies
    finally:
        conn.close()


def sign_in(port: int, username: str, password: str, *, timeout: float = 10.0) -> str:
    """GET /login/ for the CSRF cookie and token, POST the form; `sessionid=<key>`."""
    status, page, cookies = http_request(port, "GET", "/login/", timeout=timeout)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    if status != 200 or not token or "csrftoken" not in cookies:
        raise RuntimeError(f"GET /login/ answered {status} without a CSRF token")
    form = {"csrfmiddlewaretoken": token.group(1), "username": username, "password": password}
    status, _page, answer = http_request(
        port,
        "POST",
        "/login/",
        body=urlencode(form),
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={cookies['csrftoken']}",
        },
        timeout=timeout,
    )
    if status != 302 or not answer.get("sessionid"):
        raise RuntimeError(f"{username} was not signed in: HTTP {status}")
    return f"sessionid={answer['sessionid']}"
