"""Reads of notification choices: one member's, or every member's of many accounts at once."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import User

from accounts.models import Account, Membership, Role
from notifications.models import Kind, NotificationSetting


@dataclass(frozen=True)
class Preferences:
    digest: bool
    digest_hour: int
    same_day: bool

    def wants(self, kind: str) -> bool:
        return self.digest if kind == Kind.DIGEST else self.same_day


def preferences_default(*, role: str) -> Preferences:
    """Before a member chooses: the people who approve get both emails (a digest of drafts is
    their to-do list); a viewer, who cannot act on either, gets neither until they opt in."""
    acts = Role(role).may_edit
    return Preferences(digest=acts, digest_hour=settings.APPROVAL_DIGEST_LOCAL_HOUR, same_day=acts)


def _from_row(row: NotificationSetting) -> Preferences:
    return Preferences(digest=row.digest, digest_hour=row.digest_hour, same_day=row.same_day)


def membership_of(*, user: User, account: Account) -> Membership:
    """The user's membership of an account the view already resolved through member_required."""
    return Membership.objects.get(user=user, account=account)


def member_preferences(*, membership: Membership) -> Preferences:
    row = NotificationSetting.objects.filter(membership=membership).first()
    return _from_row(row) if row is not None else preferences_default(role=membership.role)


def preferences_for(*, memberships: Iterable[Membership]) -> dict[int, Preferences]:
    """Each membership's preferences in one query (the digest and note jobs read many)."""
    memberships = list(memberships)
    rows = {
        row.membership_id: row
        for row in NotificationSetting.objects.filter(membership_id__in=[m.pk for m in memberships])
    }
    return {m.pk: _from_row(rows[m.pk]) if m.pk in rows else preferences_default(role=m.role) for m in memberships}
