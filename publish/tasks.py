"""Publishing tasks: thin, take ids, call one service."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.db import transaction

from publish import services
from publish.models import Publication
from publish.signals import publication_awaiting_read

logger = logging.getLogger(__name__)


@shared_task(
    acks_late=True,
    ignore_result=True,
    # Its own short limits: the stale sweep takes an abandoned claim back once this one passes.
    time_limit=settings.PUBLISH_TASK_TIME_LIMIT,
    soft_time_limit=settings.PUBLISH_TASK_SOFT_TIME_LIMIT,
)
def publication_publish_task(publication_id: int) -> None:
    """Safe to deliver twice: the service claims the publication with a conditional update,
    so a redelivery after a worker died does nothing (the stale sweep turns the abandoned
    claim into UNKNOWN for reconcile)."""
    task_id = publication_publish_task.request.id or ""
    try:
        publication = services.publication_publish(
            publication_id=publication_id, task_id=task_id, time_limit_s=settings.PUBLISH_TASK_TIME_LIMIT
        )
    except Publication.DoesNotExist:
        logger.warning("publication %s no longer exists; nothing to publish", publication_id)
        return
    if publication.status in {Publication.Status.PUBLISHED, Publication.Status.UNKNOWN}:
        # Read it back straight away (reconcile listens); the reconcile sweep covers a lost message.
        transaction.on_commit(lambda: publication_awaiting_read.send(sender=Publication, publication_id=publication_id))
