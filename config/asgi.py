"""ASGI entry point: HTTP goes to Django; WebSockets through an origin check
(config/origin.py) and session auth, or a personal access token
(config/bearer.py).

Served by daphne: `daphne config.asgi:application`.
"""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Set up Django (apps, settings) before anything imports models.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from config.bearer import BearerSockets  # noqa: E402
from config.health import HealthCheckMiddleware  # noqa: E402
from config.origin import SameOriginValidator  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402
from play.clock.ticker import StartTickerMiddleware  # noqa: E402
from play.edge.sockets import ClosesOnDatabaseFaults  # noqa: E402

application = StartTickerMiddleware(
    ProtocolTypeRouter(
        {
            "http": HealthCheckMiddleware(django_asgi_app),
            "websocket": SameOriginValidator(
                ClosesOnDatabaseFaults(
                    AuthMiddlewareStack(BearerSockets(URLRouter(websocket_urlpatterns)))
                )
            ),
        }
    )
)

# The garbage collector of a web process (make bench-live, 400 players; docs/decisions.md).
# Everything loaded at startup (Django, the apps, their modules: some 110,000 objects) is
# moved out of the collector's reach — it lives as long as the process — and young
# objects are collected after 20,000 allocations rather than 700. With the defaults, a
# full collection stopped the process for 160–200 ms every 5–10 s, and every socket's
# frames waited behind it; objects that live for one command (a query's rows, a frame)
# were carried into the older generations and made those collections both more frequent
# and longer.
GC_THRESHOLDS = (20_000, 20, 10)
gc.collect()
gc.freeze()
gc.set_threshold(*GC_THRESHOLDS)
