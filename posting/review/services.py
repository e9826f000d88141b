"""Writes of review discipline: a draft shown, its evidence or source opened, an edit, a decision.

Each is one small write beside the customer's action, never in its way: a failure here
must not stop an approval, so callers use ``review_*`` after their own work is done.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from posting.models import Draft
from posting.review.models import DraftReview

_WORD = re.compile(r"\w+")


def reading_seconds_of(text: str) -> float:
    """How long a person takes to read ``text`` once at REVIEW_READING_WPM (words per minute)."""
    words = len(_WORD.findall(text))
    return round(max(settings.REVIEW_MIN_READING_S, words * 60 / settings.REVIEW_READING_WPM), 1)


def reviews_shown(*, drafts: Iterable[Draft], at: datetime | None = None) -> int:
    """Record that these drafts were shown for a decision (the first showing counts; later
    ones change nothing). Returns how many were shown for the first time."""
    now = at or timezone.now()
    rows = [
        DraftReview(
            draft=draft, account_id=draft.account_id, first_shown_at=now, reading_seconds=reading_seconds_of(draft.text)
        )
        for draft in drafts
    ]
    if not rows:
        return 0
    before = DraftReview.objects.filter(draft_id__in=[row.draft_id for row in rows]).count()
    if before < len(rows):
        # Only when some are new: a page read again (the usual case) writes nothing.
        DraftReview.objects.bulk_create(rows, ignore_conflicts=True)
    # A draft recorded before without a showing (decided headless) keeps its null: it was not shown then.
    return len(rows) - before


def _review_for(draft: Draft) -> DraftReview:
    review, _ = DraftReview.objects.get_or_create(
        draft=draft,
        defaults={"account_id": draft.account_id, "reading_seconds": reading_seconds_of(draft.text)},
    )
    return review


class Opened:
    EVIDENCE = "evidence"
    SOURCE = "source"
    ALL = (EVIDENCE, SOURCE)


def review_opened(*, draft: Draft, what: str) -> None:
    """The person opened the gate's evidence or the source article of this draft (first time counts)."""
    if what not in Opened.ALL:
        raise ValueError(f"what must be one of {Opened.ALL}, not {what!r}")
    column = f"{what}_opened_at"
    review = _review_for(draft)
    DraftReview.objects.filter(pk=review.pk, **{f"{column}__isnull": True}).update(**{column: timezone.now()})


def review_edited(*, draft: Draft) -> None:
    """A person changed the draft's text (a model rewrite or staff edit does not count)."""
    review = _review_for(draft)
    DraftReview.objects.filter(pk=review.pk).update(edits=F("edits") + 1)


def review_decided(*, draft: Draft, user: AbstractBaseUser | None, decision: str) -> DraftReview:
    """Record the decision and, when the draft was shown, how long after its first showing it came.

    Two queries when the draft was shown (read, update), three when it was not (read, insert
    with the decision, all in a savepoint): it runs inside every approval.
    """
    decided_at = draft.decided_at or timezone.now()
    decided_by = user if user is not None and user.pk else None
    review = DraftReview.objects.filter(draft_id=draft.pk).first()
    if review is None:
        # Decided without being shown (headless): recorded with the decision in one insert.
        # A concurrent first showing may insert it meanwhile: then it is read and updated.
        try:
            with transaction.atomic():
                return DraftReview.objects.create(
                    draft=draft,
                    account_id=draft.account_id,
                    reading_seconds=reading_seconds_of(draft.text),
                    decision=decision,
                    decided_at=decided_at,
                    decided_by_id=decided_by.pk if decided_by is not None else None,
                )
        except IntegrityError:
            review = DraftReview.objects.get(draft_id=draft.pk)
    seconds = (decided_at - review.first_shown_at).total_seconds() if review.first_shown_at else None
    changes = {
        "decision": decision,
        "decided_at": decided_at,
        "decided_by": decided_by,
        "seconds_to_decision": max(seconds, 0.0) if seconds is not None else None,
    }
    DraftReview.objects.filter(pk=review.pk).update(**changes)
    for name, value in changes.items():
        setattr(review, name, value)
    return review


def approval_pace_note(*, review: DraftReview) -> str | None:
    """The gentle note for an approval faster than the post can be read; None otherwise."""
    if review.decision != DraftReview.Decision.APPROVED or not review.faster_than_reading:
        return None
    return (
        f"You approved this in {math.floor(review.seconds_to_decision or 0)} s; reading it takes about "
        f"{math.ceil(review.reading_seconds)} s. The fact check compares the post with its article, "
        "but only you can tell whether it is right for your business: it is worth a slower read."
    )


def approval_pace_note_for(*, draft: Draft) -> str | None:
    """The gentle note for this draft's approval, if it came faster than its reading time."""
    review = DraftReview.objects.filter(draft_id=draft.pk).first()
    return approval_pace_note(review=review) if review else None
