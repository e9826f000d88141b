"""Thin Celery tasks over the research services (the cron registry schedules them)."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from accounts.models import Account
from research import services


@shared_task(name="research.run_all")
def research_run_all_task() -> dict[str, int]:
    return services.research_run_all()


@shared_task(name="research.run_for_account")
def research_run_for_account_task(account_id: int) -> int:
    account = Account.objects.get(pk=account_id)
    return services.research_run_for_account(account=account).pk


@shared_task(name="research.extract_pending")
def articles_extract_pending_task() -> dict[str, int]:
    return services.articles_extract_pending()


# Each feed's task has its own limits (the default 300 s is for a whole job): a tarpit
# feed costs one task slot for this long at most, never the night.
@shared_task(
    name="research.source_research",
    soft_time_limit=settings.RESEARCH_SOURCE_TASK_SOFT_LIMIT_S,
    time_limit=settings.RESEARCH_SOURCE_TASK_SOFT_LIMIT_S + 30,
)
def source_research_task(source_id: int) -> str:
    outcome = services.source_research(source_id=source_id)
    return outcome.outcome if outcome else "gone"


# The night's deadline before research.runs_finish_overdue; kept for messages already queued.
@shared_task(name="research.runs_finish")
def research_runs_finish_task(force: bool = False) -> int:
    return services.research_runs_finish(force=force)


@shared_task(name="research.runs_finish_overdue")
def research_runs_finish_overdue_task() -> int:
    return services.research_runs_finish_overdue()
