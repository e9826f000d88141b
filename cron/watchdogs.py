"""Watchdogs: count the thing that should exist and alarm when it does not (docs/ARCHITECTURE.md lesson 1).

Each watchdog is a job service: it computes the conditions true now, hands them to
``alarms_sync`` (which opens new alarms once, re-notifies open ones at an interval and
resolves the ones that cleared), and returns counts. A watchdog only resolves the alarm
kinds it owns.

Reads go through other apps' contract functions where one exists
(``Publication.objects.landed()``, ``publish.oauth.services.connect_funnel``);
elsewhere (research runs, sources, gate verdicts, LLM usage, publications, channels)
they query those apps' models directly, read-only.
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import datetime, timedelta

import requests
from django.conf import settings
from django.db.models import Count, Min, Q, Sum
from django.utils import timezone

from accounts.models import Account
from cron.notify import customer_text
from cron.selectors import JobState, job_statuses
from cron.services import Condition, alarms_sync
from posting.models import Draft, LLMUsage
from posting.selectors import drafts_awaiting_approval
from publish.models import Channel, Publication
from publish.oauth.services import connect_funnel
from publish.selectors import channels_paused
from research.models import ResearchRun, Source, Subscription

logger = logging.getLogger(__name__)


class Kind:
    """Alarm kinds, one per condition a watchdog can find."""

    NOTHING_LANDED = "nothing_landed"
    CONNECT_FUNNEL_BROKEN = "connect_funnel_broken"
    JOB_DOWN = "job_down"
    RESEARCH_STARVED = "research_starved"
    SOURCE_FAILING = "source_failing"
    GATE_REJECTS_ALL = "gate_rejects_all"
    GATE_PASSES_ALL = "gate_passes_all"
    LLM_THROTTLED = "llm_throttled"
    LLM_ERRORS = "llm_errors"
    LLM_KEY_CHANGED = "llm_key_changed"
    PUBLICATIONS_STUCK = "publications_stuck"
    CHANNEL_NEEDS_RECONNECT = "channel_needs_reconnect"
    TOKEN_EXPIRING = "token_expiring"  # noqa: S105 (an alarm kind, not a password)
    CHANNEL_PAUSED_LONG = "channel_paused_long"
    NOTHING_LANDED_ON_PLATFORM = "nothing_landed_on_platform"
    PUBLICATION_REFUSED = "publication_refused"
    SOURCE_FAILING_FOR_ACCOUNT = "source_failing_for_account"
    REFLEXIVE_APPROVALS = "reflexive_approvals"


# The key in use is compared over a day: long enough that a change overnight is still
# visible in the morning, short enough that the alarm clears once the new key is the norm.
LLM_KEY_WINDOW = timedelta(hours=24)
# Unconfirmed publications need a human; after a week without one they are history.
UNCONFIRMED_LOOKBACK = timedelta(days=7)


def landed_window(*, account: Account) -> timedelta | None:
    """How long this account may go without a landed post; None when it expects none.

    Cadence is posts per platform per day, so any cadence of one or more means at least
    one landed post per day. The window is absolute (24 real hours), not a local calendar
    day, so it neither shrinks nor grows on the night clocks change.
    """
    if account.cadence_per_day < 1:
        return None
    return timedelta(hours=settings.WATCHDOG_LANDED_WINDOW_HOURS)


def watchdog_landed() -> dict[str, int]:
    """Every paying, unpaused account past onboarding grace must have landed a post in its window.

    Driven from the set of accounts, not from publication rows, so an account with no
    channel, no drafts and no publications at all alarms too.
    """
    now = timezone.now()
    conditions = []
    checked = 0
    for account in Account.objects.filter(is_paying=True, paused=False):
        window = landed_window(account=account)
        if window is None or now < account.created_at + timedelta(hours=account.onboarding_grace_hours):
            continue
        checked += 1
        since = now - window
        if not Publication.objects.filter(account=account).landed(start=since).exists():
            conditions.append(
                Condition(
                    kind=Kind.NOTHING_LANDED,
                    account=account,
                    details={
                        "landed": 0,
                        "window_hours": window.total_seconds() / 3600,
                        "since": since.isoformat(),
                        # The usual reasons, so the operator sees where the pipeline stops.
                        "channels_connected": account.channels.filter(status=Channel.Status.CONNECTED).count(),
                        "drafts_awaiting_approval": drafts_awaiting_approval(account=account).count(),
                    },
                )
            )
        else:
            conditions.extend(_platform_silent_conditions(account=account, since=since, window=window))
    kinds = {Kind.NOTHING_LANDED, Kind.NOTHING_LANDED_ON_PLATFORM}
    return {"accounts_checked": checked, **alarms_sync(kinds=kinds, conditions=conditions)}


def _platform_silent_conditions(*, account: Account, since: datetime, window: timedelta) -> list[Condition]:
    """One platform lands nothing while another lands: the account-wide count hides it
    (an Instagram quota, a Page-only block), so each connected platform is counted alone."""
    from publish.models import Channel, Publication

    landed = dict(
        Publication.objects.filter(account=account)
        .landed(start=since)
        .order_by()
        .values("channel__platform")
        .annotate(n=Count("id"))
        .values_list("channel__platform", "n")
    )
    total = sum(landed.values())
    # Only platforms connected for the whole window: a channel bound an hour ago owes nothing yet.
    connected = set(
        account.channels.filter(status=Channel.Status.CONNECTED, connected_at__lt=since)
        .values_list("platform", flat=True)
        .distinct()
    )
    return [
        Condition(
            kind=Kind.NOTHING_LANDED_ON_PLATFORM,
            account=account,
            subject=platform,
            details={
                "platform": platform,
                "landed": 0,
                "landed_elsewhere": total,
                "window_hours": window.total_seconds() / 3600,
                "since": since.isoformat(),
            },
        )
        for platform in sorted(connected)
        if total > 0 and not landed.get(platform)
    ]


def watchdog_connect_funnel() -> dict[str, int]:
    """Per platform: connects were started in the window but none bound a channel.

    A connect started within the last WATCHDOG_CONNECT_SETTLE_MINUTES may still be in
    the customer's hands (consent screen, page picker), so only older starts count;
    a bind at any time in the window counts.
    """
    now = timezone.now()
    since = now - timedelta(hours=settings.WATCHDOG_CONNECT_WINDOW_HOURS)
    in_flight = connect_funnel(since=now - timedelta(minutes=settings.WATCHDOG_CONNECT_SETTLE_MINUTES))
    conditions = []
    for platform, funnel in sorted(connect_funnel(since=since).items()):
        started = int(funnel.get("started", 0)) - int(in_flight.get(platform, {}).get("started", 0))
        if started > 0 and int(funnel.get("bound", 0)) == 0:
            conditions.append(
                Condition(
                    kind=Kind.CONNECT_FUNNEL_BROKEN,
                    subject=platform,
                    details={
                        "started": started,
                        "bound": 0,
                        "failed_by_reason": funnel.get("failed_by_reason", {}),
                        "since": since.isoformat(),
                    },
                )
            )
    return alarms_sync(kinds={Kind.CONNECT_FUNNEL_BROKEN}, conditions=conditions)


def watchdog_jobs() -> dict[str, int]:
    """Every job completed within its period + grace, then a heartbeat ping from outside.

    The watchdog cannot alarm about its own absence (or a dead scheduler), so it pings
    WATCHDOG_HEARTBEAT_URL each time it completes: an external monitor notices the
    silence when the pings stop.
    """
    statuses = job_statuses(now=timezone.now())
    conditions = [
        Condition(
            kind=Kind.JOB_DOWN,
            subject=status.job.name,
            details={
                "last_completed_at": status.last_completed_at.isoformat() if status.last_completed_at else None,
                "expected_every_minutes": status.job.period.total_seconds() / 60,
                "last_outcome": status.last_run.outcome if status.last_run else None,
                "last_error": status.last_run.error[:300] if status.last_run else "",
            },
        )
        for status in statuses
        if status.state == JobState.DOWN
    ]
    counts: Counter[str] = Counter(f"jobs_{status.state}" for status in statuses)
    counts.update(alarms_sync(kinds={Kind.JOB_DOWN}, conditions=conditions))
    if settings.WATCHDOG_HEARTBEAT_URL:
        counts["heartbeat_sent" if _heartbeat_ping() else "heartbeat_failed"] += 1
    return {f"jobs_{state}": 0 for state in ("new", "up", "late", "down")} | dict(counts)


def _heartbeat_ping() -> bool:
    try:
        response = requests.get(
            settings.WATCHDOG_HEARTBEAT_URL, timeout=settings.WATCHDOG_HEARTBEAT_TIMEOUT_S, allow_redirects=False
        )
    except requests.RequestException as exc:
        # Never log the URL: heartbeat URLs embed the check's secret id.
        logger.warning("watchdog heartbeat failed: %s", type(exc).__name__)
        return False
    if response.status_code >= 300:
        logger.warning("watchdog heartbeat failed: HTTP %s", response.status_code)
        return False
    return True


def watchdog_research() -> dict[str, int]:
    """An account whose research runs of the last WATCHDOG_RESEARCH_QUIET_HOURS (the latest
    included) yielded no usable article, or that has had no
    research run for longer than WATCHDOG_RESEARCH_OVERDUE_S (the research job's period +
    grace); a source failing N times in a row.

    Driven from the subscribed, unpaused accounts (the ones research_run_all serves), so
    an account the research run skips, and that therefore has no rows, alarms too.
    """
    now = timezone.now()
    overdue_before = now - timedelta(seconds=settings.WATCHDOG_RESEARCH_OVERDUE_S)
    conditions = []
    accounts = Account.objects.filter(paused=False, subscriptions__isnull=False).annotate(
        first_subscribed_at=Min("subscriptions__created_at")
    )
    for account in accounts:
        latest = ResearchRun.objects.filter(account=account, finished_at__isnull=False).order_by("-started_at").first()
        finished = latest.finished_at if latest else None
        finished_at = finished.isoformat() if finished else None
        if (finished is None or finished < overdue_before) and account.first_subscribed_at < overdue_before:
            conditions.append(
                Condition(
                    kind=Kind.RESEARCH_STARVED,
                    account=account,
                    details={
                        "reason": "no_recent_run",
                        "run_id": latest.pk if latest else None,
                        "finished_at": finished_at,
                    },
                )
            )
        elif latest is not None and latest.starved and not _usable_since(account, now=now):
            conditions.append(
                Condition(
                    kind=Kind.RESEARCH_STARVED,
                    account=account,
                    details={
                        "reason": "no_usable_articles",
                        "run_id": latest.pk,
                        "finished_at": finished_at,
                        "new_articles": latest.new_articles,
                        "feeds_failed": latest.feeds_failed,
                    },
                )
            )
    conditions.extend(_source_failing_conditions())
    conditions.extend(_account_source_conditions(now=now))
    kinds = {Kind.RESEARCH_STARVED, Kind.SOURCE_FAILING, Kind.SOURCE_FAILING_FOR_ACCOUNT}
    return alarms_sync(kinds=kinds, conditions=conditions)


def _usable_since(account: Account, *, now: datetime) -> bool:
    """Whether a research run of the account found something usable in the quiet window: one
    run with nothing new (a quiet afternoon, or a run right after another) is no alarm."""
    quiet_since = now - timedelta(hours=settings.WATCHDOG_RESEARCH_QUIET_HOURS)
    return ResearchRun.objects.filter(account=account, finished_at__gte=quiet_since, usable_articles__gt=0).exists()


def _source_failing_conditions() -> list[Condition]:
    """A source failing N times in a row. A preset source (the operator's catalogue) is one
    alarm for everyone; a custom feed is its subscribers' own, so its alarm belongs to each
    subscribing account, where one account's many failing feeds are bounded and summarised
    (alarms_sync), and its title, which the customer chose, is quoted and truncated.
    """
    conditions = []
    failing = Source.objects.filter(
        consecutive_failures__gte=settings.WATCHDOG_SOURCE_MAX_FAILURES, subscriptions__isnull=False
    ).distinct()
    for source in failing.filter(industry__gt=""):
        conditions.append(
            Condition(
                kind=Kind.SOURCE_FAILING,
                subject=f"source:{source.pk}",
                details={"source_id": source.pk, "title": customer_text(source.title), **_source_failure(source)},
            )
        )
    custom = Subscription.objects.filter(source__in=failing.filter(industry="")).select_related("source", "account")
    for subscription in custom.order_by("account_id", "source_id"):
        source = subscription.source
        conditions.append(
            Condition(
                kind=Kind.SOURCE_FAILING,
                account=subscription.account,
                subject=f"source:{source.pk}",
                details={
                    "source_id": source.pk,
                    "title": customer_text(subscription.title or source.title),
                    **_source_failure(source),
                },
                counted_as="sources failing",
            )
        )
    return conditions


def _source_failure(source: Source) -> dict[str, object]:
    # The feed URL is left out on purpose: a customer's custom feed may carry a key in it.
    return {"consecutive_failures": source.consecutive_failures, "last_error_kind": source.last_error_kind}


def _account_source_conditions(*, now: datetime) -> list[Condition]:
    """Each account's subscribed sources that have not been read successfully for
    WATCHDOG_SOURCE_FAILING_HOURS while being tried: the account's research is thinner
    and only the operator (or the customer) can replace the feed. Paused accounts are
    not researched, so they are left out."""
    failing_since = now - timedelta(hours=settings.WATCHDOG_SOURCE_FAILING_HOURS)
    never_ok_since = Q(source__last_success_at__isnull=True, source__created_at__lt=failing_since)
    subscriptions = (
        Subscription.objects.filter(account__paused=False, source__consecutive_failures__gt=0)
        .filter(Q(source__last_success_at__lt=failing_since) | never_ok_since)
        .filter(created_at__lt=failing_since)
        .select_related("account", "source")
    )
    conditions = []
    for subscription in subscriptions:
        source = subscription.source
        last_ok = source.last_success_at
        hours = (now - (last_ok or max(source.created_at, subscription.created_at))).total_seconds() / 3600
        conditions.append(
            Condition(
                kind=Kind.SOURCE_FAILING_FOR_ACCOUNT,
                account=subscription.account,
                subject=f"source:{source.pk}",
                details={
                    "source_id": source.pk,
                    # The customer's own name for it when they gave one; the URL is left out
                    # (a custom feed may carry a key in it).
                    # (Raw here: the alarm's text quotes it, cron/alarm_text.py.)
                    "title": (subscription.title or source.title)[:120],
                    "failing_hours": round(hours),
                    "last_success_at": last_ok.isoformat() if last_ok else None,
                    "consecutive_failures": source.consecutive_failures,
                    "last_error_kind": source.last_error_kind,
                },
                counted_as="sources failing for a day",
            )
        )
    return conditions


def watchdog_gate_llm() -> dict[str, int]:
    """The gate rejected (or passed) every one of enough drafts; the LLM is throttled, failing
    or answering with a different key or organisation than before (docs/ARCHITECTURE.md lessons 5, 6)."""
    now = timezone.now()
    conditions = []

    gate_since = now - timedelta(hours=settings.WATCHDOG_GATE_WINDOW_HOURS)
    verdicts = (
        Draft.objects.filter(gated_at__gte=gate_since)
        .exclude(gate_verdict="")
        .aggregate(total=Count("id"), passed=Count("id", filter=Q(gate_verdict=Draft.Verdict.PASSED)))
    )
    total, passed = verdicts["total"], verdicts["passed"]
    if total >= settings.WATCHDOG_GATE_MIN_DRAFTS and passed in (0, total):
        kind = Kind.GATE_REJECTS_ALL if passed == 0 else Kind.GATE_PASSES_ALL
        conditions.append(
            Condition(kind=kind, details={"drafts": total, "passed": passed, "since": gate_since.isoformat()})
        )

    llm_since = now - timedelta(minutes=settings.WATCHDOG_LLM_WINDOW_MINUTES)
    usage = LLMUsage.objects.filter(created_at__gte=llm_since).aggregate(
        calls=Count("id"),
        throttled=Sum("throttled_responses"),
        # Endpoint failures (auth and other API errors, 5xx, timeouts, connection); a
        # malformed or refused answer is the model's output, not the endpoint's health.
        errors=Count(
            "id",
            filter=Q(
                status__in=[
                    LLMUsage.Status.API_ERROR,
                    LLMUsage.Status.SERVER_ERROR,
                    LLMUsage.Status.TIMEOUT,
                    LLMUsage.Status.CONNECTION,
                ]
            ),
        ),
    )
    window = {"calls": usage["calls"], "since": llm_since.isoformat()}
    if (usage["throttled"] or 0) >= settings.WATCHDOG_LLM_MAX_ERRORS:
        conditions.append(Condition(kind=Kind.LLM_THROTTLED, details={**window, "throttled": usage["throttled"]}))
    if usage["errors"] >= settings.WATCHDOG_LLM_MAX_ERRORS:
        conditions.append(Condition(kind=Kind.LLM_ERRORS, details={**window, "errors": usage["errors"]}))

    # Fingerprints are short hash prefixes of the key, never the key: safe to show.
    recent = LLMUsage.objects.filter(created_at__gte=now - LLM_KEY_WINDOW)
    fingerprints = sorted(set(recent.exclude(key_fingerprint="").values_list("key_fingerprint", flat=True)))
    organizations = sorted(set(recent.exclude(organization="").values_list("organization", flat=True)))
    if len(fingerprints) > 1 or len(organizations) > 1:
        conditions.append(
            Condition(
                kind=Kind.LLM_KEY_CHANGED,
                details={"key_fingerprints": fingerprints, "organizations": organizations},
            )
        )
    kinds = {
        Kind.GATE_REJECTS_ALL,
        Kind.GATE_PASSES_ALL,
        Kind.LLM_THROTTLED,
        Kind.LLM_ERRORS,
        Kind.LLM_KEY_CHANGED,
    }
    return {"drafts_gated": total, "llm_calls": usage["calls"], **alarms_sync(kinds=kinds, conditions=conditions)}


def watchdog_publishing() -> dict[str, int]:
    """Publications stuck unknown or unconfirmed; channels needing reconnect; tokens expiring soon."""
    now = timezone.now()
    conditions = []
    stuck_before = now - timedelta(minutes=settings.WATCHDOG_STUCK_MINUTES)
    # Unknown is timed from the write whose answer was lost, not from updated_at: every
    # read-back that fails to find the post touches updated_at, which would hide the very
    # publication that reconcile keeps failing to settle.
    unknown_too_long = Q(publishing_started_at__lt=stuck_before) | Q(
        publishing_started_at__isnull=True, updated_at__lt=stuck_before
    )
    stuck = Publication.objects.filter(
        (Q(status=Publication.Status.UNKNOWN) & unknown_too_long)
        | Q(status=Publication.Status.UNCONFIRMED, updated_at__gte=now - UNCONFIRMED_LOOKBACK)
    ).select_related("account")
    by_account: dict[int, list[Publication]] = {}
    for publication in stuck:
        by_account.setdefault(publication.account_id, []).append(publication)
    for publications in by_account.values():
        statuses = Counter(publication.status for publication in publications)
        latest = max(publications, key=lambda p: p.updated_at)
        conditions.append(
            Condition(
                kind=Kind.PUBLICATIONS_STUCK,
                account=publications[0].account,
                details={
                    **statuses,
                    "publication_ids": sorted(p.pk for p in publications)[:20],
                    # The platform's own words on the latest one (a "(#368) Temporarily blocked").
                    "reason": latest.failure_reason[:300],
                },
            )
        )

    conditions.extend(_refused_conditions(now=now))

    expiring_before = now + timedelta(days=settings.WATCHDOG_TOKEN_EXPIRY_DAYS)
    channels = Channel.objects.filter(
        Q(status=Channel.Status.NEEDS_RECONNECT)
        | Q(status=Channel.Status.CONNECTED, token_expires_at__isnull=False, token_expires_at__lt=expiring_before)
    ).select_related("account")
    for channel in channels:
        details = {"channel_id": channel.pk, "platform": channel.platform, "name": customer_text(channel.name)}
        if channel.status == Channel.Status.NEEDS_RECONNECT:
            kind = Kind.CHANNEL_NEEDS_RECONNECT
            details["reason"] = channel.status_reason
        else:
            kind = Kind.TOKEN_EXPIRING
            details["expires_at"] = channel.token_expires_at.isoformat() if channel.token_expires_at else None
        conditions.append(
            Condition(
                kind=kind,
                account=channel.account,
                subject=f"channel:{channel.pk}",
                details=details,
                counted_as="channels needing reconnect" if kind == Kind.CHANNEL_NEEDS_RECONNECT else "tokens expiring",
            )
        )
    conditions.extend(_long_pause_conditions(now=now))
    kinds = {
        Kind.PUBLICATIONS_STUCK,
        Kind.PUBLICATION_REFUSED,
        Kind.CHANNEL_NEEDS_RECONNECT,
        Kind.TOKEN_EXPIRING,
        Kind.CHANNEL_PAUSED_LONG,
    }
    return {"publications_stuck": sum(map(len, by_account.values())), **alarms_sync(kinds=kinds, conditions=conditions)}


def _long_pause_conditions(*, now: datetime) -> list[Condition]:
    """A rate-limit pause planned to last longer than the threshold: posts are held for hours,
    which usually means a quota (Instagram's daily publishing limit) or an app-level limit an
    operator should look at. Resolved when the pause ends."""
    longest = timedelta(minutes=settings.WATCHDOG_CHANNEL_PAUSE_MINUTES)
    conditions = []
    for channel in channels_paused(now=now):
        started = channel.throttled_since or now
        resumes_at = channel.throttled_until
        # Never None for a paused channel (channels_paused filters on it); the check tells mypy.
        if resumes_at is None or resumes_at - started <= longest:
            continue
        details = {
            "channel_id": channel.pk,
            "platform": channel.platform,
            "name": customer_text(channel.name),
            "paused_since": started.isoformat(),
            "resumes_at": resumes_at.isoformat(),
        }
        conditions.append(
            Condition(
                kind=Kind.CHANNEL_PAUSED_LONG,
                account=channel.account,
                subject=f"channel:{channel.pk}",
                details=details,
                counted_as="channels paused for long",
            )
        )
    return conditions


def _refused_conditions(*, now: datetime) -> list[Condition]:
    """Publications that ended failed (the platform refused them, or they were never seen
    after an unknown outcome) within the lookback: one alarm per account and platform,
    naming the latest one's reason and the start of its text (quoted when shown)."""
    from publish.models import Publication

    since = now - timedelta(hours=settings.WATCHDOG_REFUSED_LOOKBACK_HOURS)
    failed = (
        Publication.objects.filter(status=Publication.Status.FAILED, updated_at__gte=since)
        .select_related("account", "channel")
        .order_by("-updated_at")
    )
    grouped: dict[tuple[int, str], list[Publication]] = {}
    for publication in failed:
        grouped.setdefault((publication.account_id, publication.channel.platform), []).append(publication)
    conditions = []
    for (_, platform), publications in sorted(grouped.items()):
        latest = publications[0]
        conditions.append(
            Condition(
                kind=Kind.PUBLICATION_REFUSED,
                account=latest.account,
                subject=platform,
                details={
                    "platform": platform,
                    "refused": len(publications),
                    "publication_ids": sorted(p.pk for p in publications)[:20],
                    "failure_kind": latest.failure_kind,
                    "reason": latest.failure_reason[:300],
                    # Customer-approved text: cut here, quoted wherever it is shown.
                    "excerpt": latest.message[:120],
                },
            )
        )
    return conditions


def watchdog_reviews() -> dict[str, int]:
    """Approvals turning into a rubber stamp, per account, over REVIEW_WINDOW_DAYS: a streak
    of approvals each faster than the post could be read, the evidence never opened, every
    decision an approval, or all approvals in one burst. Any one signal opens the alarm; it
    resolves when none holds. Thresholds are settings (REVIEW_*)."""
    from posting.review.selectors import recent_timed_approvals, review_profiles

    now = timezone.now()
    since = now - timedelta(days=settings.REVIEW_WINDOW_DAYS)
    conditions = []
    profiles = review_profiles(since=since)
    accounts = Account.objects.in_bulk(list(profiles))
    for account_id, profile in sorted(profiles.items()):
        signals = []
        streak = recent_timed_approvals(account_id=account_id, limit=settings.REVIEW_FAST_STREAK)
        if len(streak) >= settings.REVIEW_FAST_STREAK and all(review.faster_than_reading for review in streak):
            signals.append("fast_streak")
        if profile.approved >= settings.REVIEW_EVIDENCE_MIN_APPROVALS and profile.evidence_opened == 0:
            signals.append("evidence_never_opened")
        if profile.decisions >= settings.REVIEW_ALL_APPROVED_MIN and profile.rejected == 0:
            signals.append("every_draft_approved")
        if (
            profile.approved >= settings.REVIEW_BURST_MIN
            and profile.first_approval_at is not None
            and profile.last_approval_at is not None
            and (profile.last_approval_at - profile.first_approval_at).total_seconds() <= settings.REVIEW_BURST_SECONDS
        ):
            signals.append("one_burst")
        if signals:
            conditions.append(
                Condition(
                    kind=Kind.REFLEXIVE_APPROVALS,
                    account=accounts[account_id],
                    details={
                        "signals": signals,
                        "approved": profile.approved,
                        "rejected": profile.rejected,
                        "fast_approvals": profile.fast_approvals,
                        "evidence_opened": profile.evidence_opened,
                        "source_opened": profile.source_opened,
                        "since": since.isoformat(),
                    },
                )
            )
    return {"accounts_reviewed": len(profiles), **alarms_sync(kinds={Kind.REFLEXIVE_APPROVALS}, conditions=conditions)}
