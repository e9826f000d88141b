"""Cron routes, health probes and the operator page.

Cron routes authenticate with ``Authorization: Bearer <CRON_SECRET>`` only (docs/ARCHITECTURE.md
lesson 3): the User-Agent and any platform cron headers mean nothing, and a secret in
the query string is refused because URLs end up in access logs.
"""

from __future__ import annotations

import hmac
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST
from kombu import Connection

from accounts.models import Account
from cron.errors import JobRunNotEnqueued
from cron.selectors import alarms_open, job_statuses, llm_usage_summary
from cron.services import job_run_request
from posting.selectors import account_funnel
from publish.oauth.services import connect_funnel
from publish.selectors import channels_paused

_BEARER = "Bearer "


def cron_request_authorized(request: HttpRequest) -> bool:
    """True only for a request carrying a configured cron secret, compared in constant time.

    Both the current and the next secret are always compared, so timing does not tell
    which one matched. A configured secret shorter than the minimum counts as unset: with
    DEBUG on such a secret is not refused at start-up, and it must still open nothing.
    """
    if request.META.get("QUERY_STRING"):
        return False
    header = request.META.get("HTTP_AUTHORIZATION", "")
    if not header.startswith(_BEARER):
        return False
    try:
        # WSGI hands headers over as latin-1 text; anything else cannot be a secret of ours.
        presented = header[len(_BEARER) :].encode("latin-1")
    except UnicodeEncodeError:
        return False
    matched = False
    for secret in (settings.CRON_SECRET, settings.CRON_SECRET_NEXT):
        expected = secret.encode() if len(secret) >= settings.CRON_SECRET_MIN_LENGTH else b""
        matched |= bool(expected) & hmac.compare_digest(presented, expected)
    return matched


# Cron routes are called by a scheduler with a bearer secret, never by a browser with
# cookies, so CSRF (a defence for cookie-authenticated requests) does not apply.
@csrf_exempt
@require_POST
@never_cache
def job_trigger(request: HttpRequest, job_name: str) -> HttpResponse:
    """Record this slot's run of the job and enqueue it; 202 with the run id either way."""
    if not cron_request_authorized(request):
        response = JsonResponse({"error": "unauthorized"}, status=401)
        response["WWW-Authenticate"] = 'Bearer realm="cron"'
        return response
    try:
        run, created = job_run_request(job_name=job_name, trigger="cron")
    except JobRunNotEnqueued:
        return _retry_later("not enqueued, retry later")
    except DatabaseError:
        # The database is down or refusing: nothing was recorded, so the scheduler's retry can.
        return _retry_later("database unavailable, retry later")
    return JsonResponse(
        {"job": run.job, "run_id": run.pk, "slot": run.slot.isoformat(), "duplicate": not created}, status=202
    )


def _retry_later(error: str) -> JsonResponse:
    """A retryable refusal that says nothing about the service's address or the error."""
    response = JsonResponse({"error": error}, status=503)
    response["Retry-After"] = "30"
    return response


@require_GET
@never_cache
def healthz(request: HttpRequest) -> HttpResponse:
    """The process is alive and serving requests; nothing else is checked."""
    return JsonResponse({"status": "ok"})


@require_GET
@never_cache
def readyz(request: HttpRequest) -> HttpResponse:
    """Database and broker reachable. Says which check failed, never where or why
    (no hosts, URLs or exception text: this route needs no authentication)."""
    checks = {"database": _database_ready(), "broker": _broker_ready()}
    ready = all(checks.values())
    return JsonResponse(
        {"status": "ok" if ready else "unavailable", "checks": {k: "ok" if v else "down" for k, v in checks.items()}},
        status=200 if ready else 503,
    )


def _database_ready() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception:
        return False
    return True


def _broker_ready() -> bool:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return True  # Embedded default: tasks run in-process, there is no broker to reach.
    try:
        with Connection(settings.CELERY_BROKER_URL, connect_timeout=2) as broker:
            broker.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=2)
    except Exception:
        return False
    return True


@login_required
@never_cache
def ops(request: HttpRequest) -> HttpResponse:
    """The operator's page: open alarms, job states, and for the last 24 h every account's
    funnel, the connect funnel per platform and the language model's usage and key."""
    if not request.user.is_staff:
        raise PermissionDenied
    now = timezone.now()
    since = now - timedelta(hours=24)
    funnels = [
        (account, account_funnel(account=account, start=since, end=now)) for account in Account.objects.order_by("name")
    ]

    context = {
        "alarms": alarms_open(),
        "jobs": job_statuses(now=now),
        "funnels": funnels,
        "connect_funnel": sorted(connect_funnel(since=since).items()),
        "llm": llm_usage_summary(since=since),
        "paused_channels": channels_paused(now=now),
    }
    return render(request, "cron/ops.html", context)
