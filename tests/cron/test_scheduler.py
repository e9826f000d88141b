"""Item 2 of issue 12: every stage run records its JobRun, however it was started, and
`make run` schedules the jobs itself (cron/scheduler.py), so the embedded default does its
overnight work without anyone calling a cron route."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import time_machine

from cron import jobs, scheduler
from cron.jobs import Job
from cron.models import JobRun
from cron.scheduler import InProcessScheduler
from cron.selectors import JobState, job_statuses
from cron.services import job_run_recorded

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def five_minute_job(monkeypatch: pytest.MonkeyPatch) -> Job:
    job = Job("test_job", "tests.cron.test_jobs.counting_service", timedelta(minutes=5), timedelta(minutes=5))
    monkeypatch.setitem(jobs.JOBS_BY_NAME, job.name, job)
    monkeypatch.setattr(scheduler, "JOBS", (job,))
    return job


@pytest.mark.django_db
def test_a_stage_run_outside_cron_is_recorded_as_a_run_of_its_job_and_counts_as_up() -> None:
    now = datetime(2026, 5, 1, 9, 0, 0, tzinfo=UTC)  # a slot boundary of every job
    with time_machine.travel(now, tick=False):
        with job_run_recorded(job_name="research_feeds", trigger="pipeline") as counts:
            counts["new_articles"] = 4
        statuses = {status.job.name: status for status in job_statuses(now=now)}

    run = JobRun.objects.get(job="research_feeds")
    assert (run.trigger, run.outcome, run.counts) == ("pipeline", JobRun.Outcome.OK, {"new_articles": 4})
    # It did not take the scheduled run's slot: the cron route still runs the job this period.
    assert run.slot != jobs.job_get("research_feeds").slot(now)
    assert statuses["research_feeds"].state == JobState.UP
    assert statuses["research_feeds"].last_completed_at == now


@pytest.mark.django_db
def test_a_failing_stage_is_recorded_failed_with_its_redacted_error_and_still_raises() -> None:
    with pytest.raises(RuntimeError), job_run_recorded(job_name="gate_drafts", trigger="pipeline"):
        raise RuntimeError("LLM said no to Bearer sk-SECRET")
    run = JobRun.objects.get(job="gate_drafts")
    assert run.outcome == JobRun.Outcome.FAILED
    assert "sk-SECRET" not in run.error and "RuntimeError" in run.error


@pytest.mark.django_db
def test_two_ad_hoc_runs_in_the_same_instant_get_two_rows() -> None:
    with time_machine.travel(datetime(2026, 5, 1, 9, 3, 7, tzinfo=UTC), tick=False):
        for _ in range(2):
            with job_run_recorded(job_name="compose_drafts", trigger="pipeline"):
                pass
    assert JobRun.objects.filter(job="compose_drafts", outcome=JobRun.Outcome.OK).count() == 2


@pytest.mark.django_db
def test_the_scheduler_asks_once_per_slot_and_again_when_its_clock_passes_the_next(five_minute_job: Job) -> None:
    wall = [datetime(2026, 5, 1, 9, 0, 10, tzinfo=UTC)]
    sched = InProcessScheduler(tick_s=1, speedup=60, now=lambda: wall[0])

    first = sched.tick()
    wall[0] += timedelta(seconds=1)  # one scheduler minute: still the same five-minute slot
    again = sched.tick()
    wall[0] += timedelta(seconds=5)  # six scheduler minutes: the next slot
    later = sched.tick()

    assert (first, again, later) == (1, 0, 1)
    runs = JobRun.objects.filter(job=five_minute_job.name).order_by("slot")
    assert [run.trigger for run in runs] == ["scheduler", "scheduler"]
    assert runs[1].slot - runs[0].slot == timedelta(minutes=5)


@pytest.mark.django_db
def test_a_job_done_in_this_slot_by_make_run_is_not_run_again_until_the_next(five_minute_job: Job) -> None:
    # make run's first pass researched seconds ago: running research again at once finds
    # nothing new and opens a false "nothing usable" alarm (seen walking `make run`).
    wall = [datetime(2026, 5, 1, 9, 1, 0, tzinfo=UTC)]
    with time_machine.travel(wall[0], tick=False), job_run_recorded(job_name=five_minute_job.name, trigger="make_run"):
        pass
    sched = InProcessScheduler(tick_s=1, now=lambda: wall[0])

    assert sched.tick() == 0
    assert not JobRun.objects.filter(job=five_minute_job.name, trigger="scheduler").exists()
    wall[0] += timedelta(minutes=4)  # the next five-minute slot
    assert sched.tick() == 1
    scheduled = JobRun.objects.get(job=five_minute_job.name, trigger="scheduler")
    assert scheduled.slot == datetime(2026, 5, 1, 9, 5, tzinfo=UTC)


@pytest.mark.django_db
def test_a_failed_run_in_this_slot_does_not_stop_the_scheduled_one(five_minute_job: Job) -> None:
    wall = datetime(2026, 5, 1, 9, 1, 0, tzinfo=UTC)
    ran = job_run_recorded(job_name=five_minute_job.name, trigger="make_run")
    with time_machine.travel(wall, tick=False), pytest.raises(RuntimeError), ran:
        raise RuntimeError("a failed run is not work done")
    sched = InProcessScheduler(tick_s=1, now=lambda: wall)

    assert sched.tick() == 1
    assert JobRun.objects.filter(job=five_minute_job.name, trigger="scheduler").count() == 1


def test_a_scheduler_without_a_positive_tick_or_with_a_slowdown_is_refused() -> None:
    with pytest.raises(ValueError):
        InProcessScheduler(tick_s=0)
    with pytest.raises(ValueError):
        InProcessScheduler(speedup=0.5)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _runs(db_path: Path) -> list[tuple[str, str, str]]:
    if not db_path.exists():
        return []
    try:
        with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5) as db:
            return db.execute("SELECT job, trigger, outcome FROM cron_jobrun").fetchall()
    except sqlite3.OperationalError:
        return []  # not migrated yet, or locked for a moment by the product's own writes


def test_make_run_does_its_overnight_work_by_itself(tmp_path: Path) -> None:
    """`make run` as a process, with the scheduler's clock at one hour per second: research,
    compose and gate run again on their own schedule, each recorded, with nobody calling a route."""
    web, sandbox, feeds = _free_port(), _free_port(), _free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL"}}
    env.update(
        DJANGO_DEBUG="1",
        LANDED_VAR_DIR=str(tmp_path / "var"),
        CRON_SECRET="scheduler-test-cron-secret-0123456789abcdef",
        GRAPH_API_BASE_URL=f"http://127.0.0.1:{sandbox}",
        DEMO_FEEDS_PORT=str(feeds),
        RESEARCH_ALLOW_HOSTS=f"127.0.0.1:{feeds}",
    )
    log_path = tmp_path / "landed_run.log"
    command = [sys.executable, "manage.py", "landed_run", "--addrport", f"127.0.0.1:{web}"]
    command += ["--schedule-tick", "1", "--schedule-speedup", "3600"]
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    db_path = tmp_path / "var" / "landed.sqlite3"
    wanted = {"research_feeds", "compose_drafts", "gate_drafts", "publish_due", "reconcile_recent", "watchdog_landed"}
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            if process.poll() is not None:
                pytest.fail(f"landed_run exited early:\n{log_path.read_text(errors='replace')}")
            runs = _runs(db_path)
            by_scheduler = [job for job, trigger, outcome in runs if trigger == "scheduler" and outcome == "ok"]
            if wanted <= set(by_scheduler) and by_scheduler.count("research_feeds") >= 2:
                break
            time.sleep(1)
        else:
            pytest.fail(f"the scheduler did not run the night's jobs:\n{runs}\n{log_path.read_text(errors='replace')}")
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
    # The first pass make run does before serving is recorded too (trigger make_run).
    at_start = {job for job, trigger, outcome in runs if trigger == "make_run" and outcome == "ok"}
    assert {"research_feeds", "compose_drafts", "gate_drafts"} <= at_start
