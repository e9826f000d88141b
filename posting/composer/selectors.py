"""Reads the composer needs."""

from __future__ import annotations

from posting.models import Account, Platform
from publish.models import Channel


def account_platforms(*, account: Account) -> list[str]:
    """The platforms an account posts to: those with a channel it has not revoked.

    An account that has connected nothing yet (onboarding) gets drafts for every platform,
    so its first morning already shows what Landed would post; approving one then asks it
    to connect that platform.
    """
    connected = set(
        Channel.objects.filter(account=account)
        .exclude(status=Channel.Status.REVOKED)
        .values_list("platform", flat=True)
    )
    return [p for p in Platform.values if p in connected] or list(Platform.values)
