"""Domain errors for channels and publishing.

Platform errors are classified once, in ``publish.graph``, by Graph error code and
subcode (never by HTTP status alone), so callers decide what to do by asking the type:
retry logic never parses a message string.
"""

from __future__ import annotations

from publish.kinds import FailureKind


class PlatformError(Exception):
    """A Graph API request did not do what we asked. Never carries a token."""

    kind: FailureKind = FailureKind.PLATFORM_ERROR

    def __init__(
        self,
        detail: str,
        *,
        http_status: int | None = None,
        code: int | None = None,
        subcode: int | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.http_status = http_status
        self.code = code
        self.subcode = subcode

    def __str__(self) -> str:
        codes = "/".join(str(part) for part in (self.code, self.subcode) if part is not None)
        return f"{self.detail} ({codes})" if codes else self.detail


class PermanentPlatformError(PlatformError):
    """Retrying the same request will fail the same way (invalid parameter, policy, format)."""

    kind = FailureKind.PERMANENT


class NeedsReconnect(PlatformError):
    """The token is dead or lacks a permission: only the customer reconnecting fixes it."""

    kind = FailureKind.NEEDS_RECONNECT


class Throttled(PlatformError):
    """A rate limit or publishing quota: wait ``retry_after_s`` before calling again.

    Throttles are refused before the platform acts, so a throttled write is safe to retry.
    """

    kind = FailureKind.THROTTLED

    def __init__(self, detail: str, *, retry_after_s: int, **kwargs: int | None) -> None:
        super().__init__(detail, **kwargs)
        self.retry_after_s = retry_after_s


class UnknownOutcome(PlatformError):
    """A write whose effect we cannot know (timeout, reset, 5xx, ambiguous code, garbage).

    The post may be live: reconcile by reading the platform before any retry.
    """

    kind = FailureKind.UNKNOWN_OUTCOME


class TransientError(PlatformError):
    """Safe to try again later: a failed read, or a write the platform refused before acting
    (connection never established, container not ready yet)."""

    kind = FailureKind.TRANSIENT


class NotVisibleYet(PlatformError):
    """A read of an object answered 100/33 ("does not exist"): fresh objects read with lag,
    deleted ones stay this way. Which one it is, only the caller's history can tell."""

    kind = FailureKind.NOT_VISIBLE


class ContainerUnusable(PlatformError):
    """An Instagram container ended in ERROR or EXPIRED: a new container is needed."""

    kind = FailureKind.CONTAINER_UNUSABLE


class NoConnectedChannel(Exception):
    """The account has no connected channel for the draft's platform."""


class DraftNotApproved(Exception):
    """Only an approved draft can be scheduled for publishing."""


class PublishNotEnqueued(Exception):
    """The publication is saved and scheduled, but the broker did not take its message.

    Raised after the commit, so nothing is lost: the publish sweep sends every due
    SCHEDULED publication, this one included, once the queue is back.
    """


class NoFreeSlot(Exception):
    """Every posting slot of the queue's horizon is taken (publish.slots); the message says what to do."""


class QueueChangeRefused(Exception):
    """A change to a queued post lost its race or asked for something not allowed; the
    message is the customer's plain answer ("too late, it is already going out")."""
