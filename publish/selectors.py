"""Reads for publishing."""

from __future__ import annotations

from datetime import datetime

from django.db.models import QuerySet

from publish.models import Channel, Publication


def channel_connected_for(*, account_id: int, platform: str) -> Channel | None:
    """The account's connected channel for a platform (the first connected, if several)."""
    return (
        Channel.objects.filter(account_id=account_id, platform=platform, status=Channel.Status.CONNECTED)
        .order_by("connected_at", "pk")
        .first()
    )


def publications_due(*, now: datetime, with_container: bool) -> QuerySet[Publication]:
    """Scheduled publications whose time has come, on connected channels of active accounts.

    ``with_container`` selects Instagram publications waiting on a container (polled often)
    rather than ones not yet started.
    """
    queryset = Publication.objects.filter(
        status=Publication.Status.SCHEDULED,
        scheduled_for__lte=now,
        channel__status=Channel.Status.CONNECTED,
        account__paused=False,
    )
    queryset = queryset.exclude(container_id="") if with_container else queryset.filter(container_id="")
    return queryset.order_by("scheduled_for", "pk")


def channels_paused(*, now: datetime) -> QuerySet[Channel]:
    """Channels held by a rate-limit pause right now, soonest to resume first."""
    return Channel.objects.filter(throttled_until__gt=now).select_related("account").order_by("throttled_until")


def publications_queued(*, account_id: int) -> QuerySet[Publication]:
    """The account's queue: approved posts not yet out (waiting or being sent), soonest first."""
    return (
        Publication.objects.filter(
            account_id=account_id, status__in=[Publication.Status.SCHEDULED, Publication.Status.PUBLISHING]
        )
        .select_related("channel")
        .order_by("scheduled_for", "pk")
    )
