"""Writes of notification choices: the member's own form, and the one-click unsubscribe."""

from __future__ import annotations

from django.db import transaction

from accounts.models import Membership
from notifications.errors import NotificationSettingsInvalid, UnsubscribeLinkInvalid
from notifications.models import Kind, NotificationSetting
from notifications.selectors import member_preferences
from notifications.tokens import unsubscribe_token_read


def notification_settings_update(*, membership: Membership, digest: bool, digest_hour: str, same_day: bool) -> None:
    """Save a member's choices for this account; a bad hour saves nothing and says why."""
    try:
        hour = int(digest_hour)
    except (TypeError, ValueError):
        raise NotificationSettingsInvalid("Choose the digest's hour from the list (0 to 23).") from None
    if not 0 <= hour <= 23:
        raise NotificationSettingsInvalid("Choose the digest's hour from the list (0 to 23).")
    NotificationSetting.objects.update_or_create(
        membership=membership, defaults={"digest": digest, "digest_hour": hour, "same_day": same_day}
    )


def unsubscribe_link_read(*, token: str) -> tuple[Membership, str]:
    """Read the token without changing anything: whose link it is, for which kind of email.
    UnsubscribeLinkInvalid for an altered or forged token, or a membership that is gone."""
    membership_id, kind = unsubscribe_token_read(token)
    membership = Membership.objects.select_related("account", "user").filter(pk=membership_id).first()
    if membership is None:
        raise UnsubscribeLinkInvalid("This unsubscribe link is for a membership that no longer exists.")
    return membership, kind


@transaction.atomic
def notification_unsubscribe(*, token: str) -> tuple[Membership, str]:
    """Turn off the token's kind of email for its membership at once; (membership, kind).

    Idempotent: a second click (or the mail provider's POST and the person's) changes nothing more.
    """
    membership, kind = unsubscribe_link_read(token=token)
    current = member_preferences(membership=membership)
    NotificationSetting.objects.update_or_create(
        membership=membership,
        defaults={
            "digest": current.digest and kind != Kind.DIGEST,
            "digest_hour": current.digest_hour,
            "same_day": current.same_day and kind != Kind.SAME_DAY,
        },
    )
    return membership, kind
