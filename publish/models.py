"""Channels, OAuth claims, publications and their attempts."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from accounts.content_version import ContentVersionedQuerySet
from accounts.models import Platform
from publish.kinds import AttemptOutcome, FailureKind, RequestKind


class Channel(models.Model):
    """A connected Facebook Page or Instagram professional account."""

    class Status(models.TextChoices):
        CONNECTED = "connected", "Connected"
        NEEDS_RECONNECT = "needs_reconnect", "Needs reconnect"
        REVOKED = "revoked", "Revoked"
        # The owner disconnected it: our token revoked at the platform and deleted here. Its
        # publications and their history stay; connecting the same Page again rebinds it.
        DISCONNECTED = "disconnected", "Disconnected"

    account = models.ForeignKey("accounts.Account", on_delete=models.CASCADE, related_name="channels")
    platform = models.CharField(max_length=32, choices=Platform.choices)
    external_id = models.CharField(max_length=64)
    name = models.CharField(max_length=300, blank=True)
    # Fernet ciphertext (publish.crypto); never the plaintext, never shown in admin.
    token_ciphertext = models.TextField(blank=True)
    token_expires_at = models.DateTimeField(null=True, blank=True)
    token_checked_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.CONNECTED)
    status_reason = models.CharField(max_length=500, blank=True)
    # The platform throttled this channel (or its usage headers neared the limit): no
    # request for it before this time, including publications scheduled meanwhile.
    throttled_until = models.DateTimeField(null=True, blank=True)
    # When the pause in force began (kept while it is extended), so a long one can alarm.
    throttled_since = models.DateTimeField(null=True, blank=True)
    connected_at = models.DateTimeField(auto_now_add=True)

    # Shown on the customer's pages: writes bump the account's content version (accounts/content_version.py).
    objects = ContentVersionedQuerySet["Channel"].as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["account", "platform", "external_id"], name="channel_unique_external")
        ]

    def __str__(self) -> str:
        return f"{self.get_platform_display()} {self.name or self.external_id}"

    def __repr__(self) -> str:
        # Keep the ciphertext out of reprs that end up in logs and tracebacks.
        return f"<Channel {self.pk} {self.platform} {self.external_id} {self.status}>"

    @property
    def paused_until(self) -> datetime | None:
        """When a rate-limit pause in force now ends; None when the channel is not paused."""
        if self.throttled_until is not None and self.throttled_until > timezone.now():
            return self.throttled_until
        return None


class ChannelDisconnect(models.Model):
    """The audit row of one disconnect: who, when, what the platform said, what left the queue."""

    channel = models.ForeignKey(Channel, on_delete=models.CASCADE, related_name="disconnects")
    account = models.ForeignKey("accounts.Account", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    # Kept when the user is deleted: the trail must outlive the person.
    username = models.CharField(max_length=150)
    created_at = models.DateTimeField(auto_now_add=True)
    # True when the platform confirmed the revoke (or said the token was already dead).
    revoked = models.BooleanField(default=False)
    # Why the token was not revoked at the platform, in words; never the token.
    revoke_detail = models.CharField(max_length=300, blank=True)
    # Queued publications taken back to drafts.
    withdrawn = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.username} disconnected channel {self.channel_id}"


class OAuthClaim(models.Model):
    """One connect attempt: minted at start, consumed exactly once at the callback."""

    class Outcome(models.TextChoices):
        PENDING = "", "Pending"
        BOUND = "bound", "Channel bound"
        DENIED = "denied", "Customer denied"
        DECLINED_PERMISSIONS = "declined_permissions", "Permissions declined"
        EXCHANGE_FAILED = "exchange_failed", "Token exchange failed"
        NO_PAGES = "no_pages", "No pages"
        FAILED = "failed", "Failed"

    state = models.CharField(max_length=64, unique=True)
    account = models.ForeignKey("accounts.Account", on_delete=models.CASCADE, related_name="oauth_claims")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    session_binding = models.CharField(max_length=128)
    platform = models.CharField(max_length=32, choices=Platform.choices)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    callback_at = models.DateTimeField(null=True, blank=True)
    consumed_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=32, choices=Outcome.choices, blank=True)
    outcome_detail = models.CharField(max_length=500, blank=True)

    def __repr__(self) -> str:
        return f"<OAuthClaim {self.pk} {self.platform} consumed={self.consumed_at is not None}>"

    def __str__(self) -> str:
        return f"connect {self.platform} for {self.account_id}"


class PublicationQuerySet(ContentVersionedQuerySet["Publication"]):
    def landed(self, *, start: datetime | None = None, end: datetime | None = None) -> PublicationQuerySet:
        """The product's one number: every count of "landed" is this (docs/ARCHITECTURE.md).

        A post landed when a read of the platform showed it live with its permalink: status
        LANDED, or VANISHED (it landed and was deleted later; it still landed that day,
        because the pipeline worked). It counts at ``landed_at``, in [start, end) when given.
        """
        landed = self.filter(
            status__in=[Publication.Status.LANDED, Publication.Status.VANISHED], landed_at__isnull=False
        )
        if start is not None:
            landed = landed.filter(landed_at__gte=start)
        if end is not None:
            landed = landed.filter(landed_at__lt=end)
        return landed


class Publication(models.Model):
    """An approved draft on one channel, from scheduled to landed (or why not)."""

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", "Scheduled"
        PUBLISHING = "publishing", "Publishing"
        # The platform accepted the write and gave an id; not yet seen live.
        PUBLISHED = "published", "Published (awaiting read-back)"
        # A write whose outcome we do not know (timeout, 5xx): reconcile before any retry.
        UNKNOWN = "unknown", "Outcome unknown"
        LANDED = "landed", "Landed"
        UNCONFIRMED = "unconfirmed", "Unconfirmed"
        FAILED = "failed", "Failed"
        VANISHED = "vanished", "Vanished"
        # The customer took it back to drafts before it went out; approving again requeues it.
        WITHDRAWN = "withdrawn", "Back in drafts"

    account = models.ForeignKey("accounts.Account", on_delete=models.CASCADE, related_name="publications")
    draft = models.ForeignKey("posting.Draft", on_delete=models.PROTECT, related_name="publications")
    channel = models.ForeignKey(Channel, on_delete=models.PROTECT, related_name="publications")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.SCHEDULED)
    # What we sent, frozen at approval so an edit after approval cannot change a live post.
    message = models.TextField()
    link_url = models.URLField(max_length=2000, blank=True)
    image_url = models.URLField(max_length=2000, blank=True)
    scheduled_for = models.DateTimeField()
    # The posting slot this publication holds in the account's queue (UTC), the time it goes
    # out; None once it left the queue ("Post now", back to drafts) or for older rows. Unique
    # per channel, so two approvals at once can never take the same slot.
    slot_at = models.DateTimeField(null=True, blank=True)
    container_id = models.CharField(max_length=64, blank=True)
    platform_post_id = models.CharField(max_length=128, blank=True)
    permalink = models.URLField(max_length=2000, blank=True)
    publishing_started_at = models.DateTimeField(null=True, blank=True)
    # The latest a claim can still be at work: the claiming task's hard time limit plus a
    # margin. Past it the worker is dead for certain, so the sweep may take the claim back.
    publishing_deadline = models.DateTimeField(null=True, blank=True)
    published_at = models.DateTimeField(null=True, blank=True)
    landed_at = models.DateTimeField(null=True, blank=True)
    last_read_at = models.DateTimeField(null=True, blank=True)
    read_count = models.PositiveIntegerField(default=0)
    failure_kind = models.CharField(max_length=32, choices=FailureKind.choices, blank=True)
    failure_reason = models.CharField(max_length=1000, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = PublicationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["draft", "channel"], name="publication_unique_draft_channel"),
            models.UniqueConstraint(
                fields=["channel", "platform_post_id"],
                condition=~Q(platform_post_id=""),
                name="publication_unique_platform_post",
            ),
            models.CheckConstraint(
                condition=~Q(status="landed") | ~Q(permalink=""), name="publication_landed_has_permalink"
            ),
            models.UniqueConstraint(
                fields=["channel", "slot_at"], condition=Q(slot_at__isnull=False), name="publication_unique_slot"
            ),
        ]
        indexes = [models.Index(fields=["status", "scheduled_for"])]

    def __str__(self) -> str:
        return f"publication {self.pk} ({self.status})"


class PostingSlot(models.Model):
    """A time the account posts on a platform: a weekday and a wall-clock time in the
    account's time zone. Approving puts a post into the next free one (publish.slots)."""

    class Weekday(models.IntegerChoices):
        MONDAY = 0, "Mon"
        TUESDAY = 1, "Tue"
        WEDNESDAY = 2, "Wed"
        THURSDAY = 3, "Thu"
        FRIDAY = 4, "Fri"
        SATURDAY = 5, "Sat"
        SUNDAY = 6, "Sun"

    account = models.ForeignKey("accounts.Account", on_delete=models.CASCADE, related_name="posting_slots")
    platform = models.CharField(max_length=32, choices=Platform.choices)
    weekday = models.PositiveSmallIntegerField(choices=Weekday.choices)
    # Wall-clock time in the account's zone, whole minutes: the same local time all year.
    time = models.TimeField()

    # Shown on the customer's pages: writes bump the account's content version (accounts/content_version.py).
    objects = ContentVersionedQuerySet["PostingSlot"].as_manager()

    class Meta:
        ordering = ["platform", "weekday", "time"]
        constraints = [
            models.UniqueConstraint(fields=["account", "platform", "weekday", "time"], name="posting_slot_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.platform} {self.get_weekday_display()} {self.time:%H:%M}"


class PublishAttempt(models.Model):
    """One request we made for a publication: what was sent (never the token), what came back."""

    publication = models.ForeignKey(Publication, on_delete=models.CASCADE, related_name="attempts")
    request_kind = models.CharField(max_length=32, choices=RequestKind.choices)
    task_id = models.CharField(max_length=64, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    error_code = models.IntegerField(null=True, blank=True)
    error_subcode = models.IntegerField(null=True, blank=True)
    outcome = models.CharField(max_length=32, choices=AttemptOutcome.choices, blank=True)
    request_summary = models.JSONField(default=dict, blank=True)
    response_summary = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["started_at"]

    def __str__(self) -> str:
        return f"attempt {self.pk} {self.request_kind} ({self.outcome})"


class ConnectEvent(models.Model):
    """One step of the connect funnel, kept after claims are cleaned up.

    The watchdog compares ``started`` with ``bound`` per platform (docs/ARCHITECTURE.md lesson 4): a
    connect flow that silently stops binding channels shows up here, not in a log.
    """

    class Kind(models.TextChoices):
        STARTED = "started", "Started"
        CALLBACK = "callback", "Callback received"
        BOUND = "bound", "Channels bound"
        FAILED = "failed", "Failed"

    platform = models.CharField(max_length=32, choices=Platform.choices)
    # Null when the callback carried a state we could not tie to any account.
    account = models.ForeignKey("accounts.Account", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    reason = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"connect {self.platform} {self.kind} {self.reason}".rstrip()


class ConnectGrant(models.Model):
    """What the platform granted at a callback, held until the customer picks pages.

    The page tokens live here encrypted (never in the session cookie or a URL),
    bound to the claim, and the row is deleted as soon as the pick binds channels.
    """

    claim = models.OneToOneField(OAuthClaim, on_delete=models.CASCADE, related_name="grant")
    # Fernet ciphertext of {"page_tokens": {page id: token}}.
    secrets_ciphertext = models.TextField()
    # What the picker shows, with no tokens: [{"id", "name", "instagram_id", "instagram_username"}].
    pages = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()

    def __repr__(self) -> str:
        return f"<ConnectGrant {self.pk} claim={self.claim_id}>"

    def __str__(self) -> str:
        return f"connect grant {self.pk}"
