"""Job runs and alarms."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q, Value
from django.db.models.functions import Coalesce


class JobRun(models.Model):
    """One run of a periodic job in one time slot; the slot makes duplicate deliveries no-ops."""

    class Outcome(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        OK = "ok", "OK"
        FAILED = "failed", "Failed"

    job = models.CharField(max_length=64)
    slot = models.DateTimeField()
    trigger = models.CharField(max_length=16, default="cron")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=16, choices=Outcome.choices, default=Outcome.QUEUED)
    # What the run produced (articles, drafts, landed, ...), not merely that it ran.
    counts = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-slot"]
        constraints = [models.UniqueConstraint(fields=["job", "slot"], name="jobrun_unique_job_slot")]

    def __str__(self) -> str:
        return f"{self.job} @ {self.slot:%Y-%m-%d %H:%M} ({self.outcome})"


class Alarm(models.Model):
    """A condition that should not hold; opened once, resolved when it clears."""

    kind = models.CharField(max_length=64)
    account = models.ForeignKey("posting.Account", null=True, blank=True, on_delete=models.CASCADE)
    # Distinguishes conditions of one kind and account (a platform, a source id, a job).
    subject = models.CharField(max_length=200, blank=True)
    opened_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    last_notified_at = models.DateTimeField(null=True, blank=True)
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-opened_at"]
        constraints = [
            # Coalesce so that account-less (global) alarms are unique too on every backend.
            models.UniqueConstraint(
                F("kind"),
                Coalesce(F("account"), Value(0)),
                F("subject"),
                condition=Q(resolved_at__isnull=True),
                name="alarm_one_open_per_condition",
            )
        ]

    def __str__(self) -> str:
        return f"alarm {self.kind} {self.subject} ({'open' if self.resolved_at is None else 'resolved'})"
