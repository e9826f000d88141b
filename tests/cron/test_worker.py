"""A cron call driven end to end through a real Celery worker process on Redis."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.test import Client

from cron.jobs import JOBS
from cron.models import JobRun
from tests.worker import WorkerProcess, wait_until, worker_env


@pytest.fixture
def worker(transactional_db, broker: redis.Redis, tmp_path: Path) -> Iterator[WorkerProcess]:
    process = WorkerProcess(env=worker_env(), log_path=tmp_path / "worker.log").start()
    yield process
    process.stop()


@pytest.mark.worker
def test_a_cron_call_is_run_by_a_worker_and_records_what_it_produced(worker: WorkerProcess) -> None:
    # given a scheduler calling the jobs watchdog route with the secret
    response = Client().post("/cron/watchdog_jobs/", HTTP_AUTHORIZATION=f"Bearer {settings.CRON_SECRET}")
    assert response.status_code == 202

    # when the worker picks the run up
    run = wait_until(
        lambda: JobRun.objects.filter(
            pk=response.json()["run_id"], outcome__in=[JobRun.Outcome.OK, JobRun.Outcome.FAILED]
        ).first(),
        what=f"the worker to finish the run\n{worker.log()}",
    )

    # then the run completed and recorded its counts
    assert run.outcome == JobRun.Outcome.OK, run.error
    assert run.counts["jobs_new"] == len(JOBS)
    assert run.counts["jobs_down"] == 0
