"""Deployment checks of our own, run with Django's: ``manage.py check --deploy --fail-level WARNING``.

Start-up already refuses what would be unsafe (config/settings.py). These are the rest: a
configuration that runs, but not the way a production deployment should, said loudly so the
person deploying sees each one before a customer does.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import CheckMessage, Tags, register
from django.core.checks import Warning as CheckWarning

# Backends that accept an email and send it nowhere a person reads.
_MAIL_BACKENDS_THAT_DO_NOT_SEND = {
    "django.core.mail.backends.console.EmailBackend",
    "django.core.mail.backends.locmem.EmailBackend",
    "django.core.mail.backends.dummy.EmailBackend",
    "django.core.mail.backends.filebased.EmailBackend",
}


@register(Tags.security, deploy=True)
def deployment_check(app_configs: Sequence[AppConfig] | None = None, **kwargs: Any) -> list[CheckMessage]:
    return [
        *_alarm_channel_warnings(),
        *_service_warnings(),
        *_public_address_warnings(),
    ]


def _alarm_channel_warnings() -> list[CheckMessage]:
    warnings: list[CheckMessage] = []
    if not settings.ALARM_CHANNELS:
        warnings.append(
            CheckWarning(
                "Alarms reach no one (ALARMS_NOWHERE=1 acknowledges it).",
                hint="Set OPERATOR_EMAILS with an SMTP EMAIL_BACKEND, ALARM_WEBHOOK_URL or SENTRY_DSN.",
                id="landed.W001",
            )
        )
    if settings.OPERATOR_EMAILS and settings.EMAIL_BACKEND in _MAIL_BACKENDS_THAT_DO_NOT_SEND:
        warnings.append(
            CheckWarning(
                f"OPERATOR_EMAILS is set but EMAIL_BACKEND ({settings.EMAIL_BACKEND}) sends nothing: alarm "
                "emails end up in a log.",
                hint="EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend with EMAIL_HOST and friends.",
                id="landed.W002",
            )
        )
    return warnings


def _service_warnings() -> list[CheckMessage]:
    warnings: list[CheckMessage] = []
    if settings.CELERY_TASK_ALWAYS_EAGER:
        warnings.append(
            CheckWarning(
                "CELERY_BROKER_URL is unset: every task runs inside the web request that started it.",
                hint="Point CELERY_BROKER_URL at Redis and run a worker and beat (or the cron routes).",
                id="landed.W003",
            )
        )
    if settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        warnings.append(
            CheckWarning(
                "The database is SQLite (the embedded default).",
                hint="Set DATABASE_URL to PostgreSQL.",
                id="landed.W004",
            )
        )
    if _is_loopback(urlsplit(settings.GRAPH_API_BASE_URL).hostname):
        warnings.append(
            CheckWarning(
                f"GRAPH_API_BASE_URL ({settings.GRAPH_API_BASE_URL}) is on this machine: posts go to a Graph "
                "sandbox, not to Meta.",
                hint="GRAPH_API_BASE_URL=https://graph.facebook.com",
                id="landed.W005",
            )
        )
    return warnings


def _public_address_warnings() -> list[CheckMessage]:
    warnings: list[CheckMessage] = []
    site = urlsplit(settings.SITE_URL)
    if site.scheme != "https" or _is_loopback(site.hostname):
        warnings.append(
            CheckWarning(
                f"SITE_URL ({settings.SITE_URL}) is not a public https:// address: links in emails will not open.",
                hint="SITE_URL=https://<your public host>",
                id="landed.W006",
            )
        )
    elif f"{site.scheme}://{site.netloc}" not in settings.CSRF_TRUSTED_ORIGINS:
        warnings.append(
            CheckWarning(
                "SITE_URL's origin is not in DJANGO_CSRF_TRUSTED_ORIGINS: behind a proxy that does not pass "
                "the Host header and X-Forwarded-Proto through, every login is refused (403).",
                hint=f"DJANGO_CSRF_TRUSTED_ORIGINS={site.scheme}://{site.netloc}",
                id="landed.W007",
            )
        )
    if settings.SECURE_SSL_REDIRECT and not settings.SECURE_PROXY_SSL_HEADER:
        warnings.append(
            CheckWarning(
                "DJANGO_SECURE_SSL_REDIRECT is on without DJANGO_BEHIND_PROXY: behind a TLS proxy every request "
                "looks like plain HTTP and redirects to itself.",
                hint="DJANGO_BEHIND_PROXY=1 when a proxy that sets X-Forwarded-Proto terminates TLS.",
                id="landed.W008",
            )
        )
    return warnings


def _is_loopback(host: str | None) -> bool:
    if not host:
        return True
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
