"""The Celery app for `make bench-night`'s workers: Landed's own app (config.celery_app), plus
counters the bench reads back from Redis, so the product's code carries no bench hooks.

    celery -A scripts.bench_night_worker worker ...

Per task name it counts tasks started and finished and the SQL queries they ran (a
``connection.execute_wrapper`` around each task, per thread), in the Redis hashes
``bench-night:started``, ``bench-night:finished`` and ``bench-night:queries`` of
BENCH_NIGHT_REDIS_URL.

With BENCH_NIGHT_PROFILE set (a folder; ``bench_night.py --profile DIR``) it also profiles
one task at a time per process (cProfile follows one thread; the others run unprofiled, so
the profile is a sample) and writes each task name's stats to DIR/<task>-<pid>.prof when
the worker stops.
"""

from __future__ import annotations

import cProfile
import os
import threading
from typing import Any

import redis
from celery.signals import task_postrun, task_prerun, worker_process_shutdown, worker_shutdown

from config.celery_app import app

__all__ = ["app"]

_counters = redis.Redis.from_url(os.environ["BENCH_NIGHT_REDIS_URL"])
_local = threading.local()
_profile_dir = os.environ.get("BENCH_NIGHT_PROFILE", "")
_profiling = threading.Lock()
_profiles: dict[str, cProfile.Profile] = {}


class _QueryCounter:
    def __init__(self) -> None:
        self.queries = 0

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        self.queries += 1
        return execute(sql, params, many, context)


@task_prerun.connect
def _task_started(task: Any = None, **_: Any) -> None:
    from django.db import connection

    counter = _QueryCounter()
    wrapper = connection.execute_wrapper(counter)
    wrapper.__enter__()
    _local.running = (counter, wrapper)
    _local.profiling = None
    if _profile_dir and _profiling.acquire(blocking=False):
        profile = _profiles.setdefault(task.name, cProfile.Profile())
        profile.enable()
        _local.profiling = profile
    _counters.hincrby("bench-night:started", task.name, 1)


@task_postrun.connect
def _task_finished(task: Any = None, **_: Any) -> None:
    profile = getattr(_local, "profiling", None)
    if profile is not None:
        profile.disable()
        _local.profiling = None
        _profiling.release()
    counter, wrapper = getattr(_local, "running", (None, None))
    if wrapper is not None:
        wrapper.__exit__(None, None, None)
        _local.running = (None, None)
    pipe = _counters.pipeline()
    pipe.hincrby("bench-night:finished", task.name, 1)
    if counter is not None:
        pipe.hincrby("bench-night:queries", task.name, counter.queries)
    pipe.execute()


@worker_shutdown.connect
@worker_process_shutdown.connect
def _profiles_write(**_: Any) -> None:
    for name, profile in _profiles.items():
        profile.dump_stats(os.path.join(_profile_dir, f"{name}-{os.getpid()}.prof"))
