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
        # The jobs watchdog asks, every few minutes, when each job last completed.
        indexes = [models.Index(fields=["job", "outcome", "finished_at"], name="jobrun_job_outcome_finished")]

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
    # Why the last notification did not reach every channel (blank when it did); never a secret.
    last_notify_error = models.CharField(max_length=500, blank=True)

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


class ApprovalDigest(models.Model):
    """One morning email to an account's members about drafts awaiting approval.

    The row is the claim: (account, local day) is unique, so however often the digest job
    runs, and however many workers run it, each account gets at most one digest a day.
    """

    account = models.ForeignKey("posting.Account", on_delete=models.CASCADE, related_name="+")
    # The account's local calendar day the digest belongs to.
    day = models.DateField()
    sent_at = models.DateTimeField(auto_now_add=True)
    drafts = models.PositiveIntegerField(default=0)
    recipients = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-day"]
        constraints = [models.UniqueConstraint(fields=["account", "day"], name="approval_digest_once_per_day")]

    def __str__(self) -> str:
        return f"digest {self.account_id} {self.day}"


class DailyMetric(models.Model):
    """One account's funnel for one UTC day, rolled up so history survives record cleanup."""

    account = models.ForeignKey("posting.Account", on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    articles = models.PositiveIntegerField(default=0)
    drafts = models.PositiveIntegerField(default=0)
    gated = models.PositiveIntegerField(default=0)
    approved = models.PositiveIntegerField(default=0)
    published = models.PositiveIntegerField(default=0)
    landed = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-day"]
        constraints = [models.UniqueConstraint(fields=["account", "day"], name="daily_metric_unique_account_day")]

    def __str__(self) -> str:
        return f"metrics {self.account_id} {self.day}"
