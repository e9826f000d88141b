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
# Where collectstatic would write; WhiteNoise warns on every request handler when it is missing.
os.environ.setdefault("DJANGO_STATIC_ROOT", os.path.join(os.environ["LANDED_VAR_DIR"], "static"))
os.makedirs(os.environ["DJANGO_STATIC_ROOT"], exist_ok=True)
os.environ.pop("DJANGO_DEBUG", None)
os.environ.pop("OPENAI_API_KEY", None)
