"""Reads of review discipline: each account's review profile, all accounts in one query."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Avg, Count, F, Max, Min, Q, Sum

from posting.review.models import DraftReview


@dataclass(frozen=True)
class ReviewProfile:
    decisions: int = 0
    approved: int = 0
    rejected: int = 0
    timed_approvals: int = 0
    fast_approvals: int = 0
    evidence_opened: int = 0
    source_opened: int = 0
    edits: int = 0
    average_seconds: float | None = None
    first_approval_at: datetime | None = None
    last_approval_at: datetime | None = None

    @property
    def approval_rate(self) -> float | None:
        return self.approved / self.decisions if self.decisions else None


def review_profiles(*, since: datetime, account_ids: list[int] | None = None) -> dict[int, ReviewProfile]:
    """Per account, the decisions made since ``since`` and how they were made."""
    approved = Q(decision=DraftReview.Decision.APPROVED)
    reviews = DraftReview.objects.filter(decided_at__gte=since).exclude(decision="")
    if account_ids is not None:
        reviews = reviews.filter(account_id__in=account_ids)
    rows = (
        reviews.order_by()
        .values("account_id")
        .annotate(
            decisions=Count("id"),
            approved=Count("id", filter=approved),
            rejected=Count("id", filter=Q(decision=DraftReview.Decision.REJECTED)),
            timed_approvals=Count("id", filter=approved & Q(seconds_to_decision__isnull=False)),
            fast_approvals=Count("id", filter=approved & Q(seconds_to_decision__lt=F("reading_seconds"))),
            evidence_opened=Count("id", filter=Q(evidence_opened_at__isnull=False)),
            source_opened=Count("id", filter=Q(source_opened_at__isnull=False)),
            edits=Sum("edits"),
            average_seconds=Avg("seconds_to_decision", filter=approved),
            first_approval_at=Min("decided_at", filter=approved),
            last_approval_at=Max("decided_at", filter=approved),
        )
    )
    profiles: dict[int, ReviewProfile] = {}
    for row in rows:
        values: dict[str, Any] = dict(row)
        account_id = values.pop("account_id")
        profiles[account_id] = ReviewProfile(**{**values, "edits": values["edits"] or 0})
    return profiles


def recent_timed_approvals(*, account_id: int, limit: int) -> list[DraftReview]:
    """The account's latest approvals that were shown first (newest first)."""
    return list(
        DraftReview.objects.filter(
            account_id=account_id, decision=DraftReview.Decision.APPROVED, seconds_to_decision__isnull=False
        ).order_by("-decided_at")[:limit]
    )
