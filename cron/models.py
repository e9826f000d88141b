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
    account = models.ForeignKey("accounts.Account", null=True, blank=True, on_delete=models.CASCADE)
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


class AlarmNotification(models.Model):
    """One notice about an alarm for one channel: the outbox of alarm delivery.

    Detection (the watchdog run) only writes these rows; a delivery task claims a row with a
    conditional update on ``claimed_until``, sends it once, and marks it delivered, or gives
    up on a permanent failure or after ALARM_WEBHOOK_ATTEMPTS attempts. So a dead endpoint
    never slows a watchdog down, and two workers never deliver the same row twice.
    """

    class Channel(models.TextChoices):
        EMAIL = "email", "Email"
        SENTRY = "sentry", "Sentry"
        WEBHOOK = "webhook", "Webhook"

    class Event(models.TextChoices):
        OPENED = "opened", "Opened"
        REMINDER = "reminder", "Reminder"
        RESOLVED = "resolved", "Resolved"

    alarm = models.ForeignKey(Alarm, on_delete=models.CASCADE, related_name="notifications")
    channel = models.CharField(max_length=16, choices=Channel.choices)
    event = models.CharField(max_length=16, choices=Event.choices)
    created_at = models.DateTimeField(auto_now_add=True)
    # Nobody else may try this row before this time: a worker's claim while it sends, or
    # the backoff before the next attempt after a retryable failure.
    claimed_until = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    delivered_at = models.DateTimeField(null=True, blank=True)
    given_up_at = models.DateTimeField(null=True, blank=True)
    # Why the last attempt failed; names the channel and the failure, never a URL or a secret.
    last_error = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["created_at"]
        indexes = [
            models.Index(
                fields=["created_at"],
                condition=Q(delivered_at__isnull=True, given_up_at__isnull=True),
                name="alarm_notification_pending",
            )
        ]

    def __str__(self) -> str:
        state = "delivered" if self.delivered_at else "given up" if self.given_up_at else "pending"
        return f"{self.event} of alarm {self.alarm_id} by {self.channel} ({state})"


class MorningDigest(models.Model):
    """One person's morning email for one account about drafts awaiting approval: the claim.

    (membership, local day) is unique and the row is inserted, in its own transaction,
    before the email is sent: however many scheduler ticks, workers or restarts ask, one
    person gets at most one digest per account per day. A send that fails deletes its claim
    so that the next tick tries again; a worker that dies between the send and ``sent_at``
    leaves the claim, and the person gets no second copy that day.
    """

    membership = models.ForeignKey("accounts.Membership", on_delete=models.CASCADE, related_name="+")
    # The account's local calendar day the digest belongs to.
    day = models.DateField()
    claimed_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    drafts = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-day"]
        constraints = [models.UniqueConstraint(fields=["membership", "day"], name="morning_digest_once_per_day")]

    def __str__(self) -> str:
        return f"digest {self.membership_id} {self.day}"


class PublicationNote(models.Model):
    """The outbox of same-day notes: one row per publication outcome (landed, failed).

    The notes job writes a row when it sees the outcome (never the publish or reconcile
    transaction that made it), then claims and sends each row once, with the alarm
    outbox's habit: a conditional update on ``claimed_until``, retries with backoff,
    given up after NOTE_ATTEMPTS. The unique key is what makes it once per outcome.
    """

    class Outcome(models.TextChoices):
        LANDED = "landed", "Landed"
        FAILED = "failed", "Failed"

    publication = models.ForeignKey("publish.Publication", on_delete=models.CASCADE, related_name="+")
    outcome = models.CharField(max_length=16, choices=Outcome.choices)
    created_at = models.DateTimeField(auto_now_add=True)
    claimed_until = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    delivered_at = models.DateTimeField(null=True, blank=True)
    given_up_at = models.DateTimeField(null=True, blank=True)
    recipients = models.PositiveIntegerField(default=0)
    # Why the last attempt failed: the kind of error, never an address or a secret.
    last_error = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [
            models.UniqueConstraint(fields=["publication", "outcome"], name="publication_note_once_per_outcome")
        ]
        indexes = [
            models.Index(
                fields=["created_at"],
                condition=Q(delivered_at__isnull=True, given_up_at__isnull=True),
                name="publication_note_pending",
            )
        ]

    def __str__(self) -> str:
        return f"note {self.outcome} of publication {self.publication_id}"


class DailyMetric(models.Model):
    """One account's funnel for one UTC day, rolled up so history survives record cleanup."""

    account = models.ForeignKey("accounts.Account", on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    articles = models.PositiveIntegerField(default=0)
    drafts = models.PositiveIntegerField(default=0)
    gated = models.PositiveIntegerField(default=0)
    passed = models.PositiveIntegerField(default=0)
    approved = models.PositiveIntegerField(default=0)
    published = models.PositiveIntegerField(default=0)
    landed = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-day"]
        constraints = [models.UniqueConstraint(fields=["account", "day"], name="daily_metric_unique_account_day")]

    def __str__(self) -> str:
        return f"metrics {self.account_id} {self.day}"


class OperatorAction(models.Model):
    """One thing staff did from the console, or looked at: the audit trail of the operator.

    Written for every action whatever its outcome (a refused retry is audited too), and
    for every read-only support view of a customer's pages.
    """

    class Action(models.TextChoices):
        RUN_STAGE = "run_stage", "Run a stage now"
        PAUSE = "pause", "Pause the account"
        RESUME = "resume", "Resume the account"
        RESOLVE_ALARM = "resolve_alarm", "Resolve an alarm"
        RETRY_PUBLICATION = "retry_publication", "Retry a failed publication"
        SUPPORT_VIEW = "support_view", "Viewed as the customer sees it"
        CREATE_ACCOUNT = "create_account", "Created a business"
        INVITE_OWNER = "invite_owner", "Invited an owner"

    user = models.ForeignKey("auth.User", null=True, on_delete=models.SET_NULL, related_name="+")
    # Kept when the user is deleted: the trail must outlive the operator's account.
    username = models.CharField(max_length=150)
    action = models.CharField(max_length=32, choices=Action.choices)
    account = models.ForeignKey("accounts.Account", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # What the action was about beyond the account: "research", "alarm:12", "publication:40", "drafts".
    target = models.CharField(max_length=100, blank=True)
    ok = models.BooleanField(default=True)
    detail = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.username} {self.action} {self.target} ({'ok' if self.ok else 'refused'})"
