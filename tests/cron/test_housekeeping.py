"""Daily metrics rollup and cleanup of old records."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from accounts.models import Account
from cron.jobs import job_get
from cron.models import Alarm, DailyMetric, JobRun
from cron.services import daily_metrics_rollup, old_records_cleanup
from research.models import Article, Source, Subscription
from tests import factories
from tests.cron.rows import publication_create

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 6, 2, 10, 0, tzinfo=UTC)


def test_the_rollup_stores_yesterday_and_today_per_account_and_is_safe_to_run_twice(account: Account) -> None:
    source = Source.objects.create(url="https://feeds.example/a.xml")
    Subscription.objects.create(account=account, source=source)
    with time_machine.travel(NOW - timedelta(days=1), tick=False):
        factories.article_create(url="https://news.example/1", source=source)
        factories.article_create(
            url="https://news.example/2", source=source, extraction_status=Article.Extraction.BLOCKED
        )
    publication_create(account=account, landed_at=NOW - timedelta(days=1))
    publication_create(account=account, landed_at=NOW - timedelta(hours=1))

    with time_machine.travel(NOW, tick=False):
        daily_metrics_rollup()
        counts = daily_metrics_rollup()

    assert counts == {"metric_rows": 2}
    yesterday = DailyMetric.objects.get(account=account, day=(NOW - timedelta(days=1)).date())
    today = DailyMetric.objects.get(account=account, day=NOW.date())
    assert (yesterday.articles, yesterday.landed) == (1, 1)
    assert (today.articles, today.landed) == (0, 1)


def test_cleanup_deletes_old_runs_and_alarms_but_keeps_each_jobs_latest_run(settings) -> None:
    settings.JOBRUN_RETENTION_DAYS = 30
    settings.ALARM_RETENTION_DAYS = 180
    daily = job_get("check_tokens")
    old_slot = daily.slot(NOW - timedelta(days=40))
    oldest = JobRun.objects.create(
        job=daily.name, slot=old_slot - timedelta(days=1), outcome="ok", finished_at=old_slot
    )
    latest_old = JobRun.objects.create(job=daily.name, slot=old_slot, outcome="ok", finished_at=old_slot)
    recent = JobRun.objects.create(job="publish_due", slot=NOW - timedelta(days=1), outcome="ok", finished_at=NOW)
    Alarm.objects.create(kind="job_down", subject="a", resolved_at=NOW - timedelta(days=181))
    kept_alarm = Alarm.objects.create(kind="job_down", subject="b", resolved_at=NOW - timedelta(days=10))
    open_alarm = Alarm.objects.create(kind="job_down", subject="c")

    with time_machine.travel(NOW, tick=False):
        counts = old_records_cleanup()

    assert counts == {"job_runs_deleted": 1, "digests_deleted": 0, "notes_deleted": 0, "alarms_deleted": 1}
    assert set(JobRun.objects.values_list("pk", flat=True)) == {latest_old.pk, recent.pk}
    assert not JobRun.objects.filter(pk=oldest.pk).exists()
    assert set(Alarm.objects.values_list("pk", flat=True)) == {kept_alarm.pk, open_alarm.pk}
