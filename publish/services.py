"""Publishing: an approved draft becomes a Publication on a channel and is published exactly once.

The rules (docs/ARCHITECTURE.md lesson 2; docs/meta-graph-api.md sections 5 and 6):
- A worker claims a publication with a conditional update SCHEDULED → PUBLISHING; losing
  that race is normal and means another worker has it.
- Every request is recorded as a PublishAttempt *before* it is sent (the fence) and
  completed with what came back; the token is never recorded.
- A container id or platform post id is saved the moment the platform returns it.
- A write whose outcome is unknown is never retried here: the publication becomes UNKNOWN
  and ``reconcile`` decides, by reading the platform, whether it landed or may be retried.
"""

from __future__ import annotations

import logging
import random
import time
from datetime import datetime, timedelta
from functools import partial
from typing import Any, Protocol

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Case, F, Q, Value, When
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError

from accounts.models import Account, Platform
from publish import selectors
from publish.crypto import TokenDecryptError, token_decrypt, token_encrypt
from publish.errors import (
    ContainerUnusable,
    DraftNotApproved,
    NeedsReconnect,
    NoConnectedChannel,
    NoFreeSlot,
    PermanentPlatformError,
    PlatformError,
    PublishNotEnqueued,
    QueueChangeRefused,
    Throttled,
    TransientError,
    UnknownOutcome,
)
from publish.graph import QUOTA_SUBCODE, GraphClient
from publish.kinds import AttemptOutcome, FailureKind, RequestKind
from publish.lifecycle import Event, publication_transition
from publish.models import Channel, Publication, PublishAttempt
from publish.providers import provider_for
from publish.providers.base import OutgoingPost, Provider
from publish.signals import publication_awaiting_read
from publish.slots import slot_is_one_of_the_accounts, slot_next_free

logger = logging.getLogger(__name__)

Status = Publication.Status

# A PUBLISHING row past its deadline (the claiming task's hard time limit plus this margin)
# was abandoned by a dead worker (SIGKILL, OOM, deploy). Its write may have gone out, so it
# becomes UNKNOWN, never SCHEDULED, and reconcile looks for the post at once.
STALE_MARGIN_S = 10
# How soon to look at an Instagram container that was still processing.
CONTAINER_RECHECK_S = 20
TRANSIENT_RETRY_S = 60
INTERNAL_RETRY_S = 5 * 60
MAX_CONTAINERS = 3
# Instagram 24/2207008 "builder not found": transient at first, then the container is gone.
BUILDER_MISSING_SUBCODE = 2207008
BUILDER_MISSING_RETRIES = 2
# A safety valve, not a policy: a publication that has needed this many requests is stuck,
# and an operator should look rather than the platform being asked forever.
MAX_REQUESTS_PER_PUBLICATION = 40
SWEEP_BATCH = 500
# The container poll runs every minute: stop starting new polls after this long (each is one
# or two Graph requests of up to GRAPH_TIMEOUT_S), the next tick continues.
CONTAINER_POLL_BUDGET_S = 40.0
USAGE_PAUSE_PCT = 90.0
# The pause near the limit when the usage headers carry no estimated time to regain access.
USAGE_PAUSE_S = 15 * 60
# Approvals racing for one slot: each loser takes the next free one; this many rounds at most.
SLOT_TAKE_TRIES = 5


class ApprovedDraft(Protocol):
    """What publishing reads of a draft (``posting.models.Draft``). Publish never imports
    posting: posting hands its draft down when a person approves it (docs/ARCHITECTURE.md,
    "Layers"), and the draft itself says whether it is approved."""

    @property
    def pk(self) -> Any: ...
    @property
    def account_id(self) -> int: ...
    @property
    def platform(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def link_url(self) -> str: ...
    @property
    def image_url(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def is_approved(self) -> bool: ...


def publication_schedule(*, draft: ApprovedDraft, post_now: bool = False) -> Publication:
    """Freeze an approved draft onto the account's connected channel for its platform, in
    the next free posting slot (``publish.slots``), or due at once with ``post_now``.

    Idempotent per (draft, channel): scheduling twice returns the same publication; one the
    customer took back to drafts is requeued with the text approved now. Two approvals at
    once cannot take one slot (a unique constraint): the loser takes the next free one.
    Raises NoConnectedChannel, and publish.slots.NoFreeSlot when the queue is full.
    """
    if not draft.is_approved:
        raise DraftNotApproved(f"draft {draft.pk} is {draft.status}, not approved")
    channel = selectors.channel_connected_for(account_id=draft.account_id, platform=draft.platform)
    if channel is None:
        raise NoConnectedChannel(f"no connected {Platform(draft.platform).label} channel for this account")
    existing = Publication.objects.filter(draft_id=draft.pk, channel=channel).first()
    if existing is not None and existing.status != Status.WITHDRAWN:
        return existing
    account = None if post_now else Account.objects.get(pk=draft.account_id)
    if not post_now:
        # Approvals on one channel take slots one at a time (held until the approval commits):
        # the next free slot each computes is then really free. The unique constraint on
        # (channel, slot_at) stays the backstop, and a loser there takes the next slot.
        Channel.objects.select_for_update().filter(pk=channel.pk).first()
    for _ in range(SLOT_TAKE_TRIES):
        now = timezone.now()
        slot_at = None if account is None else slot_next_free(account=account, channel=channel, after=now)
        # A channel the platform has throttled holds new work too, not only what was queued.
        scheduled_for = max(slot_at or now, channel.throttled_until or now)
        frozen: dict[str, Any] = {
            "message": draft.text,
            "link_url": draft.link_url,
            "image_url": draft.image_url,
            "scheduled_for": scheduled_for,
            "slot_at": slot_at,
        }
        try:
            with transaction.atomic():
                if existing is not None:
                    publication_transition(
                        event=Event.REQUEUE,
                        publication_id=existing.pk,
                        failure_kind=FailureKind.NONE,
                        failure_reason="",
                        # An Instagram container made before the withdrawal holds the old
                        # caption: the requeued text needs a fresh one.
                        container_id="",
                        **frozen,
                    )
                    existing.refresh_from_db()
                    return existing
                # Not get_or_create: `existing` above already looked, and a concurrent schedule
                # that got there since loses here to the unique constraint (handled below).
                return Publication.objects.create(
                    draft_id=draft.pk, channel=channel, account_id=draft.account_id, **frozen
                )
        except IntegrityError:
            # A concurrent schedule of the same draft won, or another approval took this slot.
            won = (
                Publication.objects.filter(draft_id=draft.pk, channel=channel).exclude(status=Status.WITHDRAWN).first()
            )
            if won is not None:
                return won
    raise NoFreeSlot("The queue is busy: approve it again in a moment.")


def publication_move(*, account_id: int, publication_id: int, slot_at: datetime) -> Publication:
    """Move a queued publication to another of the account's free slots.

    Conditional on the publication still waiting (SCHEDULED, unclaimed): a worker that
    claimed it first wins, and the customer is told it is already going out.
    """
    publication = _queued(account_id=account_id, publication_id=publication_id)
    if slot_at <= timezone.now() or not slot_is_one_of_the_accounts(
        account=publication.account, platform=publication.channel.platform, at=slot_at
    ):
        raise QueueChangeRefused("That time is not one of your posting times ahead; pick one from the list.")
    try:
        with transaction.atomic():
            moved = Publication.objects.filter(pk=publication.pk, status=Status.SCHEDULED).update(
                slot_at=slot_at,
                scheduled_for=max(slot_at, publication.channel.throttled_until or slot_at),
                updated_at=timezone.now(),
            )
    except IntegrityError:
        raise QueueChangeRefused("Another post has just taken that time; pick another one.") from None
    if moved != 1:
        raise QueueChangeRefused(_too_late(publication.pk))
    publication.refresh_from_db()
    return publication


def publication_post_now(*, account_id: int, publication_id: int) -> Publication:
    """Send a queued publication now: due at once, its slot freed, handed to a worker.

    The claim still decides who publishes (exactly once); a channel paused by the platform
    still holds it until the pause ends.
    """
    publication = _queued(account_id=account_id, publication_id=publication_id)
    now = timezone.now()
    with transaction.atomic():
        moved = Publication.objects.filter(pk=publication.pk, status=Status.SCHEDULED).update(
            slot_at=None, scheduled_for=now, updated_at=now
        )
        if moved != 1:
            raise QueueChangeRefused(_too_late(publication.pk))
        publication_enqueue(publication_id=publication.pk)
    publication.refresh_from_db()
    return publication


def publication_retry(*, account_id: int, publication_id: int) -> Publication:
    """The customer's retry of a failed post, only where reconcile read the platform and saw
    nothing land (FailureKind.NEVER_SEEN): any other failure is refused. Due at once, handed
    to a worker; the claim and the second-post guard work as for any publication."""
    now = timezone.now()
    with transaction.atomic():
        moved = publication_transition(
            event=Event.CUSTOMER_RETRY,
            publication_id=publication_id,
            where=Q(account_id=account_id, failure_kind=FailureKind.NEVER_SEEN),
            scheduled_for=now,
            slot_at=None,
            failure_kind=FailureKind.NONE,
            failure_reason="",
            read_count=0,
            last_read_at=None,
            updated_at=now,
        )
        if moved != 1:
            raise QueueChangeRefused("This post cannot be sent again from here: it is not a failure we proved absent.")
        publication_enqueue(publication_id=publication_id)
    return Publication.objects.get(pk=publication_id)


def publications_withdraw(*, account_id: int, draft_id: int) -> int:
    """Take a draft's queued publications out of the queue (back to drafts); how many left.

    One conditional move per publication (SCHEDULED → WITHDRAWN): if a worker claimed one
    first, it is going out and stays; the caller says so. The slot is freed.
    """
    return publication_transition(
        event=Event.WITHDRAW,
        where=Q(account_id=account_id, draft_id=draft_id),
        slot_at=None,
        updated_at=timezone.now(),
    )


def _queued(*, account_id: int, publication_id: int) -> Publication:
    publication = (
        Publication.objects.select_related("channel", "account")
        .filter(pk=publication_id, account_id=account_id)
        .first()
    )
    if publication is None:
        raise Publication.DoesNotExist(f"no publication {publication_id} for this account")
    if publication.status != Status.SCHEDULED:
        raise QueueChangeRefused(_too_late(publication.pk))
    return publication


def _too_late(publication_id: int) -> str:
    status = Publication.objects.filter(pk=publication_id).values_list("status", flat=True).first()
    if status == Status.WITHDRAWN:
        return "This post was already taken back to drafts."
    return "Too late to change: this post is already going out (or has gone out). See History."


def publication_publish(*, publication_id: int, task_id: str = "", time_limit_s: int | None = None) -> Publication:
    """Publish one due publication, or return untouched if it is not ours to publish.

    ``time_limit_s`` is the hard time limit of the task running this (the publish task's
    own); unset, the general task limit, which bounds every job that publishes inline.
    """
    now = timezone.now()
    publication = Publication.objects.select_related("channel").get(pk=publication_id)
    if publication.channel.status != Channel.Status.CONNECTED:
        # Waiting for the customer to reconnect; the due sweep picks it up afterwards.
        return publication
    held_until = publication.channel.throttled_until
    if held_until is not None and held_until > now:
        # The platform asked for a pause: more calls only grow the count (reference section 4).
        Publication.objects.filter(pk=publication_id, status=Status.SCHEDULED, scheduled_for__lt=held_until).update(
            scheduled_for=held_until, updated_at=now
        )
        publication.refresh_from_db()
        return publication
    claimed = publication_transition(
        event=Event.CLAIM,
        publication_id=publication_id,
        where=Q(scheduled_for__lte=now),
        publishing_started_at=now,
        publishing_deadline=now + timedelta(seconds=(time_limit_s or settings.CELERY_TASK_TIME_LIMIT) + STALE_MARGIN_S),
        updated_at=now,
    )
    if not claimed:
        # Another worker got there first, or it is not due (throttled, already done).
        publication.refresh_from_db()
        return publication
    publication.refresh_from_db()
    if PublishAttempt.objects.filter(publication=publication).count() >= MAX_REQUESTS_PER_PUBLICATION:
        return _settle(
            publication,
            Event.GIVE_UP,
            failure_kind=FailureKind.GAVE_UP,
            failure_reason=f"stopped after {MAX_REQUESTS_PER_PUBLICATION} requests to the platform",
        )
    journal = AttemptJournal(publication=publication, task_id=task_id)
    try:
        provider = provider_build(channel=publication.channel, journal=journal)
        step = provider.publish(
            post=OutgoingPost(
                message=publication.message, link_url=publication.link_url, image_url=publication.image_url
            ),
            container_id=publication.container_id,
            on_container=lambda container_id: _container_saved(publication, container_id),
        )
    except TokenDecryptError:
        channel_mark_needs_reconnect(
            channel=publication.channel, reason="the stored token cannot be decrypted; reconnect the channel"
        )
        return _settle(
            publication,
            Event.RETRY_LATER,
            failure_kind=FailureKind.NEEDS_RECONNECT,
            failure_reason="token unreadable",
        )
    except PlatformError as exc:
        return _publish_failed(publication, exc)
    except Exception:
        # A bug or an infrastructure failure after the claim. If a write may have gone out,
        # the only safe state is UNKNOWN (reconcile decides); if none was sent, try again
        # later. Re-raised either way so that it is seen.
        if journal.writes_sent:
            _settle(
                publication, Event.OUTCOME_UNKNOWN, failure_kind=FailureKind.INTERNAL, failure_reason="internal error"
            )
        else:
            _settle(
                publication,
                Event.RETRY_LATER,
                scheduled_for=timezone.now() + timedelta(seconds=INTERNAL_RETRY_S),
                failure_kind=FailureKind.INTERNAL,
                failure_reason="internal error before anything was sent",
            )
        raise
    if step.post_id:
        publication = _settle(
            publication,
            Event.PLATFORM_ACCEPTED,
            platform_post_id=step.post_id,
            published_at=timezone.now(),
            failure_kind=FailureKind.NONE,
            failure_reason="",
        )
    else:
        # An Instagram container still processing: do not hold a worker, poll it later.
        publication = _settle(
            publication,
            Event.RETRY_LATER,
            scheduled_for=timezone.now() + timedelta(seconds=CONTAINER_RECHECK_S),
            failure_kind=FailureKind.NONE,
            failure_reason="",
        )
    _usage_respect(publication.channel, journal)
    return publication


def publications_publish_due() -> dict[str, int]:
    """The cron sweep: abandoned claims become UNKNOWN, due publications are enqueued."""
    now = timezone.now()
    abandoned = Q(publishing_deadline__lt=now) | Q(
        # Claims made before deadlines were recorded: the general limit bounds them.
        publishing_deadline__isnull=True,
        publishing_started_at__lt=now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + STALE_MARGIN_S),
    )
    stale_ids = list(
        Publication.objects.filter(abandoned, status=Status.PUBLISHING).values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    stale = publication_transition(
        event=Event.WORKER_LOST,
        where=abandoned & Q(pk__in=stale_ids),
        failure_kind=FailureKind.WORKER_LOST,
        failure_reason="the worker publishing this stopped before recording an outcome",
        read_count=0,
        last_read_at=None,
        updated_at=now,
    )
    for publication_id in stale_ids:
        # Reconcile decides at once (found: landed; not found over several reads: retry),
        # instead of at the reconcile sweep's next tick. A signal: reconcile imports publish.
        transaction.on_commit(
            partial(publication_awaiting_read.send, sender=Publication, publication_id=publication_id)
        )
    due_ids = list(selectors.publications_due(now=now, with_container=False).values_list("pk", flat=True)[:SWEEP_BATCH])
    for publication_id in due_ids:
        _publish_enqueue(publication_id)
    return {"due": len(due_ids), "enqueued": len(due_ids), "stale_to_unknown": stale}


def containers_poll() -> dict[str, int]:
    """Look again at Instagram containers that were still processing, inline: one status
    read each, and ``media_publish`` for the ones now FINISHED.

    Stops starting new polls once CONTAINER_POLL_BUDGET_S has passed (the rest are
    ``deferred`` to the next tick, a minute later), and lets the task's soft time limit
    through, so a slow platform can neither run the job into its hard kill nor hide it.
    """
    counts = {"polled": 0, "published": 0, "waiting": 0, "failed": 0, "other": 0, "deferred": 0}
    due_ids = list(
        selectors.publications_due(now=timezone.now(), with_container=True).values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    started = time.monotonic()
    for position, publication_id in enumerate(due_ids):
        if time.monotonic() - started > CONTAINER_POLL_BUDGET_S:
            counts["deferred"] = len(due_ids) - position
            break
        counts["polled"] += 1
        try:
            publication = publication_publish(publication_id=publication_id)
        except SoftTimeLimitExceeded:
            # The task is out of time: stop here, and let Celery record it as such.
            raise
        except Exception:
            logger.exception("container poll failed for publication %s", publication_id)
            counts["failed"] += 1
            continue
        if publication.status == Status.PUBLISHED:
            counts["published"] += 1
        elif publication.status == Status.SCHEDULED:
            counts["waiting"] += 1
        elif publication.status == Status.FAILED:
            counts["failed"] += 1
        else:
            counts["other"] += 1
    return counts


def channel_token(channel: Channel) -> str:
    """The channel's plaintext token, for the Authorization header and nothing else."""
    return token_decrypt(channel.token_ciphertext)


def channel_bind(*, account: Any, platform: str, external_id: str, name: str, token: str) -> Channel:
    """Bind (or rebind) a channel with a fresh token: connected, token checks start over."""
    channel, _ = Channel.objects.update_or_create(
        account=account,
        platform=platform,
        external_id=external_id,
        defaults={
            "name": name,
            "token_ciphertext": token_encrypt(token),
            "token_expires_at": None,
            "token_checked_at": None,
            "status": Channel.Status.CONNECTED,
            "status_reason": "",
        },
    )
    return channel


def channel_mark_needs_reconnect(*, channel: Channel, reason: str) -> int:
    """Put a connected channel in ``needs_reconnect`` with a reason the customer sees next to
    the Reconnect button; its scheduled publications then wait. Returns 1 if it changed.

    Conditional on CONNECTED, so a reconnect that has just landed is not overwritten by a
    stale failure. The one place publishing, reconcile and the token check mark a channel.
    """
    return Channel.objects.filter(pk=channel.pk, status=Channel.Status.CONNECTED).update(
        status=Channel.Status.NEEDS_RECONNECT, status_reason=reason[:500]
    )


def channel_defer(*, channel: Channel, until: datetime) -> None:
    """Hold every request for a throttled channel until ``until``: its scheduled publications
    move, new ones are scheduled after it, and reconcile reads wait (reference section 4)."""
    now = timezone.now()
    not_paused = Q(throttled_until__isnull=True) | Q(throttled_until__lte=now)
    Channel.objects.filter(pk=channel.pk).filter(Q(throttled_until__isnull=True) | Q(throttled_until__lt=until)).update(
        throttled_until=until,
        # A new pause starts now; an extension keeps the start of the pause it extends.
        throttled_since=Case(When(not_paused, then=Value(now)), default=F("throttled_since")),
    )
    _publications_defer(channel=channel, until=until)


def provider_build(*, channel: Channel, journal: AttemptJournal | None = None) -> Provider:
    """A provider for the channel; with a journal, every request is recorded as a PublishAttempt."""
    client = GraphClient(token=channel_token(channel), observer=journal)
    return provider_for(platform=channel.platform, client=client, external_id=channel.external_id)


class AttemptJournal:
    """Writes one PublishAttempt per request: created before sending (so a crash leaves a
    trace of a write that may have gone out), completed with the answer."""

    def __init__(self, *, publication: Publication, task_id: str = "") -> None:
        self.publication = publication
        self.task_id = task_id[:64]
        # The highest rate-limit usage the platform reported during this publish.
        self.peak_usage_pct = 0.0
        self.regain_s = 0
        self.writes_sent = 0

    def request_started(self, *, kind: str, method: str, path: str, sent: dict[str, Any]) -> PublishAttempt:
        if method != "GET":
            self.writes_sent += 1
        return PublishAttempt.objects.create(
            publication=self.publication,
            request_kind=RequestKind(kind),
            task_id=self.task_id,
            outcome=AttemptOutcome.SENT,
            request_summary={"method": method, "path": path, "params": sent},
        )

    def request_finished(
        self,
        handle: object,
        *,
        http_status: int | None,
        received: dict[str, Any],
        error: PlatformError | None,
    ) -> None:
        self.peak_usage_pct = max(self.peak_usage_pct, float(received.get("usage_pct") or 0))
        self.regain_s = max(self.regain_s, int(received.get("regain_s") or 0))
        if not isinstance(handle, PublishAttempt):
            return
        PublishAttempt.objects.filter(pk=handle.pk).update(
            finished_at=timezone.now(),
            http_status=http_status,
            error_code=error.code if error is not None else None,
            error_subcode=error.subcode if error is not None else None,
            outcome=AttemptOutcome(error.kind) if error is not None else AttemptOutcome.OK,
            response_summary=received,
        )


# --- helpers ----------------------------------------------------------------------------


def _publish_failed(publication: Publication, exc: PlatformError) -> Publication:
    reason = str(exc)[:1000]
    now = timezone.now()
    if isinstance(exc, UnknownOutcome):
        return _settle(
            publication,
            Event.OUTCOME_UNKNOWN,
            failure_kind=exc.kind,
            failure_reason=reason,
            read_count=0,
            last_read_at=None,
        )
    if isinstance(exc, NeedsReconnect):
        channel_mark_needs_reconnect(channel=publication.channel, reason=f"the platform rejected the token: {reason}")
        # Waits (not failed): publishing resumes once the customer reconnects.
        return _settle(publication, Event.RETRY_LATER, failure_kind=exc.kind, failure_reason=reason)
    if isinstance(exc, Throttled):
        # Jitter so that a batch of throttled publications does not return as one burst.
        resume_at = now + timedelta(seconds=exc.retry_after_s + random.uniform(5, 30))
        if exc.subcode == QUOTA_SUBCODE:
            # Instagram's publishing quota limits media_publish only: reads carry on.
            _publications_defer(channel=publication.channel, until=resume_at)
        else:
            channel_defer(channel=publication.channel, until=resume_at)
        return _settle(
            publication, Event.RETRY_LATER, scheduled_for=resume_at, failure_kind=exc.kind, failure_reason=reason
        )
    if isinstance(exc, ContainerUnusable):
        created = PublishAttempt.objects.filter(
            publication=publication, request_kind=RequestKind.IG_CONTAINER_CREATE, outcome=AttemptOutcome.OK
        ).count()
        if created >= MAX_CONTAINERS:
            return _settle(
                publication,
                Event.GIVE_UP,
                failure_kind=exc.kind,
                failure_reason=f"{reason}; gave up after {created} containers",
            )
        # Containers are invisible until published: a fresh one is safe.
        return _settle(
            publication,
            Event.RETRY_LATER,
            container_id="",
            scheduled_for=now,
            failure_kind=exc.kind,
            failure_reason=reason,
        )
    if isinstance(exc, TransientError) and exc.subcode == BUILDER_MISSING_SUBCODE and publication.container_id:
        misses = PublishAttempt.objects.filter(
            publication=publication, request_kind=RequestKind.IG_MEDIA_PUBLISH, error_subcode=BUILDER_MISSING_SUBCODE
        ).count()
        if misses >= BUILDER_MISSING_RETRIES:
            # Retried within minutes and still missing: the reference says make a new container.
            return _settle(
                publication,
                Event.RETRY_LATER,
                container_id="",
                scheduled_for=now,
                failure_kind=exc.kind,
                failure_reason=f"{reason}; container replaced",
            )
    if isinstance(exc, TransientError):
        return _settle(
            publication,
            Event.RETRY_LATER,
            scheduled_for=now + timedelta(seconds=TRANSIENT_RETRY_S * random.uniform(1, 2)),
            failure_kind=exc.kind,
            failure_reason=reason,
        )
    if isinstance(exc, PermanentPlatformError):
        return _settle(publication, Event.GIVE_UP, failure_kind=exc.kind, failure_reason=reason)
    # Any other platform error on this path: not provably harmless, so reconcile first.
    return _settle(
        publication,
        Event.OUTCOME_UNKNOWN,
        failure_kind=exc.kind,
        failure_reason=reason,
        read_count=0,
        last_read_at=None,
    )


def _settle(publication: Publication, event: Event, **fields: Any) -> Publication:
    """Leave PUBLISHING by ``event``, only if we still hold the claim (every event the
    publish path settles with leaves PUBLISHING and nothing else)."""
    publication_transition(event=event, publication_id=publication.pk, source=Status.PUBLISHING, **fields)
    publication.refresh_from_db()
    return publication


def _container_saved(publication: Publication, container_id: str) -> None:
    # Saved before its status is read or media_publish is sent, so a crash cannot orphan it.
    Publication.objects.filter(pk=publication.pk, status=Status.PUBLISHING).update(
        container_id=container_id, updated_at=timezone.now()
    )
    publication.container_id = container_id


def _usage_respect(channel: Channel, journal: AttemptJournal) -> None:
    """Near the rate limit, pause the channel's other work before the platform throttles it
    (reference section 4: pause a Page or IG user above about 90%). For as long as the
    platform says (``estimated_time_to_regain_access``) when it says it: a longer default
    would hold the channel's posts for nothing. USAGE_PAUSE_S only when it gives no estimate."""
    if journal.peak_usage_pct < USAGE_PAUSE_PCT:
        return
    pause_s = journal.regain_s if journal.regain_s > 0 else USAGE_PAUSE_S
    channel_defer(channel=channel, until=timezone.now() + timedelta(seconds=pause_s))


def _publications_defer(*, channel: Channel, until: datetime) -> None:
    Publication.objects.filter(channel=channel, status=Status.SCHEDULED, scheduled_for__lt=until).update(
        scheduled_for=until, updated_at=timezone.now()
    )


def publication_enqueue(*, publication_id: int) -> None:
    """Hand the publication to a worker once the caller's transaction commits.

    When the broker refuses the message (down, unreachable), the commit has already happened:
    the publication stays SCHEDULED for the publish sweep, the failure is logged, and
    PublishNotEnqueued tells the caller so that a person sees "queued", not an error page.
    """
    transaction.on_commit(lambda: _publish_send(publication_id))


def _publish_send(publication_id: int) -> None:
    # Imported here: tasks import this module.
    from publish.tasks import publication_publish_task

    try:
        publication_publish_task.delay(publication_id)
    except KombuOperationalError as exc:
        logger.error(
            "publication %s not enqueued (%s); the publish sweep will send it", publication_id, type(exc).__name__
        )
        raise PublishNotEnqueued(f"publication {publication_id} is scheduled but not enqueued") from exc


def _publish_enqueue(publication_id: int) -> None:
    # Imported here: tasks import this module.
    from publish.tasks import publication_publish_task

    # After commit, so a worker never looks for a row it cannot see yet.
    transaction.on_commit(lambda: publication_publish_task.delay(publication_id))


class RetryRefused(Exception):
    """The operator's retry of a publication is not safe (something may have landed) or not possible."""


# Failures after which nothing can be on the platform: it refused, or reconcile's reads never saw it.
_NOTHING_LANDED_KINDS = frozenset(
    {
        FailureKind.PERMANENT,
        FailureKind.PLATFORM_ERROR,
        FailureKind.NEEDS_RECONNECT,
        FailureKind.THROTTLED,
        FailureKind.TRANSIENT,
        FailureKind.CONTAINER_UNUSABLE,
        FailureKind.GAVE_UP,
        FailureKind.INTERNAL,
        FailureKind.NEVER_SEEN,
    }
)


def publication_retry_failed(*, publication_id: int) -> Publication:
    """Schedule a failed publication again, now, when nothing of it can have landed: the
    platform never gave it a post id, and it failed by a refusal or after reconcile's reads
    never showed it (an unknown outcome is for reconcile to settle, never for a retry).
    Raises RetryRefused saying why not."""
    publication = Publication.objects.filter(pk=publication_id).first()
    if publication is None or publication.status != Publication.Status.FAILED:
        raise RetryRefused("Only a failed publication can be retried.")
    if publication.platform_post_id:
        raise RetryRefused("The platform gave this post an id: reconcile it, do not post it again.")
    if publication.failure_kind not in _NOTHING_LANDED_KINDS:
        raise RetryRefused(
            f"It failed as {publication.failure_kind or 'unknown'}: reconcile must show nothing landed first."
        )
    now = timezone.now()
    moved = publication_transition(
        event=Event.OPERATOR_RETRY,
        publication_id=publication.pk,
        scheduled_for=now,
        read_count=0,
        last_read_at=None,
        publishing_started_at=None,
        failure_kind="",
        failure_reason="",
        updated_at=now,
    )
    if moved != 1:
        raise RetryRefused("Someone else moved this publication first.")
    publication_enqueue(publication_id=publication.pk)
    publication.refresh_from_db()
    return publication
