"""Cron routes, health probes and the operator page.

Cron routes authenticate with ``Authorization: Bearer <CRON_SECRET>`` only (docs/ARCHITECTURE.md
lesson 3): the User-Agent and any platform cron headers mean nothing, and a secret in
the query string is refused because URLs end up in access logs.
"""

from __future__ import annotations

import hmac
from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import DatabaseError, connection
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST
from kombu import Connection

from accounts.models import Account
from cron.alarm_text import alarm_text
from cron.console import failed_publications_recent
from cron.errors import JobRunNotEnqueued
from cron.models import OperatorAction
from cron.selectors import alarms_open, job_statuses, llm_usage_summary
from cron.services import job_run_request
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
    """The operator's one screen: the fleet (one row per account, those needing a human
    first, each with its 30-day funnel), open alarms, jobs, and the service-wide trends.
    A fixed number of queries however many accounts there are (tests/cron/test_console.py)."""
    if not request.user.is_staff:
        raise PermissionDenied
    from cron.charts import STAGE_COLOURS, bar_chart, legend, line_chart
    from cron.console import FUNNEL_LABELS, FUNNEL_STAGES, PLATFORM_SHORT, fleet, service_trends

    now = timezone.now()
    since = now - timedelta(hours=24)
    rows = fleet(now=now)
    for row in rows:
        series = [
            (FUNNEL_LABELS[stage], colour, [day[stage] for day in row.funnel])
            for stage, colour in zip(FUNNEL_STAGES, STAGE_COLOURS, strict=True)
        ]
        row.chart = line_chart(series=series, title=f"{row.account.name}: funnel, last 30 days")
        row.legend = legend([(label, colour, sum(values)) for label, colour, values in series])
        row.landed_by_platform = [
            (PLATFORM_SHORT.get(platform, platform), counts) for platform, counts in sorted(row.landed.items())
        ]
    trends = service_trends(today=now.date())
    charts = [
        (
            "Landed per day",
            bar_chart(days=trends.days, stacks=[("landed", "#137333", trends.landed)], title="Landed per day"),
            legend([("landed", "#137333", sum(trends.landed))]),
        ),
        (
            "Job runs per day",
            bar_chart(
                days=trends.days,
                stacks=[("ok", "#1a56db", trends.job_runs_ok), ("failed", "#b3261e", trends.job_runs_failed)],
                title="Job runs per day",
            ),
            legend([("ok", "#1a56db", sum(trends.job_runs_ok)), ("failed", "#b3261e", sum(trends.job_runs_failed))]),
        ),
        (
            "LLM calls and 429s per day",
            line_chart(
                series=[("calls", "#7e3af2", trends.llm_calls), ("429s", "#b3261e", trends.llm_throttled)],
                title="LLM calls and 429s per day",
            ),
            legend([("calls", "#7e3af2", sum(trends.llm_calls)), ("429s", "#b3261e", sum(trends.llm_throttled))]),
        ),
    ]
    context = {
        "fleet": rows,
        "charts": charts,
        "alarms": [(alarm, alarm_text(alarm)) for alarm in alarms_open()],
        "jobs": job_statuses(now=now),
        "connect_funnel": sorted(connect_funnel(since=since).items()),
        "llm": llm_usage_summary(since=since),
        "paused_channels": channels_paused(now=now),
        "stages": ("research", "compose", "gate"),
        "failed_publications": failed_publications_recent(now=now),
        # The audit trail: every action and every support view, newest first.
        "operator_actions": OperatorAction.objects.select_related("account")[:50],
    }
    return render(request, "cron/ops.html", context)


def _staff_only(request: HttpRequest) -> None:
    if not request.user.is_authenticated or not request.user.is_staff:
        raise PermissionDenied


def _staff_user(request: HttpRequest) -> AbstractBaseUser:
    """The signed-in staff user (the views call _staff_only first)."""
    user = request.user
    if not isinstance(user, AbstractBaseUser):
        raise PermissionDenied
    return user


@login_required
@require_POST
def ops_stage_run(request: HttpRequest, slug: str, stage: str) -> HttpResponse:
    """Run research, compose or gate for one account now (queued; recorded as a JobRun)."""
    from cron.actions import ActionRefused, account_stage_run_request

    _staff_only(request)
    account = get_object_or_404(Account, slug=slug)
    try:
        account_stage_run_request(user=_staff_user(request), account=account, stage=stage)
    except ActionRefused as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"{stage.capitalize()} queued for {account.slug}; its run shows under Jobs.")
    return redirect(f"{reverse('ops')}#account-{account.slug}")


@login_required
@require_POST
def ops_account_pause(request: HttpRequest, slug: str, paused: bool) -> HttpResponse:
    from cron.actions import account_paused_set

    _staff_only(request)
    account = get_object_or_404(Account, slug=slug)
    account_paused_set(user=_staff_user(request), account=account, paused=paused)
    messages.success(request, f"{account.slug} {'paused' if paused else 'resumed'}.")
    return redirect(f"{reverse('ops')}#account-{account.slug}")


@login_required
@require_POST
def ops_alarm_resolve(request: HttpRequest, alarm_id: int) -> HttpResponse:
    from cron.actions import ActionRefused, alarm_resolve_by_operator

    _staff_only(request)
    try:
        alarm_resolve_by_operator(user=_staff_user(request), alarm_id=alarm_id)
    except ActionRefused as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "Alarm resolved. Its watchdog opens it again if the condition still holds.")
    return redirect("ops")


@login_required
@require_POST
def ops_publication_retry(request: HttpRequest, publication_id: int) -> HttpResponse:
    from cron.actions import ActionRefused, publication_retry_by_operator

    _staff_only(request)
    try:
        publication_retry_by_operator(user=_staff_user(request), publication_id=publication_id)
    except ActionRefused as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Publication {publication_id} scheduled again (its one retry).")
    return redirect("ops")


@login_required
@require_POST
def ops_account_create(request: HttpRequest) -> HttpResponse:
    """Onboard a business: create it (name, slug, time zone) and, with an address given,
    invite its owner. Each step is its own audited action; a refused invite leaves the
    created business in place for a second try from its row."""
    from cron.actions import ActionRefused, account_create_by_operator, owner_invite_by_operator

    _staff_only(request)
    operator = _staff_user(request)
    try:
        account = account_create_by_operator(
            user=operator,
            name=request.POST.get("name", ""),
            slug=request.POST.get("slug", ""),
            timezone_name=request.POST.get("timezone", "").strip() or "UTC",
        )
    except ActionRefused as exc:
        messages.error(request, f"Business not created: {exc}")
        return redirect(f"{reverse('ops')}#onboard")
    messages.success(request, f"{account.name} created ({account.slug}).")
    email = request.POST.get("owner_email", "").strip()
    if email:
        try:
            owner_invite_by_operator(user=operator, account=account, email=email, site_url=_site_url(request))
        except ActionRefused as exc:
            messages.error(request, f"Owner not invited: {exc}")
        else:
            messages.success(request, f"Invitation sent to {email.lower()} as owner of {account.name}.")
    return redirect(f"{reverse('ops')}#account-{account.slug}")


@login_required
@require_POST
def ops_owner_invite(request: HttpRequest, slug: str) -> HttpResponse:
    """Invite (or invite again) the owner of a business by email."""
    from cron.actions import ActionRefused, owner_invite_by_operator

    _staff_only(request)
    account = get_object_or_404(Account, slug=slug)
    email = request.POST.get("email", "")
    try:
        owner_invite_by_operator(user=_staff_user(request), account=account, email=email, site_url=_site_url(request))
    except ActionRefused as exc:
        messages.error(request, f"Owner not invited: {exc}")
    else:
        messages.success(request, f"Invitation sent to {email.strip().lower()} as owner of {account.name}.")
    return redirect(f"{reverse('ops')}#account-{account.slug}")


def _site_url(request: HttpRequest) -> str:
    # The address staff use (a Host ALLOWED_HOSTS accepted), as Django's password reset does.
    return request.build_absolute_uri("/").rstrip("/")


SUPPORT_PAGES = ("drafts", "queue", "history")


@login_required
@require_GET
@never_cache
def ops_support_view(request: HttpRequest, slug: str, page: str) -> HttpResponse:
    """Read-only: the customer's drafts or history as they see them, without any button that
    decides. Every opening is recorded (who, when, which account, which page) and listed on
    the console. Staff are not members, so the customer's own approve route stays a 404 to them."""
    from cron.actions import support_view_record
    from posting.cards import draft_cards_html
    from posting.composer.selectors import skipped_stories_recent
    from posting.models import Draft
    from posting.selectors import drafts_awaiting_page, drafts_held_back, history_rows, queue_page
    from publish.models import Publication

    _staff_only(request)
    account = get_object_or_404(Account, slug=slug)
    if page not in SUPPORT_PAGES:
        raise Http404("No such customer page.")
    support_view_record(user=_staff_user(request), account=account, page=page)
    messages.info(request, f"Support view of {account.name} ({account.slug}): read only, and recorded.")
    number = request.GET.get("page")
    if page == "drafts":
        awaiting, pager = drafts_awaiting_page(account=account, number=number)
        context = {
            "account": account,
            "cards": draft_cards_html(request, account=account, drafts=awaiting, can_decide=False),
            "pager": pager,
            "held_back": drafts_held_back(account=account)[:20],
            "can_decide": False,
            "in_gate": Draft.objects.filter(account=account, status=Draft.Status.DRAFTED).count(),
            "skipped": skipped_stories_recent(account=account),
            "support_view": True,
        }
        return render(request, "posting/drafts.html", context)
    if page == "queue":
        context = {
            **queue_page(account=account, move_choices=0, number=number),
            "weekdays": [],
            "can_decide": False,
            "is_owner": False,
            "support_view": True,
        }
        return render(request, "posting/queue.html", context)
    rows, zone, pager = history_rows(account=account, number=number)
    landed = Publication.objects.filter(account=account).landed().count()
    context = {
        "account": account,
        "rows": rows,
        "zone": zone,
        "pager": pager,
        "landed": landed,
        "support_view": True,
    }
    return render(request, "posting/history.html", context)
