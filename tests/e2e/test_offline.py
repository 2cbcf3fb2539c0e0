"""The service worker in a real browser: every page registers it (scope /), and once it is
installed a page that cannot be reached shows the offline page it kept."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import Console

pytestmark = pytest.mark.e2e


def test_the_service_worker_registers_and_shows_the_offline_page_without_a_network(
    daphne_server: Any, page: Any, console: Console
) -> None:
    page.goto("/rules/")
    scope = page.evaluate(
        "navigator.serviceWorker.ready.then((registration) => registration.scope)"
    )
    assert scope == f"{daphne_server.url}/"
    # Installed: its cache holds the offline page.
    page.wait_for_function(
        "caches.keys().then((names) => Promise.all(names.map((n) => caches.open(n)"
        ".then((c) => c.match('/offline/'))))).then((found) => found.some(Boolean))"
    )
    page.context.set_offline(True)
    try:
        page.goto("/tournaments/")
        assert page.locator("h1").inner_text() == "Нет связи с сервером"
    finally:
        page.context.set_offline(False)
    console.take()  # the offline navigation's own failure is what was tested
