"""tests/env.py under pytest-xdist: each worker process gets its own Redis databases and var
folder, so a test that flushes the broker or starts a real Celery worker touches only its own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

NAMES = ("CELERY_BROKER_URL", "REDIS_URL", "LANDED_VAR_DIR")
SHOW = f"import json, os, tests.env; print(json.dumps({{k: os.environ[k] for k in {NAMES!r}}}))"


def _env_after_tests_env(
    tmp_path: Path, worker: str | None, broker: str, cache: str
) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": "/usr/bin:/bin",
        "CELERY_BROKER_URL": broker,
        "REDIS_URL": cache,
        "LANDED_VAR_DIR": str(tmp_path / "var"),
    }
    if worker is not None:
        env["PYTEST_XDIST_WORKER"] = worker
    return subprocess.run([sys.executable, "-c", SHOW], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def test_the_second_worker_moves_both_redis_databases_down_and_has_its_own_var_folder(tmp_path: Path) -> None:
    shown = _env_after_tests_env(tmp_path, "gw1", "redis://127.0.0.1:6379/15", "redis://127.0.0.1:6379/14")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == {
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/13",
        "REDIS_URL": "redis://127.0.0.1:6379/12",
        "LANDED_VAR_DIR": f"{tmp_path / 'var'}-gw1",
    }


def test_the_first_worker_and_a_run_without_xdist_keep_the_given_values(tmp_path: Path) -> None:
    for worker in ("gw0", None):
        shown = _env_after_tests_env(tmp_path, worker, "redis://127.0.0.1:6379/9", "redis://127.0.0.1:6379/10")
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout) == {
            "CELERY_BROKER_URL": "redis://127.0.0.1:6379/9",
            "REDIS_URL": "redis://127.0.0.1:6379/10",
            "LANDED_VAR_DIR": str(tmp_path / "var"),
        }


def test_a_worker_without_room_below_its_redis_database_refuses_to_start(tmp_path: Path) -> None:
    # gw3 needs database numbers of at least 6: sharing database 0 with another worker would
    # let one test's flush or Celery worker reach into another's.
    shown = _env_after_tests_env(tmp_path, "gw3", "redis://127.0.0.1:6379/15", "redis://127.0.0.1:6379/4")
    assert shown.returncode != 0
    assert "REDIS_URL must end in a Redis database number of at least 6 for xdist worker gw3" in shown.stderr
