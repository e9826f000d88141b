"""The job registry: one table from which the cron routes, the Celery beat schedule and
the jobs watchdog are all generated, so that they cannot drift apart.

This module imports nothing from Django's models so that settings can build the beat
schedule from it before the apps are loaded. Services are named by dotted path and
imported only when a job runs, so an app that fails to import breaks its own job, not
every route.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib import import_module
from typing import Any

from celery.schedules import crontab

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Job:
    """A periodic job: which service it calls, how often it should complete, and the grace
    the jobs watchdog allows beyond that before calling it down (healthchecks.io semantics).

    ``period`` must divide a day evenly: the slot of a run is the time truncated to it, and
    the beat schedule (a crontab in UTC) fires once at the start of every slot.
    """

    name: str
    service: str
    period: timedelta
    grace: timedelta

    def slot(self, at: datetime) -> datetime:
        """The start of the period containing ``at`` (UTC), the key that makes duplicate deliveries no-ops."""
        elapsed = at.astimezone(UTC) - _EPOCH
        return _EPOCH + (elapsed // self.period) * self.period

    def cron_expression(self) -> str:
        """The five-field crontab (UTC) that fires at the start of every slot."""
        minutes = int(self.period.total_seconds() // 60)
        if minutes < 60:
            return f"{'*' if minutes == 1 else f'*/{minutes}'} * * * *"
        hours = minutes // 60
        if hours < 24:
            return f"0 {'*' if hours == 1 else f'*/{hours}'} * * *"
        return "0 0 * * *"

    def schedule(self) -> crontab:
        minute, hour, day_of_month, month_of_year, day_of_week = self.cron_expression().split()
        return crontab(
            minute=minute,
            hour=hour,
            day_of_month=day_of_month,
            month_of_year=month_of_year,
            day_of_week=day_of_week,
        )

    def service_function(self) -> Callable[[], dict[str, int]]:
        module_path, _, attribute = self.service.rpartition(".")
        return getattr(import_module(module_path), attribute)


def _minutes(n: int) -> timedelta:
    return timedelta(minutes=n)


def _hours(n: int) -> timedelta:
    return timedelta(hours=n)


JOBS: tuple[Job, ...] = (
    # Pipeline: research → extract → voice → compose → gate → digest → publish → reconcile.
    Job("research_feeds", "research.services.research_night_dispatch", _hours(3), _hours(1)),
    Job("extract_articles", "research.services.articles_extract_pending", _minutes(15), _minutes(15)),
    Job("learn_voices", "posting.voice.services.voices_learn_pending", _hours(1), _minutes(30)),
    Job("compose_drafts", "posting.composer.services.drafts_compose_dispatch", _hours(1), _minutes(30)),
    Job("gate_drafts", "posting.gate.services.drafts_gate_pending", _minutes(5), _minutes(10)),
    # Every 15 minutes so that each person's morning digest goes out soon after their chosen local hour.
    Job("send_approval_digests", "cron.customer_mail.morning_digests_send", _minutes(15), _minutes(15)),
    # Same-day notes when a post lands or fails: the outcomes seen since the last run, then the outbox.
    Job("send_same_day_notes", "cron.customer_mail.same_day_notes_send", _minutes(5), _minutes(10)),
    Job("publish_due", "publish.services.publications_publish_due", _minutes(1), _minutes(5)),
    Job("poll_ig_containers", "publish.services.containers_poll", _minutes(1), _minutes(5)),
    Job("reconcile_recent", "reconcile.services.publications_reconcile_due", _minutes(5), _minutes(10)),
    Job("recheck_landed", "reconcile.services.landed_recheck", _hours(1), _minutes(30)),
    Job("fetch_engagement", "reconcile.services.engagement_fetch", _hours(6), _hours(2)),
    Job("check_tokens", "publish.oauth.services.channels_check_tokens", _hours(24), _hours(2)),
    Job("expire_oauth_claims", "publish.oauth.services.oauth_claims_cleanup", _hours(1), _minutes(30)),
    # Watchdogs: count what should exist and alarm on absence (docs/ARCHITECTURE.md lesson 1).
    Job("watchdog_landed", "cron.watchdogs.watchdog_landed", _hours(1), _minutes(30)),
    Job("watchdog_connect_funnel", "cron.watchdogs.watchdog_connect_funnel", _hours(1), _minutes(30)),
    Job("watchdog_jobs", "cron.watchdogs.watchdog_jobs", _minutes(5), _minutes(10)),
    Job("watchdog_research", "cron.watchdogs.watchdog_research", _hours(1), _minutes(30)),
    Job("watchdog_gate_llm", "cron.watchdogs.watchdog_gate_llm", _minutes(15), _minutes(15)),
    Job("watchdog_publishing", "cron.watchdogs.watchdog_publishing", _minutes(15), _minutes(15)),
    # Approvals turning into a rubber stamp (review/): the failure no other alarm catches.
    Job("watchdog_reviews", "cron.watchdogs.watchdog_reviews", _hours(1), _minutes(30)),
    # Alarm notices the delivery task did not get to (a lost message, a dead worker, a backoff).
    Job("deliver_alarm_notifications", "cron.notify.alarm_notifications_deliver_pending", _minutes(1), _minutes(5)),
    # Housekeeping.
    Job("rollup_daily_metrics", "cron.services.daily_metrics_rollup", _hours(1), _hours(1)),
    Job("cleanup_old_records", "cron.services.old_records_cleanup", _hours(24), _hours(2)),
)

JOBS_BY_NAME: dict[str, Job] = {job.name: job for job in JOBS}


class UnknownJob(LookupError):
    """A job name that is not in the registry."""


def job_get(name: str) -> Job:
    try:
        return JOBS_BY_NAME[name]
    except KeyError:
        raise UnknownJob(f"No job named {name!r}") from None


def beat_schedule() -> dict[str, dict[str, Any]]:
    """CELERY_BEAT_SCHEDULE for self-hosting: one entry per job, each asking for its slot's run.

    Beat and an external cron may both be configured: they meet on the same (job, slot)
    row, so the job still runs once per slot.
    """
    return {
        job.name: {
            "task": "cron.tasks.job_schedule_task",
            "schedule": job.schedule(),
            "args": (job.name,),
            # A tick that waited longer than its own period is stale; the next one is due.
            "options": {"expires": job.period.total_seconds()},
        }
        for job in JOBS
    }
