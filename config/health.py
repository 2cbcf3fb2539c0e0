"""GET /healthz for the container health check, answered before Django's middleware.

The check talks plain HTTP to 127.0.0.1 from inside the container, so it must not depend
on ALLOWED_HOSTS (the site's real host names) or on the HTTPS redirect.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from channels.db import database_sync_to_async
from django.db import connection

logger = logging.getLogger(__name__)

HEALTH_PATH = "/healthz"


@database_sync_to_async  # type: ignore[misc]
def _database_answers() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except Exception:
        logger.exception("health check: the database does not answer")
        return False


class HealthCheckMiddleware:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != HEALTH_PATH:
            await self.app(scope, receive, send)
            return
        ok = await _database_answers()
        body = json.dumps({"status": "ok" if ok else "database unavailable"}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 200 if ok else 503,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"cache-control", b"no-store"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
