"""How a person reviewed each draft: the record that tells a real approval from a rubber stamp."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class DraftReview(models.Model):
    """One draft's review: when a person was first shown it for a decision, whether they
    opened the gate's evidence and the source article, how often they edited it, and what
    they decided how long after first seeing it.

    Rows are written by hooks on the customer's pages and the draft services
    (``review.services``); nothing here changes what a draft is or may become.
    """

    class Decision(models.TextChoices):
        NONE = "", "Undecided"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"

    draft = models.OneToOneField("posting.Draft", on_delete=models.CASCADE, related_name="review")
    account = models.ForeignKey("accounts.Account", on_delete=models.CASCADE, related_name="+")
    # Null when no page showed it (an approval by ``manage.py pipeline --approve-as``): such a
    # decision has no reading time to judge, so it never counts as fast.
    first_shown_at = models.DateTimeField(null=True, blank=True)
    # How long the text takes to read at REVIEW_READING_WPM, fixed when it was first shown.
    reading_seconds = models.FloatField(default=0.0)
    evidence_opened_at = models.DateTimeField(null=True, blank=True)
    source_opened_at = models.DateTimeField(null=True, blank=True)
    edits = models.PositiveIntegerField(default=0)
    decision = models.CharField(max_length=16, choices=Decision.choices, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    seconds_to_decision = models.FloatField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["account", "decided_at"], name="review_account_decided")]

    def __str__(self) -> str:
        return f"review of draft {self.draft_id} ({self.decision or 'undecided'})"

    @property
    def faster_than_reading(self) -> bool:
        return self.seconds_to_decision is not None and self.seconds_to_decision < self.reading_seconds
