"""Reads of the cron app: job statuses, open alarms and the language model's usage.

The per-account funnel is ``posting.selectors.account_funnel``, the one the customer
pages and ``manage.py pipeline`` read too."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db.models import Count, F, Max, Min, Q, QuerySet, Sum

from cron.jobs import JOBS, Job
from cron.models import Alarm, JobRun
from posting.models import LLMUsage


class JobState:
    """healthchecks.io semantics, derived from facts (the last completed run), never stored."""

    NEW = "new"
    UP = "up"
    LATE = "late"
    DOWN = "down"


@dataclass(frozen=True)
class JobStatus:
    job: Job
    state: str
    last_completed_at: datetime | None
    last_run: JobRun | None


def job_statuses(*, now: datetime) -> list[JobStatus]:
    """Every registered job with its state at ``now``.

    A job is up until its period has passed since it last completed, late during the
    grace after that (times WATCHDOG_JOB_GRACE_SCALE), and down once period + grace have
    passed. A job that has never completed is new only while the scheduler itself is
    younger than its period + grace
    (measured from the first run of any job); after that, never having run is down,
    because absence is exactly what the watchdog exists to notice.
    """
    completed = dict(
        JobRun.objects.filter(outcome=JobRun.Outcome.OK)
        .order_by()
        .values("job")
        .annotate(last=Max("finished_at"))
        .values_list("job", "last")
    )
    latest_ids = JobRun.objects.order_by().values("job").annotate(latest=Max("id")).values("latest")
    last_runs = {run.job: run for run in JobRun.objects.filter(id__in=latest_ids)}
    scheduler_started = JobRun.objects.aggregate(first=Min("created_at"))["first"]

    statuses = []
    for job in JOBS:
        last = completed.get(job.name)
        reference = last or scheduler_started
        grace = job.grace * settings.WATCHDOG_JOB_GRACE_SCALE
        if reference is None or (last is None and now <= reference + job.period + grace):
            state = JobState.NEW
        elif last is not None and now <= last + job.period:
            state = JobState.UP
        elif last is not None and now <= last + job.period + grace:
            state = JobState.LATE
        else:
            state = JobState.DOWN
        statuses.append(JobStatus(job=job, state=state, last_completed_at=last, last_run=last_runs.get(job.name)))
    return statuses


def alarms_open() -> QuerySet[Alarm]:
    return Alarm.objects.filter(resolved_at__isnull=True).select_related("account").order_by("-opened_at")


def llm_usage_summary(*, since: datetime) -> dict[str, object]:
    """The language model as the operator should see it (docs/ARCHITECTURE.md lesson 6): calls and how
    they ended, 429s, cost, and which key and organisation are in use (fingerprints only)."""
    usage = LLMUsage.objects.filter(created_at__gte=since)
    totals = usage.aggregate(
        calls=Count("id"),
        ok=Count("id", filter=Q(status=LLMUsage.Status.OK)),
        throttled=Sum("throttled_responses"),
        cost_usd=Sum("cost_usd"),
        tokens=Sum(F("prompt_tokens") + F("completion_tokens")),
    )
    latest = LLMUsage.objects.order_by("-created_at").first()
    return {
        **totals,
        "throttled": totals["throttled"] or 0,
        "tokens": totals["tokens"] or 0,
        "by_status": dict(usage.order_by().values("status").annotate(n=Count("id")).values_list("status", "n")),
        # What the calls were for (drafting, the gate's judge, relevance's close calls): which one a
        # bill or a throttle comes from.
        "by_purpose": dict(usage.order_by().values("purpose").annotate(n=Count("id")).values_list("purpose", "n")),
        "key_fingerprint": latest.key_fingerprint if latest else "",
        "organization": latest.organization if latest else "",
        "model": latest.model if latest else "",
    }
