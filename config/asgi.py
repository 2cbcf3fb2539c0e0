"""ASGI entry point: HTTP goes to Django; WebSockets through an origin check
(config/origin.py) and session auth.

Served by daphne: `daphne config.asgi:application`.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Set up Django (apps, settings) before anything imports models.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from config.health import HealthCheckMiddleware  # noqa: E402
from config.origin import SameOriginValidator  # noqa: E402
from tables.routing import websocket_urlpatterns  # noqa: E402
from tables.ticker import StartTickerMiddleware  # noqa: E402

application = StartTickerMiddleware(
    ProtocolTypeRouter(
        {
            "http": HealthCheckMiddleware(django_asgi_app),
            "websocket": SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
        }
    )
)
