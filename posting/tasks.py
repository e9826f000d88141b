"""Thin Celery tasks for the posting stages: ids in, one service call."""

from __future__ import annotations

from functools import partial

from celery import shared_task
from django.db import transaction

from accounts.models import Account
from posting.composer.services import drafts_compose_for_account
from posting.gate.services import draft_gate


@shared_task(acks_late=True)
def draft_gate_task(draft_id: int) -> str:
    return draft_gate(draft_id=draft_id).gate_verdict


@shared_task(acks_late=True)
def account_drafts_compose_task(account_id: int) -> int:
    """Compose the account's drafts, then hand each new one to the factual gate."""
    account = Account.objects.get(pk=account_id)
    drafts = drafts_compose_for_account(account=account)
    for draft in drafts:
        transaction.on_commit(partial(draft_gate_task.delay, draft.pk))
    return len(drafts)
