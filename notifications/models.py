"""A member's notification choices for one account.

Per membership, not per user: a person in two businesses decides for each. No row means
the defaults (``notifications.selectors.preferences_default``), so a new member needs no
write before their first digest.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class Kind(models.TextChoices):
    """The kinds of customer email, each with its own switch and its own unsubscribe link."""

    DIGEST = "digest", "Morning digest"
    SAME_DAY = "same_day", "Same-day notes"


class NotificationSetting(models.Model):
    membership = models.OneToOneField(
        "accounts.Membership", on_delete=models.CASCADE, related_name="notification_setting"
    )
    digest = models.BooleanField(default=True)
    # The hour of the morning digest, on the account's clock (Account.timezone).
    digest_hour = models.PositiveSmallIntegerField(default=7)
    same_day = models.BooleanField(default=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(digest_hour__lte=23), name="notification_digest_hour_valid"),
        ]

    def __str__(self) -> str:
        return f"notifications of membership {self.membership_id}"
