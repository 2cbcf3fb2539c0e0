"""Delivering a decided notice (push.models.Notice) to each of its player's browsers:
encrypted for the subscription and signed with the site's VAPID key by pywebpush, with a
time-to-live of what is left of the news (the decision's clock, the minutes before the
start), and the table's `Topic`, so that the push service replaces an undelivered older
one of the same table.

The payload, the JSON the service worker (templates/push/sw.js) shows, is exactly
`{"title", "body", "url", "tag"}` (docs/protocol.md, «Web Push (HTTP)»), in the language
the player subscribed in. A subscription the push service answers 404 or 410 for is gone
(the browser dropped it, or the player revoked the permission): it is deleted. Any other
failure is logged and not retried: a late «Ваш ход» is worse than none.
"""

from __future__ import annotations

import datetime
import logging
from typing import Any

import msgspec
import requests
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

from contract.http import PushPayload
from push.models import Notice, Subscription

logger = logging.getLogger(__name__)

# How long one push service may take to answer before the delivery gives up on it.
SEND_TIMEOUT_SECONDS = 10
# Gone for good (RFC 8030 §7.3 / the services' practice): delete the subscription.
GONE = (404, 410)


def payload(notice: Notice) -> PushPayload:
    """The notification's JSON, in the active language."""
    context: dict[str, Any] = notice.context
    if notice.kind == Notice.Kind.TOURNAMENT_SOON:
        minutes = int(context.get("minutes", 5))
        title = ngettext(
            "Турнир начинается через %(n)d минуту",
            "Турнир начинается через %(n)d минут",
            minutes,
        ) % {"n": minutes}
        body = context.get("event", "")
    elif notice.kind == Notice.Kind.TABLE_READY:
        title = _("Ваш стол готов")
        body = _("«%(event)s»: ваш стол готов, игра начинается.") % {
            "event": context.get("event", "")
        }
    else:
        title = _("Ваш ход")
        body = _("Стол «%(table)s» ждёт вашего решения.") % {"table": context.get("table", "")}
    return PushPayload(title=title, body=body, url=notice.url, tag=notice.tag)


def notice_deliver(*, notice_id: int, now: datetime.datetime) -> int:
    """Send a notice to each subscription of its player; the number delivered. Nothing
    when the news is stale (its time-to-live is over, or the player looked at the table
    since)."""
    notice = Notice.objects.filter(pk=notice_id).first()
    if notice is None:
        return 0
    ttl = int((notice.open_until - now).total_seconds())
    if ttl <= 0:
        return 0
    key = Vapid.from_string(private_key=settings.WEBPUSH_VAPID_PRIVATE_KEY)
    delivered = 0
    for subscription in Subscription.objects.filter(user_id=notice.user_id):
        with translation.override(subscription.language):
            data = msgspec.json.encode(payload(notice)).decode()
        if _send(subscription, data, key, ttl, notice.tag):
            Subscription.objects.filter(pk=subscription.pk).update(last_success_at=now)
            delivered += 1
    return delivered


def _send(subscription: Subscription, data: str, key: Vapid, ttl: int, topic: str) -> bool:
    try:
        webpush(
            subscription_info={
                "endpoint": subscription.endpoint,
                "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
            },
            data=data,
            vapid_private_key=key,
            # A fresh dict each time: pywebpush writes the endpoint's audience into it.
            vapid_claims={"sub": settings.WEBPUSH_VAPID_SUBJECT},
            ttl=ttl,
            timeout=SEND_TIMEOUT_SECONDS,
            headers={"Topic": topic, "Urgency": "high"},
        )
    except WebPushException as error:
        status = getattr(error.response, "status_code", None)
        if status in GONE:
            Subscription.objects.filter(pk=subscription.pk).delete()
            logger.info("push subscription %s gone (%s): deleted", subscription.pk, status)
        else:
            logger.warning("push to subscription %s failed: %s", subscription.pk, status)
        return False
    except (requests.RequestException, ValueError) as error:
        # Unreachable, timed out, or keys the encryption refuses: this one is skipped.
        logger.warning("push to subscription %s failed: %r", subscription.pk, error)
        return False
    return True
