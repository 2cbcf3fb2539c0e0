"""The channel layer does not lose a message when the consumer fetching it stops.

On real Redis. The pop's second round trip (the backup ZADD) is slowed so that the
receiver can be cancelled inside it every time, instead of one time in many."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from channels_redis.core import RedisChannelLayer as UpstreamLayer
from redis.exceptions import ConnectionError as RedisConnectionError

from config.channel_layer import RedisChannelLayer, RedisPubSubChannelLayer

pytestmark = [pytest.mark.services, pytest.mark.asyncio]


async def _frame_for_b_while_a_stops(layer: Any) -> dict[str, Any] | None:
    """Consumer A holds the process's receive lock when a frame for consumer B arrives,
    and A's consumer stops while it is backing that frame up. What does B receive?"""
    connection = layer.connection(0)
    backing_up = asyncio.Event()
    zadd = connection.zadd

    async def slow_zadd(*args: Any, **kwargs: Any) -> Any:
        backing_up.set()
        await asyncio.sleep(0.05)
        return await zadd(*args, **kwargs)

    connection.zadd = slow_zadd
    a, b = await layer.new_channel(), await layer.new_channel()
    receiving_a = asyncio.ensure_future(layer.receive(a))
    await asyncio.sleep(0.05)  # A takes the lock and waits in Redis
    receiving_b = asyncio.ensure_future(layer.receive(b))
    await asyncio.sleep(0.05)
    try:
        await layer.send(b, {"type": "table.frame", "n": 1})
        await backing_up.wait()
        receiving_a.cancel()
        try:
            return await asyncio.wait_for(receiving_b, 2)
        except TimeoutError:
            return None
    finally:
        receiving_a.cancel()
        await asyncio.gather(receiving_a, return_exceptions=True)
        await layer.flush()


async def test_a_frame_popped_by_a_stopping_consumer_reaches_its_channel(redis_url):
    layer = RedisChannelLayer(hosts=[redis_url])
    assert await _frame_for_b_while_a_stops(layer) == {"type": "table.frame", "n": 1}


async def test_upstream_channels_redis_still_loses_it(redis_url):
    """Why config.channel_layer exists. When this fails, channels_redis has fixed the race
    and our subclass can go."""
    layer = UpstreamLayer(hosts=[redis_url])
    layer.brpop_timeout = 1
    assert await _frame_for_b_while_a_stops(layer) is None


async def test_group_size_counts_the_channels_of_every_process_in_a_group(redis_url):
    one, other = RedisChannelLayer(hosts=[redis_url]), RedisChannelLayer(hosts=[redis_url])
    try:
        assert await one.group_size("lobby-size") == 0
        await one.group_add("lobby-size", await one.new_channel())
        await other.group_add("lobby-size", await other.new_channel())
        assert await one.group_size("lobby-size") == 2
        assert await other.group_size("another-group") == 0
    finally:
        await one.flush()


# --- the pub/sub layer (the default, CHANNEL_LAYER=pubsub) -------------------------------


async def test_the_pubsub_layer_says_whether_anyone_of_any_process_is_in_a_group(redis_url):
    one = RedisPubSubChannelLayer(hosts=[redis_url], prefix="size-test")
    other = RedisPubSubChannelLayer(hosts=[redis_url], prefix="size-test")
    try:
        assert await one.group_size("lobby-size") == 0
        await other.group_add("lobby-size", await other.new_channel())
        assert await one.group_size("lobby-size") >= 1
        assert await one.group_size("another-group") == 0
    finally:
        await one.flush()
        await other.flush()


async def test_a_lost_redis_connection_fails_every_receiver_and_later_channels_work(redis_url):
    """Upstream logs a broken subscription and carries on: whatever was published in
    between is lost without a receiver knowing. Ours fails every receiver of the process
    (their consumers end, the sockets close, the clients resync), and the next consumer
    subscribes afresh."""
    layer = RedisPubSubChannelLayer(hosts=[redis_url], prefix="lost-test")
    try:
        a, b = await layer.new_channel(), await layer.new_channel()
        await layer.group_add("table-lost", a)
        receiving = [asyncio.ensure_future(layer.receive(c)) for c in (a, b)]
        await asyncio.sleep(0.05)
        shard = layer._get_layer()._shards[0]
        pubsub = shard._pubsub

        async def broken(*args: Any, **kwargs: Any) -> Any:
            raise RedisConnectionError("Connection closed by server.")

        pubsub.get_message = broken
        for receiver in receiving:
            with pytest.raises(RedisConnectionError):
                await asyncio.wait_for(receiver, 3)
        assert shard._pubsub is not pubsub  # a fresh subscription for what comes next
        c = await layer.new_channel()
        await layer.group_add("table-lost", c)
        await layer.group_send("table-lost", {"type": "table.frame", "n": 2})
        assert await asyncio.wait_for(layer.receive(c), 3) == {"type": "table.frame", "n": 2}
    finally:
        await layer.flush()
