"""Django's Redis cache, with one redis-py client per connection pool instead of one per call.

Django's ``RedisCacheClient.get_client`` builds a new ``redis.Redis`` for every cache call; its
constructor fills a table of ~170 response callbacks each time, which a profile of a signed-in
request (three cache calls: the session, the user, the page) showed costing more CPU than the
rest of the cache work (docs/BENCHMARKS.md, "Customer pages", third round). A ``redis.Redis``
is safe to share between threads, and its pool re-opens its connections in a forked process,
so the client is made once per pool and reused.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class ReusedClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        # django-stubs leaves out RedisCacheClient's private helpers (they are Django's own).
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]
        client = self._clients.get(index)
        if client is None:
            # The same index: the one server, or the writer. django-stubs, as above.
            pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
            client = self._clients.setdefault(index, self._client(connection_pool=pool))  # type: ignore[attr-defined]
        return client


class ReusedClientRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = ReusedClientRedisCacheClient
