"""Reads over what the platforms confirmed."""

from __future__ import annotations

from datetime import datetime

from posting.models import Account
from publish.models import Publication


def landed_count(*, account: Account, since: datetime) -> int:
    """Posts of the account that the platform confirmed live since ``since``.

    A post that landed and was deleted later (VANISHED) still landed: the pipeline worked,
    which is what the landed watchdog asks.
    """
    return Publication.objects.filter(
        account=account,
        status__in=[Publication.Status.LANDED, Publication.Status.VANISHED],
        landed_at__gte=since,
    ).count()
