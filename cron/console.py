"""Reads for the operator's console: the fleet at a glance and the trends behind it.

Every function here answers for all accounts at once in a fixed number of queries (one
per fact, grouped by account), so the console costs the same with 5 accounts or 500;
``tests/cron/test_console.py`` counts them. The numbers come from their one definition:
landed is ``Publication.objects.landed()``, awaiting approval ``Draft.objects.awaiting_approval()``,
the 30-day funnel the ``DailyMetric`` rows the rollup job writes from ``account_funnel``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.db.models import Count, Max, Min, Q, Sum
from django.db.models.functions import TruncDate

from accounts.models import Account, Platform
from cron.models import Alarm, DailyMetric, JobRun
from posting.models import Draft
from posting.review.selectors import ReviewProfile, review_profiles

FUNNEL_STAGES = ("articles", "drafts", "passed", "approved", "published", "landed")
FUNNEL_LABELS = {
    "articles": "researched",
    "drafts": "drafted",
    "passed": "passed",
    "approved": "approved",
    "published": "published",
    "landed": "landed",
}
TREND_DAYS = 30
GATE_RATE_DAYS = 7
# A draft waiting longer than this, or a gate passing less than this share, needs a look.
STALE_DRAFT_AGE = timedelta(hours=24)
LOW_PASS_RATE = 0.3


@dataclass
class LandedCounts:
    day: int = 0
    week: int = 0
    month: int = 0


@dataclass
class FleetRow:
    account: Account
    landed: dict[str, LandedCounts] = field(default_factory=dict)
    drafts_waiting: int = 0
    oldest_waiting_since: datetime | None = None
    gated_7d: int = 0
    passed_7d: int = 0
    usable_last_run: int | None = None
    last_run_at: datetime | None = None
    channels: list[tuple[str, str, bool]] = field(default_factory=list)  # (platform, status, paused)
    open_alarms: int = 0
    attention: list[str] = field(default_factory=list)
    funnel: list[dict[str, int]] = field(default_factory=list)  # one dict per day, oldest first
    # Drawn by the view for the page: the funnel chart, its legend, landed per platform label.
    chart: str = ""
    legend: str = ""
    landed_by_platform: list[tuple[str, LandedCounts]] = field(default_factory=list)
    review: ReviewProfile = field(default_factory=ReviewProfile)  # how approvals were made, 7 days

    @property
    def pass_rate(self) -> float | None:
        return self.passed_7d / self.gated_7d if self.gated_7d else None

    @property
    def landed_24h(self) -> int:
        return sum(counts.day for counts in self.landed.values())


def fleet(*, now: datetime) -> list[FleetRow]:
    """One row per account, those needing a human first (most reasons, then most alarms)."""
    from publish.models import Channel, Publication
    from research.models import ResearchRun

    rows = {account.pk: FleetRow(account=account) for account in Account.objects.order_by("name")}
    if not rows:
        return []

    day_ago, week_ago, month_ago = now - timedelta(days=1), now - timedelta(days=7), now - timedelta(days=TREND_DAYS)
    landed = (
        Publication.objects.landed(start=month_ago)
        .order_by()
        .values("account_id", "channel__platform")
        .annotate(
            day=Count("id", filter=Q(landed_at__gte=day_ago)),
            week=Count("id", filter=Q(landed_at__gte=week_ago)),
            month=Count("id"),
        )
    )
    for entry in landed:
        rows[entry["account_id"]].landed[entry["channel__platform"]] = LandedCounts(
            entry["day"], entry["week"], entry["month"]
        )

    waiting = (
        Draft.objects.awaiting_approval()
        .order_by()
        .values("account_id")
        .annotate(n=Count("id"), oldest=Min("gated_at"))
    )
    for waiting_entry in waiting:
        rows[waiting_entry["account_id"]].drafts_waiting = waiting_entry["n"]
        rows[waiting_entry["account_id"]].oldest_waiting_since = waiting_entry["oldest"]

    gated = (
        Draft.objects.filter(gated_at__gte=now - timedelta(days=GATE_RATE_DAYS))
        .exclude(gate_verdict="")
        .order_by()
        .values("account_id")
        .annotate(total=Count("id"), passed=Count("id", filter=Q(gate_verdict=Draft.Verdict.PASSED)))
    )
    for gated_entry in gated:
        rows[gated_entry["account_id"]].gated_7d = gated_entry["total"]
        rows[gated_entry["account_id"]].passed_7d = gated_entry["passed"]

    latest_runs = (
        ResearchRun.objects.filter(finished_at__isnull=False).order_by().values("account_id").annotate(last=Max("id"))
    )
    for run in ResearchRun.objects.filter(id__in=latest_runs.values("last")).only(
        "account_id", "usable_articles", "finished_at"
    ):
        rows[run.account_id].usable_last_run = run.usable_articles
        rows[run.account_id].last_run_at = run.finished_at

    channels = Channel.objects.order_by("platform", "pk").only("account_id", "platform", "status", "throttled_until")
    for channel in channels:
        paused = channel.throttled_until is not None and channel.throttled_until > now
        rows[channel.account_id].channels.append((channel.platform, channel.status, paused))

    alarms = (
        Alarm.objects.filter(resolved_at__isnull=True, account__isnull=False)
        .order_by()
        .values("account_id")
        .annotate(n=Count("id"))
    )
    for alarm_entry in alarms:
        rows[alarm_entry["account_id"]].open_alarms = alarm_entry["n"]

    for account_id, profile in review_profiles(since=week_ago).items():
        rows[account_id].review = profile

    series = funnel_series(account_ids=list(rows), today=now.astimezone(UTC).date())
    for account_id, row in rows.items():
        row.funnel = series.get(account_id, [])
        row.attention = _attention(row, now=now)
    return sorted(rows.values(), key=lambda row: (-len(row.attention), -row.open_alarms, row.account.name.lower()))


def _attention(row: FleetRow, *, now: datetime) -> list[str]:
    """Why a human should look at this account today, in the words the console shows."""
    reasons = []
    if row.open_alarms:
        reasons.append(f"{row.open_alarms} open alarm{'s' if row.open_alarms != 1 else ''}")
    if any(status != "connected" for _, status, _ in row.channels):
        reasons.append("a channel needs reconnecting")
    account = row.account
    past_grace = now >= account.created_at + timedelta(hours=account.onboarding_grace_hours)
    if account.is_paying and not account.paused and past_grace and account.cadence_per_day and not row.landed_24h:
        reasons.append("nothing landed in 24 h")
    if row.oldest_waiting_since and now - row.oldest_waiting_since > STALE_DRAFT_AGE:
        reasons.append("drafts waiting over a day")
    if row.pass_rate is not None and row.gated_7d >= 5 and row.pass_rate < LOW_PASS_RATE:
        reasons.append("the gate holds most drafts back")
    if row.usable_last_run == 0 and not account.paused:
        reasons.append("research found nothing usable")
    return reasons


def funnel_series(*, account_ids: list[int], today: date, days: int = TREND_DAYS) -> dict[int, list[dict[str, int]]]:
    """Each account's daily funnel for the last ``days`` UTC days (today included), from the
    rollup rows; a day without a row is a day of zeros (the rollup writes every account)."""
    first = today - timedelta(days=days - 1)
    by_day: dict[int, dict[date, dict[str, int]]] = defaultdict(dict)
    for metric in DailyMetric.objects.filter(account_id__in=account_ids, day__gte=first, day__lte=today).values(
        "account_id", "day", *FUNNEL_STAGES
    ):
        by_day[metric["account_id"]][metric["day"]] = {stage: metric[stage] for stage in FUNNEL_STAGES}
    zeros = dict.fromkeys(FUNNEL_STAGES, 0)
    dates = [first + timedelta(days=i) for i in range(days)]
    return {
        account_id: [by_day[account_id].get(day, zeros) | {"day": day.toordinal()} for day in dates]
        for account_id in account_ids
    }


@dataclass(frozen=True)
class ServiceTrends:
    days: list[date]
    landed: list[int]
    job_runs_ok: list[int]
    job_runs_failed: list[int]
    llm_calls: list[int]
    llm_throttled: list[int]


def service_trends(*, today: date, days: int = TREND_DAYS) -> ServiceTrends:
    """Service-wide, per UTC day: landed posts (the rollup), job runs by outcome, LLM calls and 429s."""
    from posting.models import LLMUsage

    first = today - timedelta(days=days - 1)
    start = datetime.combine(first, datetime.min.time(), tzinfo=UTC)
    dates = [first + timedelta(days=i) for i in range(days)]
    landed = dict(
        DailyMetric.objects.filter(day__gte=first, day__lte=today)
        .order_by()
        .values("day")
        .annotate(n=Sum("landed"))
        .values_list("day", "n")
    )
    runs: dict[date, dict[str, Any]] = {
        entry["d"]: dict(entry)
        for entry in JobRun.objects.filter(finished_at__gte=start)
        .annotate(d=TruncDate("finished_at", tzinfo=UTC))
        .order_by()
        .values("d")
        .annotate(
            ok=Count("id", filter=Q(outcome=JobRun.Outcome.OK)),
            failed=Count("id", filter=Q(outcome=JobRun.Outcome.FAILED)),
        )
    }
    llm: dict[date, dict[str, Any]] = {
        entry["d"]: dict(entry)
        for entry in LLMUsage.objects.filter(created_at__gte=start)
        .annotate(d=TruncDate("created_at", tzinfo=UTC))
        .order_by()
        .values("d")
        .annotate(calls=Count("id"), throttled=Sum("throttled_responses"))
    }
    return ServiceTrends(
        days=dates,
        landed=[landed.get(day) or 0 for day in dates],
        job_runs_ok=[runs.get(day, {}).get("ok", 0) for day in dates],
        job_runs_failed=[runs.get(day, {}).get("failed", 0) for day in dates],
        llm_calls=[llm.get(day, {}).get("calls", 0) for day in dates],
        llm_throttled=[llm.get(day, {}).get("throttled") or 0 for day in dates],
    )


PLATFORM_SHORT: dict[str, str] = {Platform.FACEBOOK_PAGE: "FB", Platform.INSTAGRAM: "IG"}


def failed_publications_recent(*, now: datetime, days: int = 7, limit: int = 30) -> list[Any]:
    """Failed publications of the last week, newest first, for the console's retry buttons."""
    from publish.models import Publication

    return list(
        Publication.objects.filter(status=Publication.Status.FAILED, updated_at__gte=now - timedelta(days=days))
        .select_related("account", "channel")
        .order_by("-updated_at")[:limit]
    )
