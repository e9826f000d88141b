"""Reconcile tasks: thin, take ids, call one service."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.db import transaction

from publish.kinds import FailureKind
from publish.models import Publication
from publish.tasks import publication_publish_task
from reconcile import services

logger = logging.getLogger(__name__)


@shared_task(acks_late=True, ignore_result=True)
def publication_reconcile_task(publication_id: int) -> None:
    """Safe to deliver twice: reads are claimed and spaced by the service.

    A read that settled nothing is followed by the next one as soon as reads may be spaced
    (RECONCILE_MIN_INTERVAL_S), not at the reconcile sweep's cadence, and a publication that
    reconcile found safe to retry is sent to publish at once: recovery in minutes. Only the
    task that took a read schedules the next, so the sweep's own reads start no second chain.
    """
    read_before = Publication.objects.filter(pk=publication_id).values_list("last_read_at", flat=True).first()
    try:
        publication = services.publication_reconcile(publication_id=publication_id)
    except Publication.DoesNotExist:
        logger.warning("publication %s no longer exists; nothing to reconcile", publication_id)
        return
    Status = Publication.Status
    if publication.status == Status.SCHEDULED and publication.failure_kind == FailureKind.RETRY_AFTER_UNKNOWN:
        # reconcile sits above publish, so it may call publish's task directly.
        transaction.on_commit(lambda: publication_publish_task.delay(publication_id))
        return
    took_a_read = publication.last_read_at != read_before
    if (
        took_a_read
        and publication.status in {Status.PUBLISHED, Status.UNKNOWN}
        and not publication.channel.paused_until
    ):
        publication_reconcile_task.apply_async((publication_id,), countdown=settings.RECONCILE_MIN_INTERVAL_S)


def publication_read_enqueue(*, publication_id: int, **_: object) -> None:
    """Receiver of ``publish.signals.publication_awaiting_read`` (sent after commit)."""
    publication_reconcile_task.delay(publication_id)
