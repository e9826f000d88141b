"""Celery tasks of the cron app: thin, they take ids or names and call one service."""

from __future__ import annotations

from celery import Task, shared_task

from cron.errors import NotificationRetry
from cron.notify import alarm_notification_deliver
from cron.services import job_run_execute, job_run_request


@shared_task(name="cron.tasks.job_run_task")
def job_run_task(job_run_id: int) -> None:
    """Run one JobRun that a cron route or beat created for its slot."""
    job_run_execute(job_run_id=job_run_id)


@shared_task(name="cron.tasks.job_schedule_task")
def job_schedule_task(job_name: str) -> None:
    """Beat's entry point: ask for this slot's run, exactly as a cron route would."""
    job_run_request(job_name=job_name, trigger="beat")


@shared_task(name="cron.tasks.alarm_notification_deliver_task", bind=True, acks_late=True, ignore_result=True)
def alarm_notification_deliver_task(self: Task, notification_id: int) -> None:
    """Deliver one outbox row; a retryable failure comes back through Celery's retry, after
    the backoff the service chose (it also caps the attempts, so no max_retries here)."""
    try:
        alarm_notification_deliver(notification_id=notification_id)
    except NotificationRetry as exc:
        raise self.retry(countdown=exc.retry_in_s, max_retries=None) from exc


@shared_task(name="cron.tasks.account_stage_run_task")
def account_stage_run_task(account_id: int, stage: str) -> None:
    """The console's "run now" for one account and one stage."""
    from cron.actions import account_stage_run

    account_stage_run(account_id=account_id, stage=stage)
