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


@pytest.mark.worker
def test_beats_message_for_a_job_is_run_by_a_worker_and_recorded_as_a_beat_run(worker: WorkerProcess) -> None:
    # given the message beat sends at the start of a slot, built from the generated schedule
    # (beat itself only sends this; running its scheduler here would add a timing, not a path)
    from celery import current_app

    from cron.jobs import beat_schedule

    entry = beat_schedule()["watchdog_jobs"]
    current_app.send_task(entry["task"], args=entry["args"], **entry["options"])

    # when the worker takes it: it asks for the slot's run, then runs it
    run = wait_until(
        lambda: JobRun.objects.filter(
            job="watchdog_jobs", outcome__in=[JobRun.Outcome.OK, JobRun.Outcome.FAILED]
        ).first(),
        what=f"the worker to run beat's job\n{worker.log()}",
    )

    # then the run is recorded as beat's, with what it produced
    assert (run.trigger, run.outcome) == ("beat", JobRun.Outcome.OK), run.error
    assert run.counts["jobs_down"] == 0
