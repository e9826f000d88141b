"""Fetched pages wait for extraction in a bounded window, not all at once."""

from __future__ import annotations

import threading
import time

from research.services import FETCH_WORKERS, _in_threads


def test_fetching_runs_at_most_a_window_ahead_of_extraction() -> None:
    # given: fast "fetches" and a slow consumer (extraction slower than the network)
    produced = 0
    lock = threading.Lock()

    def fetch(item: int) -> int:
        nonlocal produced
        with lock:
            produced += 1
        return item

    most_waiting = 0
    results = []
    for consumed, result in enumerate(_in_threads(fetch, list(range(200)), ahead=10), start=1):
        time.sleep(0.002)  # the consumer is the slow side
        with lock:
            most_waiting = max(most_waiting, produced - consumed)
        results.append(result)

    # then: everything arrives once, and no more than the window was ever held
    assert sorted(results) == list(range(200))
    assert most_waiting <= 10


def test_the_default_window_is_a_small_multiple_of_the_fetch_threads() -> None:
    started = []

    def fetch(item: int) -> int:
        started.append(item)
        return item

    iterator = _in_threads(fetch, list(range(500)))
    first = next(iterator)
    time.sleep(0.05)
    # Only the window (plus the one refill) was submitted before the consumer asked for more.
    assert len(started) <= FETCH_WORKERS * 2 + 1
    assert sorted([first, *iterator]) == list(range(500))
