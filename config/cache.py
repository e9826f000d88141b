"""Django's Redis cache, with one redis-py client per connection pool instead of one per call.

Django's ``RedisCacheClient.get_client`` builds a new ``redis.Redis`` for every cache call; its
constructor fills a table of ~170 response callbacks each time, which a profile of a signed-in
request (three cache calls: the session, the user, the page) showed costing more CPU than the
rest of the cache work (docs/BENCHMARKS.md, "Customer pages", third round). A ``redis.Redis``
is safe to share between threads, and its pool re-opens its connections in a forked process,
so the client is made once per pool and reused.

The cache also **degrades instead of failing** when Redis cannot be reached. It holds only
copies: sessions are ``cached_db`` (the database has them), pages and the signed-in user are
rendered or read again, cards too. Without this, a Redis outage (the same server is often the
broker) made every signed-in request a 500 at the session read, so a customer could not even
approve into the queue, which the database alone can do (tests/test_outages.py). A read that
cannot reach Redis is a miss, a write is skipped and logged. Two writes report the failure
instead of hiding it, because their callers must know: ``set_many`` returns the keys it could
not store (Django's contract), which the member-version bump turns into a refusal
(accounts/content_version.py: a removed member must not keep a cached entry), and ``incr``
raises ValueError as for a missing key. The settings give the client short socket timeouts so
a hung Redis costs a request half a second, not a worker.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

import redis
from django.core.cache.backends.redis import RedisCache, RedisCacheClient

logger = logging.getLogger(__name__)

_T = TypeVar("_T")
# What "Redis cannot be reached" looks like to redis-py (refused, reset, timed out).
UNREACHABLE = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
# One warning a minute per process is enough to page someone; every failed call would flood.
_WARN_EVERY_S = 60.0
_warned_at = 0.0


def _unreachable(operation: str, exc: Exception) -> None:
    global _warned_at
    now = time.monotonic()
    if now - _warned_at >= _WARN_EVERY_S:
        _warned_at = now
        logger.warning("cache unreachable (%s: %s): serving without it", operation, exc.__class__.__name__)


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

    def _tolerant(self, operation: str, call: Callable[[], _T], fallback: _T) -> _T:
        try:
            return call()
        except UNREACHABLE as exc:
            _unreachable(operation, exc)
            return fallback

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        return self._tolerant("get", lambda: super(ReusedClientRedisCache, self).get(key, default, version), default)

    def get_many(self, keys: Any, version: int | None = None) -> dict[Any, Any]:
        return self._tolerant("get_many", lambda: super(ReusedClientRedisCache, self).get_many(keys, version), {})

    def has_key(self, key: Any, version: int | None = None) -> bool:
        return self._tolerant("has_key", lambda: super(ReusedClientRedisCache, self).has_key(key, version), False)

    def add(self, key: Any, value: Any, timeout: Any = 300, version: int | None = None) -> bool:
        # Not added: a lock is not taken, a first version is not kept (its caller reads again).
        call = lambda: super(ReusedClientRedisCache, self).add(key, value, timeout, version)  # noqa: E731
        return self._tolerant("add", call, False)

    def set(self, key: Any, value: Any, timeout: Any = 300, version: int | None = None) -> None:
        call = lambda: super(ReusedClientRedisCache, self).set(key, value, timeout, version)  # noqa: E731
        self._tolerant("set", call, None)

    def set_many(self, data: dict[Any, Any], timeout: Any = 300, version: int | None = None) -> list[Any]:
        # Django's contract: the keys that could not be stored (all of them, here).
        call = lambda: super(ReusedClientRedisCache, self).set_many(data, timeout, version)  # noqa: E731
        return self._tolerant("set_many", call, list(data))

    def touch(self, key: Any, timeout: Any = 300, version: int | None = None) -> bool:
        return self._tolerant("touch", lambda: super(ReusedClientRedisCache, self).touch(key, timeout, version), False)

    def delete(self, key: Any, version: int | None = None) -> bool:
        return self._tolerant("delete", lambda: super(ReusedClientRedisCache, self).delete(key, version), False)

    def delete_many(self, keys: Any, version: int | None = None) -> None:
        self._tolerant("delete_many", lambda: super(ReusedClientRedisCache, self).delete_many(keys, version), None)

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        try:
            return super().incr(key, delta, version)
        except UNREACHABLE as exc:
            _unreachable("incr", exc)
            raise ValueError("the cache cannot be reached") from exc
