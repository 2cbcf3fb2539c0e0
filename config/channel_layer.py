"""The Redis channel layers, with two ways channels_redis (4.3.0) loses messages closed.

This module is the one place that touches channels_redis's private code, and the smallest
patch that closes them: channels_redis has no working hook for either. What it relies on —
core: `receive_single`, `receive_buffer`, `client_prefix`, `_group_key`; pubsub:
`_get_layer`, `_layers`, `_args`, `_kwargs`, `utils._wrap_close`, `RedisPubSubLoopLayer`
(`_shards`, `channels`, `groups`, `_subscribe_to_channel`, `_get_shard`,
`_get_group_channel_name`) and `RedisSingleShardConnection` (`_do_receiving`, `_pubsub`,
`_redis`, `_subscribed_to`, `_receive_message`, `_ensure_redis`) — is pinned to the
version it was read from by tests/config/test_channel_layer_version.py, which fails
when channels_redis changes, so that the patch is re-read against the new release.

The core layer: a pop cancelled halfway.

channels_redis reads a whole web process's messages through one Redis queue. Whichever
consumer of the process holds its receive lock pops the next message (BZPOPMIN), backs it
up (ZADD) and files it in the buffer of the channel it is for — usually another consumer's.
When the lock holder is cancelled in between (its consumer is stopping: the socket closed),
the popped message is in neither the queue, the backup nor a buffer: another player's frame
is lost. A drop of one player's socket while the table announced it to the others lost
exactly that announcement (tests/integration/test_live_processes.py; the pop is channels_redis
4.3's `receive_single`; upstream: django/channels_redis#366 and #151, a receive cancelled
between the pop and its backup; tests/config/test_channel_layer.py shows 4.3.0 still
loses it).

Here the pop runs in a task of its own that the consumer's cancellation does not reach:
the consumer stops at once, and the message it was fetching for another channel is filed
in that channel's buffer when the pop completes. While the orphaned pop is in flight it
holds the queue's clean lock, so the next pop starts after it and order is kept. That next
pop may already be blocked in Redis on behalf of the very channel the message was filed
for, and would not look at the buffer until it pops something: a wake-up message on a
channel nobody reads makes it return and look.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from channels.exceptions import ChannelFull
from channels_redis import core, pubsub, utils
from redis.exceptions import ConnectionError as RedisConnectionError

logger = logging.getLogger(__name__)


class RedisChannelLayer(core.RedisChannelLayer):  # type: ignore[misc]
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._wakers: set[asyncio.Future[None]] = set()

    async def group_size(self, group: str) -> int:
        """How many channels — of every web process — are in `group` now, counted as
        group_send counts them (memberships older than the group expiry are gone)."""
        key = self._group_key(group)
        connection = self.connection(self.consistent_hash(group))
        return int(await connection.zcount(key, int(time.time()) - self.group_expiry, "+inf"))

    @property
    def _wake_channel(self) -> str:
        return f"specific.{self.client_prefix}!wake"

    async def receive_single(self, channel: str) -> tuple[Any, dict[str, Any]]:
        if "!" not in channel:  # a plain channel: its cancelled reader was its only reader
            return await super().receive_single(channel)  # type: ignore[no-any-return]
        popping = asyncio.ensure_future(super().receive_single(channel))
        try:
            return await asyncio.shield(popping)
        except asyncio.CancelledError:
            popping.add_done_callback(self._file_orphan)
            raise

    def _file_orphan(self, popping: asyncio.Future[tuple[Any, dict[str, Any]]]) -> None:
        """A pop whose receiver was cancelled: file its message as the receiver would have,
        and wake whoever now waits in Redis."""
        if popping.cancelled() or popping.exception() is not None:
            return  # nothing was taken off the queue (a failed pop leaves it there)
        channels, message = popping.result()
        for name in channels if isinstance(channels, list) else [channels]:
            self.receive_buffer[name].put_nowait(message)
        self.receive_buffer.pop(self._wake_channel, None)  # earlier wake-ups, never read
        waking = asyncio.ensure_future(self._wake())
        self._wakers.add(waking)
        waking.add_done_callback(self._wakers.discard)

    async def _wake(self) -> None:
        try:
            await self.send(self._wake_channel, {"type": "layer.wake"})
        except ChannelFull:
            pass  # a full queue is being popped: its reader returns soon anyway
        except Exception:  # Redis gone: the blocked pop fails too, and its consumer with it
            logger.warning("could not wake the channel layer's reader", exc_info=True)


class RedisPubSubChannelLayer(pubsub.RedisPubSubChannelLayer):  # type: ignore[misc]
    """channels_redis's Redis PUBLISH/SUBSCRIBE layer, with two things of ours.

    - Losing Redis ends every consumer of the process, as the core layer does. Upstream
      logs the broken subscription and subscribes again once Redis is back, and what
      was published meanwhile is gone without anyone knowing (django/channels_redis#256):
      a player whose last frame was lost would look at it until the table next changed.
      The layer's documented answer, the `on_disconnect` option (django/channels_redis
      #259), is accepted by 4.3.0 but never acted on: its receive loop does not call it.
      Here every receiver of the process fails at once (its consumer ends, daphne closes
      the socket with 1011), so the clients reconnect and are sent a snapshot
      (docs/deployment.md, "What failures look like to players";
      tests/integration/test_faults.py).
    - `group_size`, which the lobby asks before it builds a diff (lobby.broadcast)."""

    def _get_layer(self) -> Any:
        loop = asyncio.get_running_loop()
        layer = self._layers.get(loop)
        if layer is None:
            layer = self._layers[loop] = _LoopLayer(*self._args, **self._kwargs, channel_layer=self)
            utils._wrap_close(self, loop)
        return layer

    async def group_size(self, group: str) -> int:
        """How many web processes have a channel in `group` now: each process subscribes
        to a group's Redis channel once, however many of its sockets are in it. (Zero
        exactly when nobody is in the group, which is what the lobby asks.)"""
        layer = self._get_layer()
        name = layer._get_group_channel_name(group)
        shard = layer._get_shard(name)
        shard._ensure_redis()
        counts = await shard._redis.pubsub_numsub(name)
        return int(counts[0][1]) if counts else 0


class _LoopLayer(pubsub.RedisPubSubLoopLayer):  # type: ignore[misc]
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shards = [_Shard(shard.host, self) for shard in self._shards]

    def connection_lost(self, error: BaseException) -> None:
        """Every channel of this process fails its receiver; the groups go with them."""
        for queue in self.channels.values():
            queue.put_nowait(_Lost(error))
        self.channels = {}
        self.groups = {}

    async def receive(self, channel: str) -> Any:
        if channel not in self.channels:
            await self._subscribe_to_channel(channel)
        queue = self.channels[channel]
        try:
            message = await queue.get()
        except (asyncio.CancelledError, TimeoutError, GeneratorExit):
            # As upstream: the consumer is stopping; its channel goes.
            if self.channels.get(channel) is queue:
                del self.channels[channel]
                with contextlib.suppress(Exception):
                    await self._get_shard(channel).unsubscribe(channel)
            raise
        if isinstance(message, _Lost):
            raise RedisConnectionError("the channel layer lost Redis") from message.error
        return self.channel_layer.deserialize(message)


class _Shard(pubsub.RedisSingleShardConnection):  # type: ignore[misc]
    async def _do_receiving(self) -> None:
        while True:
            try:
                if self._pubsub and self._pubsub.subscribed:
                    message = await self._pubsub.get_message(
                        ignore_subscribe_messages=True, timeout=0.1
                    )
                    self._receive_message(message)
                else:
                    await asyncio.sleep(0.1)
            except (asyncio.CancelledError, TimeoutError, GeneratorExit):
                raise
            except (RedisConnectionError, OSError) as error:
                logger.warning("the channel layer lost Redis: ending this process's receivers")
                await self._forget_subscriptions()
                self.channel_layer.connection_lost(error)
                await asyncio.sleep(0.5)
            except Exception:
                logger.exception("unexpected error in the channel layer's receive task")
                await asyncio.sleep(1)

    async def _forget_subscriptions(self) -> None:
        """A fresh subscription object: the next consumer subscribes anew once Redis is
        back, and the broken one is not resubscribed to channels nobody reads."""
        old, self._pubsub = self._pubsub, None
        self._subscribed_to = set()
        if old is not None:
            with contextlib.suppress(Exception):
                await old.aclose()
        if self._redis is not None:
            self._pubsub = self._redis.pubsub()


class _Lost:
    """Put in a channel's queue when the pub/sub connection to Redis broke."""

    def __init__(self, error: BaseException) -> None:
        self.error = error
