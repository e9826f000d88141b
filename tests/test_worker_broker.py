"""A worker started while Redis is down keeps retrying, and works once Redis is back."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.worker import WorkerProcess, wait_until, worker_env

ROOT = Path(__file__).resolve().parent.parent
REDIS_SERVER = shutil.which("redis-server")


def test_the_worker_retries_the_broker_forever() -> None:
    probe = "from config.celery_app import app; print(app.conf.broker_connection_max_retries)"
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "None"


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server to start a broker late")
def test_a_worker_started_before_its_broker_connects_when_the_broker_comes_up(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # given: a worker whose Redis is not running
    worker = WorkerProcess(env=worker_env(CELERY_BROKER_URL=f"redis://127.0.0.1:{port}/0"), log_path=tmp_path / "w.log")
    worker.start()
    redis_server = None
    try:
        wait_until(lambda: "Cannot connect to redis" in worker.log(), timeout=30, what="a failed connection attempt")
        time.sleep(3)
        assert worker.process.poll() is None, worker.log()

        # when: Redis comes up on that port
        redis_server = subprocess.Popen(
            [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

        # then: the same worker process connects and is ready
        wait_until(lambda: "ready." in worker.log(), timeout=60, what="the worker to connect")
        assert worker.process.poll() is None
    finally:
        worker.stop()
        if redis_server is not None:
            redis_server.terminate()
            redis_server.wait(timeout=10)
