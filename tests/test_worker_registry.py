"""Workers an interrupted test run left behind are killed at the next session start, and
nobody else's are (tests/worker.py, ``stale_workers_kill``).

The stand-in worker is a small Python process with a child of its own, started exactly as
the worker fixtures start celery (``worker_spawn``): what is under test is the bookkeeping
and the process-group kill, not Celery.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.worker import _registry, _started_at, stale_workers_kill, wait_until, worker_forget, worker_spawn

# A parent that starts a child in its own group and prints the child's pid, then both sleep.
STAND_IN = (
    "import subprocess, sys, time\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
    "print(child.pid, flush=True)\n"
    "time.sleep(120)\n"
)


@pytest.fixture
def registry_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("LANDED_VAR_DIR", str(tmp_path))
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:6379/9")
    yield tmp_path


def _stand_in() -> tuple[subprocess.Popen[bytes], int]:
    process = worker_spawn([sys.executable, "-c", STAND_IN], env=dict(os.environ), stdout=subprocess.PIPE)
    assert process.stdout is not None
    child = int(process.stdout.readline())
    return process, child


def _orphan(process: subprocess.Popen[bytes]) -> None:
    """Rewrite the worker's record as if the run that started it had been killed."""
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True)
    path = _registry() / f"{process.pid}.json"
    record = json.loads(path.read_text())
    record["run_pid"] = int(gone.stdout)
    path.write_text(json.dumps(record))


def _alive(pid: int) -> bool:
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] if _started_at(pid) else "gone"
    return state not in ("Z", "gone")


def test_a_worker_whose_run_is_gone_is_killed_with_its_whole_group(registry_env: Path) -> None:
    process, child = _stand_in()
    try:
        _orphan(process)

        assert stale_workers_kill() == [process.pid]

        process.wait(timeout=10)
        wait_until(lambda: not _alive(child), timeout=10, what="the worker's child to die with its group")
        assert not list(_registry().glob("*.json"))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


def test_a_worker_of_a_run_still_going_or_of_another_broker_is_left_alone(
    registry_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    process, child = _stand_in()
    try:
        # this run (the pytest process itself) is alive: its worker is its own business
        assert stale_workers_kill() == []
        # a run on another broker URL does not even look at this one's records
        _orphan(process)
        monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:6379/10")
        assert stale_workers_kill() == []
        time.sleep(0.2)
        assert process.poll() is None
        assert _alive(child)
    finally:
        os.killpg(process.pid, 9)
        process.wait(timeout=10)
        worker_forget(process)


def test_a_record_of_a_worker_that_has_exited_is_removed_without_killing_anything(registry_env: Path) -> None:
    process = worker_spawn([sys.executable, "-c", "pass"], env=dict(os.environ), stdout=subprocess.DEVNULL)
    process.wait(timeout=30)
    _orphan(process)

    assert stale_workers_kill() == []
    assert not list(_registry().glob("*.json"))
