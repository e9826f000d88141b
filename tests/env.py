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
os.environ.setdefault("LANDED_VAR_DIR", "/tmp/landed-test-var")
os.environ.pop("DJANGO_DEBUG", None)
os.environ.pop("OPENAI_API_KEY", None)
