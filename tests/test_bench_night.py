"""`make bench-night`, tiny: the whole night in the production shape (PostgreSQL, Redis, two
Celery worker processes, the Graph sandbox, local feeds) ends with one JSON line whose
invariants hold. Numbers are not asserted (the machine is shared); the invariants are."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.worker, pytest.mark.timeout(600)]


def test_a_tiny_night_lands_every_approved_post_once_and_reads_each_feed_once(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "scripts/bench_night.py", "--accounts", "10", "--feeds", "4", "--json"],
        cwd=ROOT,
        # Its own temp folder, to see that a finished run leaves nothing behind.
        env={**os.environ, "TMPDIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=540,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, "--json prints only the closing line"
    night = json.loads(lines[0])

    for key in ("accounts", "approved", "landed", "duplicates", "approved_not_landed", "feed_fetches"):
        assert isinstance(night[key], int), key
    for key in ("unique_feeds", "elapsed_s", "floor_s", "ratio"):
        assert night[key] is not None, key
    assert night["accounts"] == 10
    assert night["approved"] > 0
    assert night["landed"] == night["approved"]
    assert night["duplicates"] == 0
    assert night["approved_not_landed"] == 0
    assert night["feed_fetches"] == night["unique_feeds"] == 4
    # The printed times are rounded to 0.01 s and the ratio to 0.01: the ratio must lie within
    # what those roundings allow (a tiny night's floor is a fraction of a second).
    elapsed, floor = night["elapsed_s"], night["floor_s"]
    assert floor > 0
    assert (elapsed - 0.005) / (floor + 0.005) - 0.005 <= night["ratio"] <= (elapsed + 0.005) / (floor - 0.005) + 0.005
    assert set(night["stages"]) == {"research", "compose", "gate", "approve", "publish", "reconcile"}
    assert len(night["worker_peak_rss_mb"]) == 2
    assert not list(tmp_path.glob("bench-night-*")), "a finished run removes its folder"
