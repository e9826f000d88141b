"""Celery tasks of the cron app: thin, they take ids or names and call one service."""

from __future__ import annotations

from celery import shared_task

from cron.services import job_run_execute, job_run_request


@shared_task(name="cron.tasks.job_run_task")
def job_run_task(job_run_id: int) -> None:
    """Run one JobRun that a cron route or beat created for its slot."""
    job_run_execute(job_run_id=job_run_id)


@shared_task(name="cron.tasks.job_schedule_task")
def job_schedule_task(job_name: str) -> None:
    """Beat's entry point: ask for this slot's run, exactly as a cron route would."""
    job_run_request(job_name=job_name, trigger="beat")
