"""Settings come from the environment, and refuse to start unsafely (in a real subprocess)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBE = (
    "import django; django.setup(); from django.conf import settings as s; import sentry_sdk; "
    "print(s.DATABASES['default']['ENGINE'], s.CELERY_TASK_ALWAYS_EAGER, sentry_sdk.get_client().is_active())"
)


def _run(env_overrides: dict[str, str], drop: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(env_overrides)
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    return subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )


def test_without_debug_a_missing_secret_key_stops_start_up() -> None:
    result = _run({}, drop=("SECRET_KEY", "DJANGO_DEBUG"))
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_without_debug_missing_token_keys_stop_start_up() -> None:
    result = _run({}, drop=("TOKEN_ENCRYPTION_KEYS", "DJANGO_DEBUG"))
    assert result.returncode != 0
    assert "TOKEN_ENCRYPTION_KEYS must be set" in result.stderr


def test_the_embedded_default_is_sqlite_with_in_process_tasks_and_generated_secrets(tmp_path: Path) -> None:
    result = _run(
        {"DJANGO_DEBUG": "1", "LANDED_VAR_DIR": str(tmp_path)},
        drop=("DATABASE_URL", "CELERY_BROKER_URL", "SECRET_KEY", "TOKEN_ENCRYPTION_KEYS", "SENTRY_DSN"),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["django.db.backends.sqlite3", "True", "False"]
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0  # readable by the owner only
    assert (tmp_path / "token_key").exists()


def test_sentry_starts_when_a_dsn_is_set() -> None:
    # A DSN pointing at a closed local port: the SDK initialises without sending anything.
    result = _run({"SENTRY_DSN": "http://public@127.0.0.1:9/1"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-1] == "True"


def test_a_bad_boolean_is_refused_rather_than_guessed() -> None:
    result = _run({"DJANGO_DEBUG": "maybe"})
    assert result.returncode != 0
    assert "DJANGO_DEBUG must be a boolean" in result.stderr
