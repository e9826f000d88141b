"""The vocabularies of publishing: what a request to the platform was, how it ended, and why a
publication is not (yet) landed.

Each is an enum whose values are what the database has always stored, so code names a
kind by its member (``RequestKind.FB_FEED``) and never by a string literal that could drift
from the one written elsewhere. Whether a request can create a post is a property of its
kind: the guard against a second post (``publish.lifecycle.post_writes_count``) asks the
enum, so adding or renaming a kind cannot silently take a write out of that count.

Kept free of model imports: the models, the Graph client, the providers and the errors all
use these.
"""

from __future__ import annotations

from django.db import models


class RequestKind(models.TextChoices):
    """One kind of Graph request a provider makes (``PublishAttempt.request_kind``)."""

    FB_FEED = "fb_feed", "Facebook feed post"
    FB_PHOTO = "fb_photo", "Facebook photo post"
    FB_READ = "fb_read", "Facebook post read"
    FB_LIST = "fb_list", "Facebook Page posts listing"
    FB_ENGAGEMENT = "fb_engagement", "Facebook post engagement"
    IG_QUOTA = "ig_quota", "Instagram publishing quota"
    IG_CONTAINER_CREATE = "ig_container_create", "Instagram container create"
    IG_CONTAINER_STATUS = "ig_container_status", "Instagram container status"
    IG_MEDIA_PUBLISH = "ig_media_publish", "Instagram media publish"
    IG_READ = "ig_read", "Instagram media read"
    IG_LIST = "ig_list", "Instagram media listing"
    IG_ENGAGEMENT = "ig_engagement", "Instagram media engagement"

    @property
    def creates_post(self) -> bool:
        """True for the writes that make a post visible on the platform. An Instagram
        container is invisible until ``media_publish``, so creating one does not count."""
        return self in _POST_CREATING

    @classmethod
    def post_creating(cls) -> list[RequestKind]:
        """Every kind whose request can create a post, for queries over attempts."""
        return [kind for kind in cls if kind.creates_post]


_POST_CREATING = frozenset({RequestKind.FB_FEED, RequestKind.FB_PHOTO, RequestKind.IG_MEDIA_PUBLISH})


class FailureKind(models.TextChoices):
    """Why a publication is where it is (``Publication.failure_kind``; blank when nothing is wrong).

    The first group are the platform error classes of ``publish.errors`` (their ``kind``);
    the second are decisions of the lifecycle itself.
    """

    NONE = "", "None"
    # Platform errors, classified once in publish.graph.
    PLATFORM_ERROR = "platform_error", "Platform error"
    PERMANENT = "permanent", "Permanent platform error"
    NEEDS_RECONNECT = "needs_reconnect", "Needs reconnect"
    THROTTLED = "throttled", "Throttled"
    UNKNOWN_OUTCOME = "unknown_outcome", "Outcome unknown"
    TRANSIENT = "transient", "Transient error"
    NOT_VISIBLE = "not_visible", "Not visible yet"
    CONTAINER_UNUSABLE = "container_unusable", "Container unusable"
    # Lifecycle decisions.
    GAVE_UP = "gave_up", "Gave up after too many requests"
    INTERNAL = "internal", "Internal error"
    WORKER_LOST = "worker_lost", "Worker lost"
    RETRY_AFTER_UNKNOWN = "retry_after_unknown", "Retried after an unknown outcome"
    NEVER_SEEN = "never_seen", "Never seen on the platform"
    UNCONFIRMED = "unconfirmed", "Unconfirmed"
    VANISHED = "vanished", "Vanished"


class AttemptOutcome(models.TextChoices):
    """How one request ended (``PublishAttempt.outcome``): sent and not yet answered, ok, or
    the kind of the platform error it raised."""

    SENT = "sent", "Sent, no answer recorded"
    OK = "ok", "OK"
    PLATFORM_ERROR = FailureKind.PLATFORM_ERROR.value, FailureKind.PLATFORM_ERROR.label
    PERMANENT = FailureKind.PERMANENT.value, FailureKind.PERMANENT.label
    NEEDS_RECONNECT = FailureKind.NEEDS_RECONNECT.value, FailureKind.NEEDS_RECONNECT.label
    THROTTLED = FailureKind.THROTTLED.value, FailureKind.THROTTLED.label
    UNKNOWN_OUTCOME = FailureKind.UNKNOWN_OUTCOME.value, FailureKind.UNKNOWN_OUTCOME.label
    TRANSIENT = FailureKind.TRANSIENT.value, FailureKind.TRANSIENT.label
    NOT_VISIBLE = FailureKind.NOT_VISIBLE.value, FailureKind.NOT_VISIBLE.label
    CONTAINER_UNUSABLE = FailureKind.CONTAINER_UNUSABLE.value, FailureKind.CONTAINER_UNUSABLE.label
