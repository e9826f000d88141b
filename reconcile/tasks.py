"""Reconcile tasks: thin, take ids, call one service."""

from __future__ import annotations

import logging

from celery import shared_task

from publish.models import Publication
from reconcile import services

logger = logging.getLogger(__name__)


@shared_task(acks_late=True, ignore_result=True)
def publication_reconcile_task(publication_id: int) -> None:
    """Safe to deliver twice: reads are claimed and spaced by the service."""
    try:
        services.publication_reconcile(publication_id=publication_id)
    except Publication.DoesNotExist:
        logger.warning("publication %s no longer exists; nothing to reconcile", publication_id)


def publication_read_enqueue(*, publication_id: int, **_: object) -> None:
    """Receiver of ``publish.signals.publication_awaiting_read`` (sent after commit)."""
    publication_reconcile_task.delay(publication_id)
