"""With REDIS_URL the channel layer and Celery really use Redis (CI runs these)."""

from __future__ import annotations

import uuid

import pytest
from channels.layers import get_channel_layer
from django.conf import settings

pytestmark = pytest.mark.services


@pytest.mark.asyncio
async def test_redis_channel_layer_round_trips_a_message(redis_url):
    from config.channel_layer import RedisChannelLayer, RedisPubSubChannelLayer

    layer = get_channel_layer()
    chosen = {"pubsub": RedisPubSubChannelLayer, "core": RedisChannelLayer}
    assert isinstance(layer, chosen[settings.CHANNEL_LAYER])
    channel = await layer.new_channel()
    group = f"test-{uuid.uuid4().hex}"
    await layer.group_add(group, channel)
    try:
        await layer.send(channel, {"type": "direct", "n": 1})
        assert await layer.receive(channel) == {"type": "direct", "n": 1}
        await layer.group_send(group, {"type": "lobby.changed", "n": 2})
        assert await layer.receive(channel) == {"type": "lobby.changed", "n": 2}
    finally:
        await layer.group_discard(group, channel)


def test_celery_sends_the_sweep_task_to_the_redis_broker(redis_url):
    import redis

    from config.celery import app
    from play.tasks import sweep_deadlines

    assert app.conf.broker_url == settings.CELERY_BROKER_URL == redis_url
    assert not app.conf.task_always_eager
    queue = f"test-sweep-{uuid.uuid4().hex}"
    client = redis.Redis.from_url(redis_url)
    try:
        sweep_deadlines.apply_async(queue=queue)
        # kombu's Redis transport keeps a queue as a list under the queue's name.
        assert client.llen(queue) == 1
    finally:
        client.delete(queue)
        client.close()


@pytest.mark.django_db
def test_database_is_postgresql_in_services_mode(postgres):
    from django.db import connection

    assert connection.vendor == "postgresql"
    assert connection.settings_dict["NAME"].startswith("test_")
