"""Reads for the channels page and the page picker."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from accounts.models import Account
from accounts.selectors import member_may_change_settings
from publish.models import Channel, ConnectGrant
from publish.oauth.services import session_binding


def channels_for_account(*, account: Account) -> QuerySet[Channel]:
    return Channel.objects.filter(account=account).order_by("platform", "name")


def member_can_connect(*, user: User, account: Account) -> bool:
    """Only the owner (``Role.may_change_settings``) connects channels: a channel posts in the
    business's name. Editors and viewers see the channels and their state."""
    return member_may_change_settings(user=user, account=account)


def connect_grant_for_session(*, grant_id: int, user: User, session_key: str) -> ConnectGrant | None:
    """The open page choice this user started in this browser session, or None."""
    grant = (
        ConnectGrant.objects.select_related("claim__account")
        .filter(pk=grant_id, claim__user_id=user.pk, expires_at__gt=timezone.now())
        .first()
    )
    if grant is None or not session_key:
        return None
    if not constant_time_compare(grant.claim.session_binding, session_binding(session_key)):
        return None
    return grant
