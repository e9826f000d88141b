"""Thin Celery tasks over the research services (the cron registry schedules them)."""

from __future__ import annotations

from celery import shared_task

from posting.models import Account
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
