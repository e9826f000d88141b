"""Loaded by pytest before Django (``-p tests.env``): the environment a test run needs.

Tests run with DEBUG off, like production, against the real PostgreSQL and Redis on
localhost. Anything already set in the environment wins, so CI can point elsewhere.
"""

import os

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/landed")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/14")
os.environ.setdefault("SECRET_KEY", "test-secret-key-not-for-production-0123456789abcdef")
os.environ.setdefault("CRON_SECRET", "test-cron-secret-0123456789abcdefghijklmnop")
# A fixed Fernet key for tests only (generated once with Fernet.generate_key()).
os.environ.setdefault("TOKEN_ENCRYPTION_KEYS", "u5m0Ck0kQ0m2bGkX1m3yYqkqL0zV7s1nX8b9rH2pWc4=")
os.environ.setdefault("RESEARCH_ALLOW_HOSTS", "")
# DEBUG is off, so the Graph settings have no sandbox fallback: name the sandbox explicitly
# (tests that start their own sandbox point GRAPH_API_BASE_URL at it).
os.environ.setdefault("GRAPH_API_BASE_URL", "http://127.0.0.1:8765")
os.environ.setdefault("FACEBOOK_APP_ID", "landed-sandbox-app")
os.environ.setdefault("FACEBOOK_APP_SECRET", "landed-sandbox-secret")
# No alarm channel in tests (each alarm test configures its own): acknowledged, as production must.
os.environ.setdefault("ALARMS_NOWHERE", "1")
os.environ.setdefault("LANDED_VAR_DIR", "/tmp/landed-test-var")


def _xdist_worker_separate() -> None:
    """Under pytest-xdist (``-n 2``), give each worker process its own Redis databases and
    var folder; pytest-django already gives each its own test database (``test_<name>_gw1``).

    Tests flush the broker's database and purge its queues, and a real Celery worker one test
    starts would take another test's tasks from a shared broker, so worker ``gwN`` moves both
    Redis database numbers down by ``2 * N`` (15/14 become 13/12 for gw1). Worker gw0 and a
    run without xdist keep the values above. The controller process runs no tests and sets
    the base values its workers inherit, so this runs once per worker.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw") or worker == "gw0":
        return
    shift = 2 * int(worker[2:])
    for name in ("CELERY_BROKER_URL", "REDIS_URL"):
        base, _, number = os.environ[name].rpartition("/")
        if not number.isdigit() or int(number) < shift:
            raise RuntimeError(
                f"{name} must end in a Redis database number of at least {shift} for xdist worker {worker}"
            )
        os.environ[name] = f"{base}/{int(number) - shift}"
    os.environ["LANDED_VAR_DIR"] = f"{os.environ['LANDED_VAR_DIR']}-{worker}"


_xdist_worker_separate()
# Where collectstatic would write; WhiteNoise warns on every request handler when it is missing.
os.environ.setdefault("DJANGO_STATIC_ROOT", os.path.join(os.environ["LANDED_VAR_DIR"], "static"))
os.makedirs(os.environ["DJANGO_STATIC_ROOT"], exist_ok=True)
os.environ.pop("DJANGO_DEBUG", None)
os.environ.pop("OPENAI_API_KEY", None)
