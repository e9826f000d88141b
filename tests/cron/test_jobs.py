"""The job registry, slots, the beat schedule and running a JobRun."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
import time_machine
from django.core.management import call_command
from django.test import override_settings

from cron import jobs
from cron.jobs import JOBS, Job, beat_schedule, job_get
from cron.models import JobRun
from cron.services import job_run_execute, job_run_request
from cron.tasks import job_run_task

# Services for the tests below to point a job at (module-level so a dotted path reaches them).
CALLS: list[str] = []


def counting_service() -> dict[str, int]:
    CALLS.append("counting")
    return {"articles": 3, "drafts": 2}


def leaky_service() -> dict[str, int]:
    raise RuntimeError("Graph said no for https://graph.example/me?access_token=EAAB-SECRET, Bearer EAAB-SECRET")


def not_counts_service() -> list[int]:
    return [1, 2]


@pytest.fixture
def test_job(monkeypatch: pytest.MonkeyPatch) -> Job:
    """Registers one extra job pointing at a service named by the test.

    The registry is module data; patching it is how a test adds a job without
    touching the real ones.
    """
    CALLS.clear()
    job = Job("test_job", f"{__name__}.counting_service", timedelta(minutes=5), timedelta(minutes=5))
    monkeypatch.setitem(jobs.JOBS_BY_NAME, job.name, job)
    return job


@pytest.mark.parametrize("job", JOBS, ids=lambda job: job.name)
def test_every_registered_service_path_imports(job: Job) -> None:
    service = job.service_function()
    assert callable(service)


@pytest.mark.django_db
@pytest.mark.parametrize("job", JOBS, ids=lambda job: job.name)
def test_every_registered_job_runs_and_records_a_dict_of_counts(job: Job, settings) -> None:
    # The registry names services by dotted path; only running them proves each one keeps
    # the contract (no arguments, returns counts) that a JobRun records.
    settings.OPERATOR_EMAILS = []
    settings.WATCHDOG_HEARTBEAT_URL = ""
    run, _ = job_run_request(job_name=job.name)

    run = job_run_execute(job_run_id=run.pk)

    assert run.outcome == JobRun.Outcome.OK, run.error
    assert all(isinstance(key, str) and isinstance(value, int) for key, value in run.counts.items())


def test_job_names_are_unique_and_every_period_divides_a_day() -> None:
    assert len({job.name for job in JOBS}) == len(JOBS)
    for job in JOBS:
        assert timedelta(days=1) % job.period == timedelta(0), job.name
        assert job.grace > timedelta(0), job.name


def test_the_beat_schedule_has_one_entry_per_job_firing_at_the_start_of_each_slot() -> None:
    schedule = beat_schedule()
    assert set(schedule) == {job.name for job in JOBS}
    assert schedule["publish_due"]["task"] == "cron.tasks.job_schedule_task"
    assert schedule["publish_due"]["args"] == ("publish_due",)
    every_five = schedule["gate_drafts"]["schedule"]
    assert every_five.minute == set(range(0, 60, 5))
    daily = schedule["check_tokens"]["schedule"]
    assert daily.hour == {0} and daily.minute == {0}
    three_hourly = schedule["research_feeds"]["schedule"]
    assert three_hourly.hour == set(range(0, 24, 3))


def test_the_settings_carry_the_generated_beat_schedule(settings) -> None:
    assert set(settings.CELERY_BEAT_SCHEDULE) == {job.name for job in JOBS}


def test_a_slot_is_the_time_truncated_to_the_jobs_period() -> None:
    at = datetime(2026, 3, 29, 1, 7, 42, tzinfo=UTC)
    assert job_get("publish_due").slot(at) == datetime(2026, 3, 29, 1, 7, tzinfo=UTC)
    assert job_get("gate_drafts").slot(at) == datetime(2026, 3, 29, 1, 5, tzinfo=UTC)
    assert job_get("research_feeds").slot(at) == datetime(2026, 3, 29, 0, 0, tzinfo=UTC)
    assert job_get("check_tokens").slot(at) == datetime(2026, 3, 29, tzinfo=UTC)


@pytest.mark.django_db
def test_two_requests_in_one_slot_share_a_run_and_the_next_slot_gets_a_new_one(test_job: Job) -> None:
    with time_machine.travel(datetime(2026, 5, 1, 9, 0, 10, tzinfo=UTC), tick=False):
        first, created_first = job_run_request(job_name=test_job.name)
    with time_machine.travel(datetime(2026, 5, 1, 9, 4, 59, tzinfo=UTC), tick=False):
        again, created_again = job_run_request(job_name=test_job.name, trigger="beat")
    with time_machine.travel(datetime(2026, 5, 1, 9, 5, 0, tzinfo=UTC), tick=False):
        nxt, created_next = job_run_request(job_name=test_job.name)
    assert (created_first, created_again, created_next) == (True, False, True)
    assert again.pk == first.pk
    assert nxt.pk != first.pk


@pytest.mark.django_db
def test_a_run_records_the_counts_its_service_produced(test_job: Job) -> None:
    run, _ = job_run_request(job_name=test_job.name)

    job_run_task(run.pk)

    run.refresh_from_db()
    assert run.outcome == JobRun.Outcome.OK
    assert run.counts == {"articles": 3, "drafts": 2}
    assert run.started_at is not None and run.finished_at is not None
    assert CALLS == ["counting"]


@pytest.mark.django_db
def test_a_redelivered_message_does_not_run_the_job_twice(test_job: Job) -> None:
    run, _ = job_run_request(job_name=test_job.name)
    job_run_execute(job_run_id=run.pk)
    job_run_execute(job_run_id=run.pk)
    assert CALLS == ["counting"]


@pytest.mark.django_db
@override_settings(CELERY_TASK_TIME_LIMIT=300)
def test_a_run_lost_with_its_worker_can_be_claimed_again_after_the_time_limit(test_job: Job) -> None:
    start = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
    with time_machine.travel(start, tick=False):
        run, _ = job_run_request(job_name=test_job.name)
        JobRun.objects.filter(pk=run.pk).update(outcome=JobRun.Outcome.RUNNING, started_at=start)
    with time_machine.travel(start + timedelta(seconds=299), tick=False):
        assert job_run_execute(job_run_id=run.pk).outcome == JobRun.Outcome.RUNNING
    with time_machine.travel(start + timedelta(seconds=301), tick=False):
        assert job_run_execute(job_run_id=run.pk).outcome == JobRun.Outcome.OK
    assert CALLS == ["counting"]


@pytest.mark.django_db
def test_a_failing_service_is_a_failed_state_with_the_error_and_never_a_token(
    test_job: Job, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(
        jobs.JOBS_BY_NAME,
        test_job.name,
        Job(test_job.name, f"{__name__}.leaky_service", test_job.period, test_job.grace),
    )
    run, _ = job_run_request(job_name=test_job.name)

    run = job_run_execute(job_run_id=run.pk)

    assert run.outcome == JobRun.Outcome.FAILED
    assert run.error.startswith("RuntimeError: Graph said no")
    assert "EAAB-SECRET" not in run.error
    assert run.finished_at is not None
    assert "leaky_service" in caplog.text  # the traceback is logged...
    assert "EAAB-SECRET" not in caplog.text  # ...redacted


@pytest.mark.django_db
@pytest.mark.parametrize("service", ["not_counts_service", "no_such_function"])
def test_a_service_that_returns_no_counts_or_does_not_exist_fails_the_run(
    service: str, test_job: Job, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(
        jobs.JOBS_BY_NAME, test_job.name, Job(test_job.name, f"{__name__}.{service}", test_job.period, test_job.grace)
    )
    run, _ = job_run_request(job_name=test_job.name)

    run = job_run_execute(job_run_id=run.pk)

    assert run.outcome == JobRun.Outcome.FAILED
    assert run.error


def test_the_crontab_command_prints_one_line_per_job_without_the_secret(settings) -> None:
    out = StringIO()
    call_command("cron_crontab", base_url="https://landed.example/", stdout=out)

    lines = [line for line in out.getvalue().splitlines() if "curl" in line]
    assert len(lines) == len(JOBS)
    assert lines[0].startswith("0 */3 * * * curl ")
    assert lines[0].endswith("https://landed.example/cron/research_feeds/")
    assert all('"Authorization: Bearer $CRON_SECRET"' in line for line in lines)
    assert settings.CRON_SECRET not in out.getvalue()
