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


def test_the_embedded_default_publishes_eagerly_without_kombu_guessing_a_host(tmp_path: Path) -> None:
    # `make pipeline` printed kombu's "No hostname was supplied" on every in-process publish.
    probe = (
        "import django, logging; django.setup(); from celery import current_app; "
        "logging.basicConfig(level=logging.WARNING); "
        "print(current_app.connection_for_write().as_uri())"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "DATABASE_URL")}
    env.update({"DJANGO_DEBUG": "1", "LANDED_VAR_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "config.settings"})
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().startswith("memory://")
    assert "No hostname" not in result.stderr


def test_sentry_starts_when_a_dsn_is_set() -> None:
    # A DSN pointing at a closed local port: the SDK initialises without sending anything.
    result = _run({"SENTRY_DSN": "http://public@127.0.0.1:9/1"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-1] == "True"


def test_a_bad_boolean_is_refused_rather_than_guessed() -> None:
    result = _run({"DJANGO_DEBUG": "maybe"})
    assert result.returncode != 0
    assert "DJANGO_DEBUG must be a boolean" in result.stderr


def test_token_keys_that_are_not_fernet_keys_stop_start_up_without_being_printed() -> None:
    good = os.environ["TOKEN_ENCRYPTION_KEYS"]
    result = _run({"TOKEN_ENCRYPTION_KEYS": f"{good},not-a-fernet-key-at-all"})
    assert result.returncode != 0
    assert "TOKEN_ENCRYPTION_KEYS entry 2 of 2 is not a Fernet key" in result.stderr
    assert "not-a-fernet-key-at-all" not in result.stderr


def test_a_short_or_trivial_secret_key_stops_start_up() -> None:
    for weak in ("changeme", "a" * 60, "django-insecure-" + "x1y2z3w4v5" * 5):
        result = _run({"SECRET_KEY": weak})
        assert result.returncode != 0, weak
        assert "SECRET_KEY is too short or trivial" in result.stderr
        assert weak not in result.stderr


def test_production_without_any_alarm_channel_refuses_unless_acknowledged() -> None:
    channels = ("OPERATOR_EMAILS", "ALARM_WEBHOOK_URL", "SENTRY_DSN", "ALARMS_NOWHERE")
    refused = _run({}, drop=channels)
    assert refused.returncode != 0
    assert "No alarm channel" in refused.stderr and "ALARMS_NOWHERE=1" in refused.stderr

    assert _run({"ALARMS_NOWHERE": "1"}, drop=channels[:-1]).returncode == 0
    assert _run({"OPERATOR_EMAILS": "ops@example.com"}, drop=channels).returncode == 0


def test_without_debug_the_graph_app_never_falls_back_to_the_sandbox() -> None:
    for name in ("FACEBOOK_APP_SECRET", "FACEBOOK_APP_ID", "GRAPH_API_BASE_URL"):
        result = _run({name: ""})
        assert result.returncode != 0, name
        assert f"{name} must be set when DJANGO_DEBUG is off" in result.stderr


def test_one_start_up_names_everything_that_is_missing() -> None:
    result = _run({}, drop=("SECRET_KEY", "CRON_SECRET", "TOKEN_ENCRYPTION_KEYS", "FACEBOOK_APP_SECRET"))
    assert result.returncode != 0
    for name in ("SECRET_KEY", "CRON_SECRET", "TOKEN_ENCRYPTION_KEYS", "FACEBOOK_APP_SECRET"):
        assert f"- {name} must be set" in result.stderr


def test_an_empty_variable_counts_as_unset_so_its_file_is_read(tmp_path: Path) -> None:
    # An env file lists SECRET_KEY= blank while the real one is a mounted Docker secret.
    secret_file = tmp_path / "secret_key"
    secret_file.write_text("k" * 20 + "0123456789abcdefghijklmnopqrstuvwxyz\n")
    result = _run({"SECRET_KEY": "", "SECRET_KEY_FILE": str(secret_file)})
    assert result.returncode == 0, result.stderr


DEVKIT_PROBE = """
import importlib, pkgutil, sys
import django
django.setup()
from django.conf import settings
from django.core.management import get_commands
import config.urls, config.wsgi
from config.celery_app import app
app.loader.import_default_modules()  # every app's tasks, as a worker loads them
for package in ("config", "accounts", "posting", "research", "publish", "reconcile", "cron"):
    for module in pkgutil.walk_packages(importlib.import_module(package).__path__, package + "."):
        importlib.import_module(module.name)
print("devkit" in settings.INSTALLED_APPS, "landed_run" in get_commands())
print(sorted(name for name in sys.modules if name == "devkit" or name.startswith("devkit.")))
"""


def _probe_devkit(env_overrides: dict[str, str], drop: tuple[str, ...] = ()) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(env_overrides, DJANGO_SETTINGS_MODULE="config.settings")
    result = subprocess.run(
        [sys.executable, "-c", DEVKIT_PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_production_never_imports_the_devkit() -> None:
    # given the production environment (DEBUG off, every secret set, as the test run has it)
    # when settings load, the URLs, WSGI app and every task resolve, and every module of
    # every product package is imported
    installed_and_commands, devkit_modules = _probe_devkit({}, drop=("DJANGO_DEBUG",))
    # then devkit is neither an app (no landed_run command) nor a single imported module
    assert installed_and_commands == "False False"
    assert devkit_modules == "[]"


def test_the_embedded_default_installs_the_devkit_for_make_run(tmp_path: Path) -> None:
    installed_and_commands, _ = _probe_devkit(
        {"DJANGO_DEBUG": "1", "LANDED_VAR_DIR": str(tmp_path)},
        drop=("DATABASE_URL", "CELERY_BROKER_URL", "SECRET_KEY", "TOKEN_ENCRYPTION_KEYS", "SENTRY_DSN"),
    )
    assert installed_and_commands == "True True"


CACHE_PROBE = (
    "import django; django.setup(); from django.conf import settings as s; "
    "print(s.CACHES['default']['BACKEND'].rsplit('.', 1)[-1], s.CACHES['default'].get('LOCATION', '-'), "
    "s.VERSIONED_CACHES)"
)


def _cache_backend(env_overrides: dict[str, str], drop: tuple[str, ...] = ()) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(env_overrides, DJANGO_SETTINGS_MODULE="config.settings")
    result = subprocess.run(
        [sys.executable, "-c", CACHE_PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_the_cache_is_redis_only_where_redis_url_names_it_never_the_brokers_database() -> None:
    # A cache clear empties its whole Redis database: sharing the broker's would drop the queues.
    broker = "redis://127.0.0.1:6379/15"
    # Each process's own cache: nothing is cached under versions (accounts/content_version.py).
    assert _cache_backend({"CELERY_BROKER_URL": broker}, drop=("REDIS_URL",)) == ["LocMemCache", "-", "False"]
    # Django's Redis cache with one client per pool (config/cache.py), shared by every process.
    assert _cache_backend({"CELERY_BROKER_URL": broker, "REDIS_URL": "redis://127.0.0.1:6379/14"}) == [
        "ReusedClientRedisCache",
        "redis://127.0.0.1:6379/14",
        "True",
    ]
