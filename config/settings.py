"""Landed settings, driven entirely by environment variables.

Production, CI and the embedded default (``make run``) run this same module; they differ
only in the environment. See README.md for the table of variables.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import dj_database_url
from cryptography.fernet import Fernet
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP
from kombu import Queue

from config.env import env_bool, env_float, env_int, env_list, env_str, fernet_key_problems, generated_secret
from cron.jobs import beat_schedule

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("LANDED_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DJANGO_DEBUG", False)

# Every refusal to start is collected here and raised together at the end of this module,
# so one start-up attempt (or `manage.py check --deploy`) names everything that is missing.
_REFUSALS: list[str] = []

# The embedded default generates its own secret key into var/; anywhere DEBUG is off it
# must come from the environment so that sessions survive restarts and hosts agree, and it
# must be a real secret: Django's own deploy check asks for 50+ characters, 5+ distinct.
SECRET_KEY = env_str("SECRET_KEY").strip()
SECRET_KEY_MIN_LENGTH = 50
if not SECRET_KEY:
    if DEBUG:
        SECRET_KEY = generated_secret(VAR_DIR / "secret_key")
    else:
        _REFUSALS.append("SECRET_KEY must be set when DJANGO_DEBUG is off.")
elif not DEBUG and (
    len(SECRET_KEY) < SECRET_KEY_MIN_LENGTH or len(set(SECRET_KEY)) < 5 or SECRET_KEY.startswith("django-insecure-")
):
    _REFUSALS.append(
        f"SECRET_KEY is too short or trivial: use at least {SECRET_KEY_MIN_LENGTH} random characters "
        "(python -c 'import secrets; print(secrets.token_urlsafe(50))')."
    )

# Lesson 3 (docs/ARCHITECTURE.md): cron routes are authenticated by a shared secret only. Outside
# DEBUG a missing or short secret must stop web and worker alike at start-up, so that no
# deployment can ever run with cron routes that anyone could call.
# Stripped: a secret padded with a newline (a mounted file, a templated env) could never
# match a header, and one made only of spaces must not pass the length check below.
CRON_SECRET = env_str("CRON_SECRET").strip()
CRON_SECRET_NEXT = env_str("CRON_SECRET_NEXT").strip()
CRON_SECRET_MIN_LENGTH = 32
if not DEBUG:
    for _name, _value in (("CRON_SECRET", CRON_SECRET), ("CRON_SECRET_NEXT", CRON_SECRET_NEXT)):
        if _name == "CRON_SECRET_NEXT" and not _value:
            continue
        if len(_value) < CRON_SECRET_MIN_LENGTH:
            _REFUSALS.append(
                f"{_name} must be set to at least {CRON_SECRET_MIN_LENGTH} characters when "
                "DJANGO_DEBUG is off (cron routes fail closed)."
            )

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "accounts",
    "notifications",
    "posting",
    "research",
    "publish",
    "reconcile",
    "cron",
    "posting.review",
    # TOTP two-factor for staff (cron/twofactor.py), required with STAFF_REQUIRE_2FA.
    "django_otp",
    "django_otp.plugins.otp_totp",
]
# devkit (the Graph sandbox, the demo business, `landed_run`) is never part of the product:
# it is installed on the embedded default only (DEBUG, and the folder present: the production
# image leaves it out, and its collectstatic step runs with DEBUG on). find_spec looks for the
# package without importing it. Tests import its modules directly and need no app.
if DEBUG and importlib.util.find_spec("devkit") is not None:
    INSTALLED_APPS.append("devkit")

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Content-Security-Policy on every response, from SECURE_CSP below.
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    # Static files (the admin's CSS) straight from gunicorn: no separate file server needed.
    # https://whitenoise.readthedocs.io/en/stable/django.html
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    # Django's AuthenticationMiddleware, with the user and their memberships read from the
    # cache in one call while current (accounts/principal.py: its checks are Django's).
    "accounts.principal.CachedAuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",
    "cron.twofactor.StaffTwoFactorMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A customer's tap composes and judges inside the request: its model calls share one budget.
    "posting.llm.llm_request_budget",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Embedded default: a SQLite file under var/. Tests and production: PostgreSQL.
DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'landed.sqlite3'}")
# PostgreSQL connections are kept (DB_CONN_MAX_AGE seconds, checked before reuse so a
# restarted server costs one reconnect, not a failed task): a new one cost 30 ms under load,
# and workers opened one for every task, about 6,000 in a 1,000-account night
# (docs/BENCHMARKS.md, the night at scale; workers: CELERY_DB_REUSE_MAX below). SQLite opens
# a file; nothing to keep.
_POSTGRES = DATABASE_URL.startswith(("postgres://", "postgresql://", "pgsql://"))
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL,
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60 if _POSTGRES else 0),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default serves the UI and runs tasks in threads of one process:
    # wait for the write lock instead of failing with "database is locked".
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    if DATABASES["default"]["NAME"] not in ("", ":memory:"):
        Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# The product's own stylesheet (static/landed/landed.css): styles come from files, which the
# Content-Security-Policy allows, never from inline <style> or style attributes.
STATICFILES_DIRS = [BASE_DIR / "static"]
# collectstatic writes here; the Docker image collects at build time, into the image.
STATIC_ROOT = Path(env_str("DJANGO_STATIC_ROOT", str(BASE_DIR / "staticfiles")))
# Compressed copies (gzip) made at collectstatic, no manifest: a template can name a static
# file before collectstatic ran (tests, the embedded default) without an error.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# --- HTTPS, usually behind a TLS-terminating proxy ------------------------------------
# https://docs.djangoproject.com/en/6.0/ref/settings/#secure-proxy-ssl-header
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# Only behind a proxy that sets X-Forwarded-Proto itself (and strips a client's): then a
# request that reached the proxy over TLS counts as secure, so the CSRF origin check accepts
# the browser's https:// Origin and the SSL redirect does not loop.
BEHIND_PROXY = env_bool("DJANGO_BEHIND_PROXY")
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if BEHIND_PROXY else None
# Behind the TLS proxy, in production, plain HTTP is redirected and browsers are told to use
# HTTPS for a year (HSTS) unless the environment says otherwise; without the proxy setting
# the app cannot tell a TLS request from a plain one, so both stay off unless asked for.
_TLS_DEFAULTS = BEHIND_PROXY and not DEBUG
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", _TLS_DEFAULTS)
# Container health checks speak plain HTTP to the app's own port: never redirect them.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 31_536_000 if _TLS_DEFAULTS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", False)
X_FRAME_OPTIONS = "DENY"

# --- Celery -------------------------------------------------------------------------
# Unset broker: the embedded default runs every task in-process (eager). With Redis,
# real workers pick tasks up. https://docs.celeryq.dev/en/stable/userguide/configuration.html
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
if CELERY_TASK_ALWAYS_EAGER:
    # Nothing is sent anywhere; the in-memory transport just keeps kombu from guessing "localhost".
    # The host is named so that kombu does not warn "No hostname was supplied" when it describes
    # the connection (it does on every eager publish in `make pipeline`).
    CELERY_BROKER_URL = "memory://localhost/"
CELERY_TASK_EAGER_PROPAGATES = False
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 300)
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 240)
# The publish task is a few Graph requests (GRAPH_TIMEOUT_S each), so it gets a much shorter
# limit than the sweeps: a claim abandoned by a dead worker is then known dead, and handed to
# reconcile, within PUBLISH_TASK_TIME_LIMIT + 10 s instead of the general limit.
PUBLISH_TASK_TIME_LIMIT = env_int("PUBLISH_TASK_TIME_LIMIT", 90)
PUBLISH_TASK_SOFT_TIME_LIMIT = env_int("PUBLISH_TASK_SOFT_TIME_LIMIT", 75)
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker (or beat) that lost its broker keeps trying, backing off to one attempt every 30 s,
# for as long as it takes: Celery's default gives up after 100 tries and exits, which leaves a
# hand-started worker dead after a long Redis outage.
# https://docs.celeryq.dev/en/stable/userguide/configuration.html#broker-connection-max-retries
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_TIMEZONE = "UTC"
# Celery's Django fixup closes every database connection before and after each task unless
# told to reuse them; config/celery_app.py closes them as a request does instead (past
# DB_CONN_MAX_AGE, or unusable), so kept connections and their health check hold in workers.
CELERY_DB_REUSE_MAX = 1_000_000 if DATABASES["default"]["CONN_MAX_AGE"] else 0
# Composing gets a queue of its own: the compose job queues a task per account at once, and
# the drafts each hands to the gate used to wait behind all of them on the one queue (at
# 1,000 accounts the gate finished 81 s after composing). Every worker consumes both queues
# (a worker reads every queue listed here unless started with -Q), taking from each in turn,
# so the gate keeps pace with composing and no deployment needs another worker command.
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_QUEUES = (Queue("celery", routing_key="celery"), Queue("compose", routing_key="compose"))
CELERY_TASK_ROUTES = {"posting.tasks.account_drafts_compose_task": {"queue": "compose"}}

# --- Tokens at rest -----------------------------------------------------------------
# Fernet keys, newest first: the first encrypts, all decrypt (rotation).
TOKEN_ENCRYPTION_KEYS = env_list("TOKEN_ENCRYPTION_KEYS")
if not TOKEN_ENCRYPTION_KEYS and not DEBUG:
    _REFUSALS.append("TOKEN_ENCRYPTION_KEYS must be set when DJANGO_DEBUG is off.")
elif not TOKEN_ENCRYPTION_KEYS:
    _key_path = VAR_DIR / "token_key"
    if not _key_path.exists():
        _key_path.parent.mkdir(parents=True, exist_ok=True)
        _key_path.write_text(Fernet.generate_key().decode())
        _key_path.chmod(0o600)
    TOKEN_ENCRYPTION_KEYS = [_key_path.read_text().strip()]
# A malformed key would otherwise surface only at the first token write or read, as a failed
# connect or publish. Which entry is wrong is said; the key itself never is.
_REFUSALS.extend(fernet_key_problems("TOKEN_ENCRYPTION_KEYS", TOKEN_ENCRYPTION_KEYS))

# --- Meta Graph API -----------------------------------------------------------------
# Only the base URL differs between the real Graph API and our sandbox. The sandbox's address
# and well-known app credentials are defaults for DEBUG only: anywhere else a forgotten
# value stops start-up instead of sending customers to a sandbox or Meta a sandbox secret.
_SANDBOX_GRAPH = {
    "GRAPH_API_BASE_URL": "http://127.0.0.1:8765",
    "FACEBOOK_APP_ID": "landed-sandbox-app",
    "FACEBOOK_APP_SECRET": "landed-sandbox-secret",
}
for _name in _SANDBOX_GRAPH:
    if not DEBUG and not env_str(_name).strip():
        _REFUSALS.append(f"{_name} must be set when DJANGO_DEBUG is off (the sandbox default is for development).")
GRAPH_API_BASE_URL = (env_str("GRAPH_API_BASE_URL").strip() or _SANDBOX_GRAPH["GRAPH_API_BASE_URL"]).rstrip("/")
GRAPH_API_VERSION = env_str("GRAPH_API_VERSION", "v26.0")
# Meta's login dialog lives on www.facebook.com, not on the API host; the sandbox serves both.
_DIALOG_DEFAULT = (
    "https://www.facebook.com" if GRAPH_API_BASE_URL == "https://graph.facebook.com" else GRAPH_API_BASE_URL
)
GRAPH_DIALOG_BASE_URL = env_str("GRAPH_DIALOG_BASE_URL", _DIALOG_DEFAULT).rstrip("/")
GRAPH_TIMEOUT_S = env_float("GRAPH_TIMEOUT_S", 15.0)

# --- Content-Security-Policy (Django's SECURE_CSP) ------------------------------------
# Scripts and styles only from this origin (the admin's too: Django's admin ships no inline
# script or style); nothing may frame the app; forms post here or, for the connect flow's
# redirect, to Meta's login dialog. Images may come from any https host: a draft shows its
# article's picture where the article keeps it (referrerpolicy=no-referrer on the tag).
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "https:", "data:", *(["http:"] if DEBUG else [])],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF, GRAPH_DIALOG_BASE_URL],
}
FACEBOOK_APP_ID = env_str("FACEBOOK_APP_ID").strip() or _SANDBOX_GRAPH["FACEBOOK_APP_ID"]
FACEBOOK_APP_SECRET = env_str("FACEBOOK_APP_SECRET").strip() or _SANDBOX_GRAPH["FACEBOOK_APP_SECRET"]
# Read-back policy: how many reads, how far apart, before a publication is unconfirmed.
RECONCILE_MAX_READS = env_int("RECONCILE_MAX_READS", 6)
RECONCILE_MIN_INTERVAL_S = env_int("RECONCILE_MIN_INTERVAL_S", 60)

# --- Research -----------------------------------------------------------------------
RESEARCH_ALLOW_HOSTS = env_list("RESEARCH_ALLOW_HOSTS")
RESEARCH_PROXY_URL = env_str("RESEARCH_PROXY_URL")
RESEARCH_USER_AGENT = env_str(
    "RESEARCH_USER_AGENT", "LandedResearch/1.0 (+https://landed.example/bot; feeds for our customers)"
)
RESEARCH_TIMEOUT_S = env_float("RESEARCH_TIMEOUT_S", 10.0)
RESEARCH_FEED_MAX_BYTES = env_int("RESEARCH_FEED_MAX_BYTES", 5 * 1024 * 1024)
RESEARCH_PAGE_MAX_BYTES = env_int("RESEARCH_PAGE_MAX_BYTES", 3 * 1024 * 1024)
# Where `make run` serves the bundled demo feeds (the embedded default only).
DEMO_FEEDS_PORT = env_int("DEMO_FEEDS_PORT", 8766)
RESEARCH_MAX_ARTICLES_PER_FEED = env_int("RESEARCH_MAX_ARTICLES_PER_FEED", 10)
# Politeness per host and process: requests at once, and seconds between request starts.
RESEARCH_HOST_CONCURRENCY = env_int("RESEARCH_HOST_CONCURRENCY", 2)
RESEARCH_HOST_DELAY_S = env_float("RESEARCH_HOST_DELAY_S", 0.25)
# CA bundle for HTTPS fetches (e.g. an egress proxy that re-signs); empty: certifi's bundle.
RESEARCH_CA_FILE = env_str("RESEARCH_CA_FILE")

# --- Language model -----------------------------------------------------------------
OPENAI_API_KEY = env_str("OPENAI_API_KEY")
OPENAI_BASE_URL = env_str("OPENAI_BASE_URL")
OPENAI_MODEL = env_str("OPENAI_MODEL", "gpt-4o-mini")
OPENAI_TIMEOUT_S = env_float("OPENAI_TIMEOUT_S", 30.0)
OPENAI_MAX_RETRIES = env_int("OPENAI_MAX_RETRIES", 2)
# Seconds all the model calls of one web request may take together (posting.llm.llm_deadline):
# well inside gunicorn's 60 s worker timeout (docker-compose.yml), so a slow model makes a tap's
# draft the offline composer's, never a killed request.
LLM_REQUEST_BUDGET_S = env_float("LLM_REQUEST_BUDGET_S", 20.0)

# --- Notifications ------------------------------------------------------------------
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "landed@localhost")
OPERATOR_EMAILS = env_list("OPERATOR_EMAILS")
# SMTP, when EMAIL_BACKEND is django.core.mail.backends.smtp.EmailBackend.
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)

# --- Cron, alarms and watchdogs ------------------------------------------------------
# One registry (cron/jobs.py) generates the cron routes, this schedule and the jobs
# watchdog. Beat is optional: an external cron calling POST /cron/<job>/ works the same.
CELERY_BEAT_SCHEDULE = beat_schedule()
# Alarms: email goes to OPERATOR_EMAILS; the webhook body is signed with HMAC-SHA256 of
# ALARM_WEBHOOK_SECRET in X-Landed-Signature ("sha256=<hex>"). Notices go through an outbox
# (cron.models.AlarmNotification) delivered outside the watchdogs: each channel's notice is
# tried up to ALARM_WEBHOOK_ATTEMPTS times, BACKOFF_S doubling between tries (the names
# predate the outbox; they now apply to every channel).
ALARM_WEBHOOK_URL = env_str("ALARM_WEBHOOK_URL")
ALARM_WEBHOOK_SECRET = env_str("ALARM_WEBHOOK_SECRET")
ALARM_WEBHOOK_ATTEMPTS = env_int("ALARM_WEBHOOK_ATTEMPTS", 3)
ALARM_WEBHOOK_BACKOFF_S = env_float("ALARM_WEBHOOK_BACKOFF_S", 1.0)
ALARM_WEBHOOK_TIMEOUT_S = env_float("ALARM_WEBHOOK_TIMEOUT_S", 5.0)
if ALARM_WEBHOOK_URL and not ALARM_WEBHOOK_SECRET and not DEBUG:
    _REFUSALS.append("ALARM_WEBHOOK_SECRET must be set when ALARM_WEBHOOK_URL is (webhooks are signed).")
# A hung SMTP server must cost the alarm delivery task a bounded wait, not hold a worker
# until the task time limit kills it.
EMAIL_TIMEOUT = env_float("EMAIL_TIMEOUT", 10.0)
# An open alarm is notified again at this interval until it resolves.
ALARM_RENOTIFY_HOURS = env_float("ALARM_RENOTIFY_HOURS", 24.0)
# One account may hold at most this many open alarms of one kind (40 failing custom feeds
# must not page the operator 40 times): beyond it, the last one counts the rest.
ALARMS_PER_ACCOUNT_KIND = env_int("ALARMS_PER_ACCOUNT_KIND", 5)
# Customer-chosen text (feed, page and business names) in an alarm is quoted and cut to this.
ALARM_CUSTOMER_TEXT_MAX_CHARS = env_int("ALARM_CUSTOMER_TEXT_MAX_CHARS", 80)
# The jobs watchdog pings this after every run (healthchecks.io style), so that a dead
# scheduler, which can alarm about nothing itself, is noticed from outside.
WATCHDOG_HEARTBEAT_URL = env_str("WATCHDOG_HEARTBEAT_URL")
WATCHDOG_HEARTBEAT_TIMEOUT_S = env_float("WATCHDOG_HEARTBEAT_TIMEOUT_S", 5.0)
# Landed: how long a paying account (cadence of one or more a day) may go without a landed post.
WATCHDOG_LANDED_WINDOW_HOURS = env_int("WATCHDOG_LANDED_WINDOW_HOURS", 24)
WATCHDOG_CONNECT_WINDOW_HOURS = env_int("WATCHDOG_CONNECT_WINDOW_HOURS", 24)
# A connect younger than this may still be in the customer's hands (claim + page picker).
WATCHDOG_CONNECT_SETTLE_MINUTES = env_int("WATCHDOG_CONNECT_SETTLE_MINUTES", 30)
WATCHDOG_SOURCE_MAX_FAILURES = env_int("WATCHDOG_SOURCE_MAX_FAILURES", 3)
# The gate is suspicious when it rejected (or passed) every one of at least this many drafts.
WATCHDOG_GATE_WINDOW_HOURS = env_int("WATCHDOG_GATE_WINDOW_HOURS", 24)
WATCHDOG_GATE_MIN_DRAFTS = env_int("WATCHDOG_GATE_MIN_DRAFTS", 10)
# LLM: a storm is this many throttled or failed calls within the window.
WATCHDOG_LLM_WINDOW_MINUTES = env_int("WATCHDOG_LLM_WINDOW_MINUTES", 60)
WATCHDOG_LLM_MAX_ERRORS = env_int("WATCHDOG_LLM_MAX_ERRORS", 10)
WATCHDOG_STUCK_MINUTES = env_int("WATCHDOG_STUCK_MINUTES", 60)
# The jobs watchdog calls a job down once its period plus grace (cron/jobs.py) times this has
# passed since it last completed. 1 in production; the fault night (scripts/fault_night.py)
# scales the graces down so that a silent job alarms within a night of minutes. Periods are
# never scaled: they are the beat schedule.
WATCHDOG_JOB_GRACE_SCALE = env_float("WATCHDOG_JOB_GRACE_SCALE", 1.0)
# No finished research run for this long alarms (research_starved, "no_recent_run"): the
# research job's period (3 h) plus its grace (1 h), cron/jobs.py; a test pins the two together.
WATCHDOG_RESEARCH_OVERDUE_S = env_int("WATCHDOG_RESEARCH_OVERDUE_S", 4 * 60 * 60)
# Staff must verify a TOTP code after their password before /ops/ or /admin/ open.
STAFF_REQUIRE_2FA = env_bool("STAFF_REQUIRE_2FA", False)
OTP_TOTP_ISSUER = "Landed"

# --- Review discipline (review/): when approvals turn into a rubber stamp -----------------
# Reading speed for "faster than the post could be read": a brisk silent read, so only a
# decision no one could have read through counts as fast.
REVIEW_READING_WPM = env_int("REVIEW_READING_WPM", 300)
REVIEW_MIN_READING_S = env_float("REVIEW_MIN_READING_S", 3.0)
# The watchdog's window, and the signals it reads in it (each alone opens the alarm):
REVIEW_WINDOW_DAYS = env_int("REVIEW_WINDOW_DAYS", 7)
# this many approvals in a row, each faster than its reading time;
REVIEW_FAST_STREAK = env_int("REVIEW_FAST_STREAK", 5)
# at least this many approvals in the window without the evidence opened once;
REVIEW_EVIDENCE_MIN_APPROVALS = env_int("REVIEW_EVIDENCE_MIN_APPROVALS", 10)
# at least this many decisions in the window, every one an approval;
REVIEW_ALL_APPROVED_MIN = env_int("REVIEW_ALL_APPROVED_MIN", 20)
# at least this many approvals in the window, all within this many seconds of each other.
REVIEW_BURST_MIN = env_int("REVIEW_BURST_MIN", 8)
REVIEW_BURST_SECONDS = env_int("REVIEW_BURST_SECONDS", 120)
# A failed (refused, never seen) publication keeps its account's alarm open this long, or
# until it is retried.
WATCHDOG_REFUSED_LOOKBACK_HOURS = env_int("WATCHDOG_REFUSED_LOOKBACK_HOURS", 72)
# Research runs every few hours and quiet feeds often have nothing new for one run: "found
# nothing usable" alarms only once no run in this many hours found anything usable.
WATCHDOG_RESEARCH_QUIET_HOURS = env_int("WATCHDOG_RESEARCH_QUIET_HOURS", 24)
# An account's source not read successfully for this long (while being tried) alarms for that account.
# (A number of hours, fractions allowed: the fault night, scripts/fault_night.py, runs on minutes.)
WATCHDOG_SOURCE_FAILING_HOURS = env_float("WATCHDOG_SOURCE_FAILING_HOURS", 24.0)
WATCHDOG_TOKEN_EXPIRY_DAYS = env_int("WATCHDOG_TOKEN_EXPIRY_DAYS", 7)
# A channel paused for rate limits longer than this (from the start of the pause to its
# planned end) opens an alarm.
WATCHDOG_CHANNEL_PAUSE_MINUTES = env_int("WATCHDOG_CHANNEL_PAUSE_MINUTES", 60)
# The approval digest goes out once a day per account, at this hour of its local time.
APPROVAL_DIGEST_LOCAL_HOUR = env_int("APPROVAL_DIGEST_LOCAL_HOUR", 7)
# Absolute links in emails.
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
JOBRUN_RETENTION_DAYS = env_int("JOBRUN_RETENTION_DAYS", 30)
ALARM_RETENTION_DAYS = env_int("ALARM_RETENTION_DAYS", 180)

# --- Logging ------------------------------------------------------------------------
LOGGING: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        # urllib3 logs full request URLs at DEBUG; keep it quiet so nothing sensitive leaks.
        "urllib3": {"level": "WARNING"},
    },
}
if CELERY_TASK_ALWAYS_EAGER:
    # In-process tasks would log a "succeeded" line for every click in the embedded demo.
    LOGGING["loggers"]["celery.app.trace"] = {"level": "WARNING"}

# --- Sentry -------------------------------------------------------------------------
SENTRY_DSN = env_str("SENTRY_DSN")

# An alarm that reaches no one is the failure this service exists to prevent: outside DEBUG
# at least one channel (operator email, a webhook, Sentry) must exist, or the operator says
# in writing that alarms may go nowhere (a staging copy, a throwaway load test).
ALARMS_NOWHERE = env_bool("ALARMS_NOWHERE", False)
ALARM_CHANNELS = [
    name
    for name, configured in (
        ("email", bool(OPERATOR_EMAILS)),
        ("webhook", bool(ALARM_WEBHOOK_URL)),
        ("sentry", bool(SENTRY_DSN)),
    )
    if configured
]
if not DEBUG and not ALARM_CHANNELS and not ALARMS_NOWHERE:
    _REFUSALS.append(
        "No alarm channel: set OPERATOR_EMAILS (with an EMAIL_BACKEND that sends), ALARM_WEBHOOK_URL or "
        "SENTRY_DSN, or set ALARMS_NOWHERE=1 to acknowledge that alarms will reach no one."
    )
if _REFUSALS:
    raise ImproperlyConfigured("Landed refuses to start:\n- " + "\n- ".join(_REFUSALS))

if SENTRY_DSN:
    # Imported only when Sentry is on: the integrations hook into Django and Celery.
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=SENTRY_DSN,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        send_default_pii=False,
        # Frame locals can hold decrypted channel tokens; never ship them to Sentry.
        include_local_variables=False,
        environment=env_str("SENTRY_ENVIRONMENT", "production"),
        traces_sample_rate=env_float("SENTRY_TRACES_SAMPLE_RATE", 0.0),
    )

# --- Research isolation between customers (issue 13) ---------------------------------
# Feeds larger than this are refused before parsing: the lenient feed parser holds the
# whole document and costs seconds of CPU per MiB, so one hostile feed must stay small.
RESEARCH_FEED_PARSE_MAX_BYTES = env_int("RESEARCH_FEED_PARSE_MAX_BYTES", 2 * 1024 * 1024)
# Sources one account may follow: each is fetched for it every night, on a shared fetcher.
RESEARCH_MAX_SOURCES_PER_ACCOUNT = env_int("RESEARCH_MAX_SOURCES_PER_ACCOUNT", 50)
# The night fans out as one task per feed (research.source_research), each under its own
# limit: one feed and its at most RESEARCH_MAX_ARTICLES_PER_FEED pages. At the night's
# deadline, feeds no task read (a worker killed holding them) are queued once more; runs
# still open at twice the deadline are closed as they stand (unread feeds count as timeouts).
RESEARCH_SOURCE_TASK_SOFT_LIMIT_S = env_int("RESEARCH_SOURCE_TASK_SOFT_LIMIT_S", 120)
RESEARCH_NIGHT_DEADLINE_S = env_int("RESEARCH_NIGHT_DEADLINE_S", 1800)
# Seconds of feed and page fetching one account's feeds may cost per night (each feed
# costs what it took last night); feeds past it wait, cheapest are read first.
RESEARCH_ACCOUNT_FETCH_SECONDS_PER_NIGHT = env_int("RESEARCH_ACCOUNT_FETCH_SECONDS_PER_NIGHT", 600)
# Per-host politeness shared by every worker process (Redis); empty keeps it per process
# (the embedded default). REDIS_URL, else the Celery broker when that is Redis.
RESEARCH_POLITENESS_REDIS_URL = env_str(
    "REDIS_URL", CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else ""
)

# The cache (the drafts page's cards, the password-reset limit) and the sessions' read copy:
# in Redis when REDIS_URL names one, so every gunicorn worker shares one cache and a signed-in
# request reads its session without a database query (cached_db: written through to the
# database, so a flushed or lost cache signs no one out). Only REDIS_URL, never the broker's
# URL: a cache clear empties its whole Redis database, which must not hold the task queues.
# Without it (the embedded default) each process keeps its own in memory.
CACHE_REDIS_URL = env_str("REDIS_URL")
if CACHE_REDIS_URL:
    CACHES = {
        "default": {
            # Django's, with one client per pool rather than per call (config/cache.py).
            "BACKEND": "config.cache.ReusedClientRedisCache",
            "LOCATION": CACHE_REDIS_URL,
            "KEY_PREFIX": "landed-cache",
            # An unreachable or hung Redis is a cache miss after this long, not a stuck worker
            # (config/cache.py serves without the cache).
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
# The customer's pages and the signed-in user are cached under versions that every write
# replaces (accounts/content_version.py): only correct when every process (gunicorn's workers,
# Celery's) shares the one cache. Without Redis each process has its own, so they are off.
VERSIONED_CACHES = bool(CACHE_REDIS_URL)
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

# Sign-in throttling (django-axes, attempts stored in the database: SQLite or PostgreSQL).
# Each of the username and the address is locked on its own after AXES_FAILURE_LIMIT
# failures, so guessing one user's password from many addresses, or many users' from one
# address, is stopped, while everyone else signs in as usual.
INSTALLED_APPS += ["axes"]
# Last, as django-axes asks: it turns a lockout raised during sign-in into the response.
MIDDLEWARE += ["axes.middleware.AxesMiddleware"]
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 10)
# Hours a lock lasts (django-axes takes a number of hours).
AXES_COOLOFF_TIME = env_float("AXES_COOLOFF_HOURS", 0.5)
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_CLIENT_IP_CALLABLE = "accounts.signin.client_address"
# Attempts are logged without the password; failed usernames may be typos of passwords.
AXES_VERBOSE = False
