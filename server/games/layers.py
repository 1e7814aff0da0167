"""The Redis channel layer with a bounded connection pool.

channels_redis builds a plain ``redis.asyncio.ConnectionPool``, which raises
``MaxConnectionsError: Too many connections`` as soon as more commands are in flight than its
``max_connections`` (100 by default in redis-py 8): a burst of moves, each with a
``group_send``, did that under load. Here the pool is a ``BlockingConnectionPool``: at most
``max_connections`` connections per event loop (``GAMENIGHT_REDIS_CONNECTIONS``), a caller
waits up to ``timeout`` seconds for a free one instead of failing.
"""

from __future__ import annotations

from typing import Any

from channels_redis.core import RedisChannelLayer as _RedisChannelLayer
from redis import asyncio as aioredis


class RedisChannelLayer(_RedisChannelLayer):  # type: ignore[misc]
    def create_pool(self, index: int) -> Any:
        host = dict(self.hosts[index])
        if "address" not in host:
            return super().create_pool(index)
        address = host.pop("address")
        return aioredis.BlockingConnectionPool.from_url(address, **host)
