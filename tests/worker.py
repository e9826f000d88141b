"""A real Celery worker process for tests whose behaviour depends on one.

The worker is a separate OS process on the real Redis broker, pointed at the test
database, so tasks really cross a process boundary: nothing is eager or patched.

A test run that is killed (``kill -9``, a CI timeout) cannot stop its workers, and a worker
left behind breaks the next run: it takes the next run's tasks from the shared broker and
runs them with the old run's settings, and one caught mid-task holds a connection to the test
database, which pytest-django then cannot drop. So
every worker starts in its own process group and is written down under ``LANDED_VAR_DIR``,
in a folder keyed by this run's broker URL; at session start ``stale_workers_kill`` kills
the groups of workers whose run is gone (tests/conftest.py). It touches no process it did
not record, none whose run is still alive, and none started for another broker URL.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from django.db import connection

from config.celery_app import app as celery_app

ROOT = Path(__file__).resolve().parent.parent


def test_database_url() -> str:
    """The URL of the database pytest-django created (``test_<name>``) for the worker."""
    params = connection.settings_dict
    user = params.get("USER") or "postgres"
    password = f":{params['PASSWORD']}" if params.get("PASSWORD") else ""
    host = params.get("HOST") or "127.0.0.1"
    port = params.get("PORT") or "5432"
    return f"postgres://{user}{password}@{host}:{port}/{params['NAME']}"


def _started_at(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (/proc/<pid>/stat, field 22), or
    None when no such process runs. With the pid it names one process: pids are reused."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces: count after its end.
    return stat.rsplit(")", 1)[1].split()[19]


def _registry() -> Path:
    """This run's folder of started workers: one per broker URL, under LANDED_VAR_DIR."""
    broker_url = os.environ.get("CELERY_BROKER_URL", "")
    key = hashlib.sha256(broker_url.encode()).hexdigest()[:16]
    return Path(os.environ.get("LANDED_VAR_DIR", "/tmp/landed-test-var")) / "test-workers" / key


def worker_spawn(command: Sequence[str], *, env: dict[str, str], stdout: int | IO[bytes]) -> subprocess.Popen[bytes]:
    """Start a worker in its own process group and write it down for ``stale_workers_kill``."""
    process = subprocess.Popen(
        list(command), cwd=ROOT, env=env, stdout=stdout, stderr=subprocess.STDOUT, start_new_session=True
    )
    record = {
        "pid": process.pid,
        "started_at": _started_at(process.pid),
        "run_pid": os.getpid(),
        "run_started_at": _started_at(os.getpid()),
    }
    registry = _registry()
    registry.mkdir(parents=True, exist_ok=True)
    (registry / f"{process.pid}.json").write_text(json.dumps(record))
    return process


def worker_forget(process: subprocess.Popen[bytes]) -> None:
    """The worker has exited: nothing is left to clean up after it."""
    (_registry() / f"{process.pid}.json").unlink(missing_ok=True)


def stale_workers_kill() -> list[int]:
    """Kill the process groups of workers an earlier run on this broker URL left behind.

    A record whose run is still alive is left alone (a second run on the same broker is
    that run's business); a record whose worker has already exited is just removed.
    """
    killed = []
    registry = _registry()
    for path in sorted(registry.glob("*.json")) if registry.is_dir() else []:
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            path.unlink(missing_ok=True)
            continue
        if record["run_started_at"] and _started_at(record["run_pid"]) == record["run_started_at"]:
            continue
        pid = record["pid"]
        if record["started_at"] and _started_at(pid) == record["started_at"]:
            # start_new_session made the worker its group's leader: the group's id is its pid.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            killed.append(pid)
        path.unlink(missing_ok=True)
    return killed


class WorkerProcess:
    def __init__(self, *, env: dict[str, str], log_path: Path) -> None:
        self.env = env
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> WorkerProcess:
        # Leftover messages from an earlier, interrupted run must not leak into this one.
        celery_app.control.purge()
        log = self.log_path.open("wb")
        self.process = worker_spawn(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--pool=solo",
                "--concurrency=1",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--loglevel=INFO",
            ],
            env=self.env,
            stdout=log,
        )
        return self

    def kill(self) -> None:
        """SIGKILL: the worker dies mid-task with no chance to clean up."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        if self.process:
            worker_forget(self.process)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        if self.process:
            worker_forget(self.process)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def worker_env(**overrides: str) -> dict[str, str]:
    env = dict(os.environ)
    env["DATABASE_URL"] = test_database_url()
    env.update(overrides)
    return env


def wait_until(condition: Callable[[], object], *, timeout: float = 60.0, what: str = "condition") -> object:
    """Poll the database (or anything) until ``condition`` is truthy; fail with ``what``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
