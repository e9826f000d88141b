"""Reconcile: believe a post exists only when the platform shows it (docs/ARCHITECTURE.md lesson 2).

- PUBLISHED (the platform accepted a write and gave an id) → read the post back; LANDED only
  when the read shows it live with a permalink, and the permalink saved is the one that read
  returned. Reads that lag (100/33) are retried; after ``RECONCILE_MAX_READS`` reads spaced
  ``RECONCILE_MIN_INTERVAL_S`` apart without seeing it live → UNCONFIRMED, for the watchdog.
- UNKNOWN (a write whose answer we never got) → look for the post among the channel's
  recent posts (matched on text and link, never "the newest one"); found → the landed path;
  still absent after several reads spread over minutes → SCHEDULED again, the only point at
  which a retry is safe. Instagram first asks the container (reference section 6).
- LANDED posts are read again about a day later: gone → VANISHED.

Every read is claimed with a conditional update on ``read_count``, so two reconcilers never
act on one publication at once. Every change of status is a move of ``publish.lifecycle``
(read_live, found, retry_after_unknown, never_seen, unconfirm, vanish), made there.
"""

from __future__ import annotations

import logging
import re
import time
from datetime import timedelta
from difflib import SequenceMatcher

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from publish.crypto import TokenDecryptError
from publish.errors import NeedsReconnect, NotVisibleYet, PlatformError, Throttled
from publish.kinds import FailureKind
from publish.lifecycle import Event, post_writes_count, publication_transition
from publish.models import Channel, Publication
from publish.providers.base import Provider, RecentPost
from publish.services import channel_defer, channel_mark_needs_reconnect, provider_build
from reconcile.models import EngagementSnapshot

logger = logging.getLogger(__name__)

Status = Publication.Status

# An UNKNOWN write is retried only after this many listings (spaced RECONCILE_MIN_INTERVAL_S
# apart) showed nothing; the reference asks for several reads over at least two minutes.
UNKNOWN_READS_BEFORE_RETRY = 3
# Past this many requests that could have created a post (RequestKind.creates_post), stop
# retrying and let a human look.
MAX_POST_WRITES = 3
# Look a little before the attempt started: platform and worker clocks differ.
LISTING_SLACK = timedelta(minutes=10)
# How alike (difflib ratio, case-insensitive) a listed post must be to count as ours when the
# platform did not keep our text verbatim.
NEAR_MATCH_RATIO = 0.9
RECHECK_AFTER = timedelta(hours=24)
ENGAGEMENT_WINDOW = timedelta(days=7)
ENGAGEMENT_EVERY = timedelta(hours=6)
SWEEP_BATCH = 200
# Stop starting new reads once a sweep has run this long; the next tick continues.
SWEEP_BUDGET_S = 120.0


def publication_reconcile(*, publication_id: int) -> Publication:
    """Read one PUBLISHED or UNKNOWN publication back from its platform, if a read is due."""
    publication = Publication.objects.select_related("channel").get(pk=publication_id)
    if publication.status not in {Status.PUBLISHED, Status.UNKNOWN}:
        return publication
    if _channel_held(publication):
        return publication
    if not _read_claim(publication):
        return publication
    try:
        provider = provider_build(channel=publication.channel)
    except TokenDecryptError:
        logger.warning(
            "channel %s token cannot be decrypted; publication %s not read", publication.channel_id, publication.pk
        )
        return _read_missed(publication, reason="channel token unreadable")
    if publication.status == Status.PUBLISHED:
        return _read_back(publication, provider)
    return _find_unknown(publication, provider)


# Where the sweep counts a publication by the status a read left it in (any other status: "pending").
# Keyed by str: a row's status is the plain string from the database.
_SWEEP_COUNT_KEYS: dict[str, str] = {
    Status.LANDED: "landed",
    Status.UNCONFIRMED: "unconfirmed",
    Status.SCHEDULED: "rescheduled",
    Status.FAILED: "failed",
}


def publications_reconcile_due() -> dict[str, int]:
    """The cron sweep over PUBLISHED and UNKNOWN publications whose next read is due."""
    now = timezone.now()
    due_before = now - timedelta(seconds=settings.RECONCILE_MIN_INTERVAL_S)
    due_ids = list(
        Publication.objects.filter(status__in=[Status.PUBLISHED, Status.UNKNOWN])
        .filter(Q(last_read_at__isnull=True) | Q(last_read_at__lte=due_before))
        .exclude(channel__throttled_until__gt=now)
        .order_by(F("last_read_at").asc(nulls_first=True), "pk")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    counts = {"read": 0, "landed": 0, "unconfirmed": 0, "rescheduled": 0, "failed": 0, "pending": 0, "errors": 0}
    started = time.monotonic()
    for publication_id in due_ids:
        if time.monotonic() - started > SWEEP_BUDGET_S:
            break
        counts["read"] += 1
        try:
            publication = publication_reconcile(publication_id=publication_id)
        except Exception:
            logger.exception("reconcile failed for publication %s", publication_id)
            counts["errors"] += 1
            continue
        counts[_SWEEP_COUNT_KEYS.get(publication.status, "pending")] += 1
    return counts


def landed_recheck() -> dict[str, int]:
    """Read landed posts again about a day after they landed; gone means VANISHED."""
    now = timezone.now()
    candidates = (
        Publication.objects.filter(status=Status.LANDED, landed_at__lte=now - RECHECK_AFTER)
        # Not yet re-read since landing (the landing read sets last_read_at ≈ landed_at).
        .filter(Q(last_read_at__isnull=True) | Q(last_read_at__lt=F("landed_at") + timedelta(hours=1)))
        .exclude(channel__throttled_until__gt=now)
        # The owner disconnected it: we hold no token, and no read could tell live from gone.
        .exclude(channel__status=Channel.Status.DISCONNECTED)
        .select_related("channel")
        .order_by("landed_at")[:SWEEP_BATCH]
    )
    counts = {"checked": 0, "live": 0, "vanished": 0, "errors": 0}
    refused: set[int] = set()
    for publication in candidates:
        if publication.channel_id in refused:
            continue
        counts["checked"] += 1
        try:
            provider = provider_build(channel=publication.channel)
            read = provider.read_back(post_id=publication.platform_post_id)
        except NotVisibleYet:
            read = None
        except Exception as exc:
            _sweep_read_failed(publication, exc, refused=refused, counts=counts, sweep="landed recheck")
            continue
        if read is not None and read.live:
            Publication.objects.filter(pk=publication.pk, status=Status.LANDED).update(
                last_read_at=timezone.now(), read_count=F("read_count") + 1
            )
            counts["live"] += 1
            continue
        counts["vanished"] += publication_transition(
            event=Event.VANISH,
            publication_id=publication.pk,
            last_read_at=timezone.now(),
            failure_kind=FailureKind.VANISHED,
            failure_reason="the platform no longer shows this post (deleted or unpublished)",
            updated_at=timezone.now(),
        )
    return counts


def engagement_fetch() -> dict[str, int]:
    """Snapshot reactions and comments of posts that landed in the last week."""
    now = timezone.now()
    recent = (
        Publication.objects.filter(status=Status.LANDED, landed_at__gte=now - ENGAGEMENT_WINDOW)
        .exclude(engagement__fetched_at__gte=now - ENGAGEMENT_EVERY)
        .exclude(channel__throttled_until__gt=now)
        .exclude(channel__status=Channel.Status.DISCONNECTED)  # no token to read with
        .select_related("channel")
        .order_by("landed_at")[:SWEEP_BATCH]
    )
    counts = {"fetched": 0, "errors": 0}
    refused: set[int] = set()
    for publication in recent:
        if publication.channel_id in refused:
            continue
        try:
            numbers = provider_build(channel=publication.channel).engagement(post_id=publication.platform_post_id)
        except Exception as exc:
            _sweep_read_failed(publication, exc, refused=refused, counts=counts, sweep="engagement fetch")
            continue
        EngagementSnapshot.objects.create(
            publication=publication,
            fetched_at=timezone.now(),
            reactions=max(numbers.get("reactions", 0), 0),
            comments=max(numbers.get("comments", 0), 0),
        )
        counts["fetched"] += 1
    return counts


# --- PUBLISHED: read the post back ------------------------------------------------------


def _sweep_read_failed(
    publication: Publication, exc: Exception, *, refused: set[int], counts: dict[str, int], sweep: str
) -> None:
    """A sweep's read of one landed post failed. A channel that refuses (reconnect, throttled)
    is not evidence about the post: it is marked and skipped for the rest of the sweep. Any
    other failure costs only this post. Both count as the sweep's errors."""
    if isinstance(exc, NeedsReconnect | Throttled):
        _channel_refused(publication.channel, exc)
        refused.add(publication.channel_id)
    else:
        logger.warning("%s could not read publication %s", sweep, publication.pk)
    counts["errors"] += 1


def _read_back(publication: Publication, provider: Provider) -> Publication:
    try:
        read = provider.read_back(post_id=publication.platform_post_id)
    except (NeedsReconnect, Throttled) as exc:
        return _read_blocked(publication, exc)
    except PlatformError as exc:
        # 100/33 on a fresh post is read lag, not absence (reference section 5).
        return _read_missed(publication, reason=f"read-back failed: {exc}")
    if not read.live:
        return _read_missed(publication, reason="the platform does not show the post live yet")
    now = timezone.now()
    publication_transition(
        event=Event.READ_LIVE,
        publication_id=publication.pk,
        permalink=read.permalink,
        landed_at=now,
        failure_kind=FailureKind.NONE,
        failure_reason="",
        updated_at=now,
    )
    publication.refresh_from_db()
    return publication


# --- UNKNOWN: did the write land? -------------------------------------------------------


def _find_unknown(publication: Publication, provider: Provider) -> Publication:
    container_published = False
    if publication.container_id:
        verdict, container_published = _container_verdict(publication, provider)
        if verdict is not None:
            return verdict
    since = (publication.publishing_started_at or publication.created_at) - LISTING_SLACK
    try:
        recent = provider.list_recent(since=since)
    except (NeedsReconnect, Throttled) as exc:
        return _read_blocked(publication, exc)
    except PlatformError as exc:
        return _unknown_not_found(publication, reason=f"listing failed: {exc}", retry_safe=False)
    match = _match(publication, recent)
    if match is None:
        if container_published:
            # The container says it was published: waiting is the only safe move.
            return _read_missed(publication, reason="container published but the media is not listed yet")
        return _unknown_not_found(publication, reason="not among the channel's recent posts", retry_safe=True)
    now = timezone.now()
    found = publication_transition(
        event=Event.FOUND,
        publication_id=publication.pk,
        platform_post_id=match.post_id,
        published_at=match.created_at or now,
        read_count=0,
        failure_kind=FailureKind.NONE,
        failure_reason="",
        updated_at=now,
    )
    publication.refresh_from_db()
    if found != 1:
        return publication
    # The permalink must come from reading the post itself, not from the listing.
    return _read_back(publication, provider)


def _container_verdict(publication: Publication, provider: Provider) -> tuple[Publication | None, bool]:
    """Instagram: the container says whether media_publish can have happened.

    Returns (the publication when the container settles it, else None; whether the
    container is known to be published).
    """
    try:
        state = provider.container_state(container_id=publication.container_id)
    except (NeedsReconnect, Throttled) as exc:
        return _read_blocked(publication, exc), False
    except PlatformError:
        # Unreadable container: the listing still decides, but never a retry (below).
        return None, True
    if state.status_code in {"IN_PROGRESS", "ERROR", "EXPIRED"}:
        # media_publish cannot have succeeded on a container that never finished: the
        # publish path may safely poll it, or make a new one.
        return _reschedule(publication, reason=f"container {state.status_code.lower()}: nothing was published"), False
    # PUBLISHED: published for certain, find the media and never publish again.
    # FINISHED: maybe not yet visible as published; the listing decides over several reads.
    return None, state.status_code == "PUBLISHED"


def _match(publication: Publication, recent: list[RecentPost]) -> RecentPost | None:
    """The post this publication made: same text (and link, where the listing has one),
    not already owned by another publication on the channel. Oldest first, so a duplicate
    made by some earlier mistake is never preferred over the original."""
    owned = set(
        Publication.objects.filter(channel_id=publication.channel_id)
        .exclude(pk=publication.pk)
        .exclude(platform_post_id="")
        .values_list("platform_post_id", flat=True)
    )
    wanted = _normalise(publication.message)
    eligible = [
        post
        for post in recent
        if post.post_id not in owned
        and (not post.link_url or not publication.link_url or post.link_url == publication.link_url)
    ]
    eligible.sort(key=lambda post: post.created_at or timezone.now())
    exact = [post for post in eligible if _normalise(post.message) == wanted]
    if exact:
        return exact[0]
    # Platforms sometimes store a post's text slightly changed (a trailing link dropped,
    # quotes or spacing rewritten). Missing our own post here would let a retry post it
    # again, which is the failure this whole path exists to prevent; so a near-identical
    # text in the window counts as ours.
    near = [post for post in eligible if _near_identical(wanted, _normalise(post.message))]
    return near[0] if near else None


def _near_identical(ours: str, theirs: str) -> bool:
    ours, theirs = _loosened(ours), _loosened(theirs)
    if not ours or not theirs:
        return False
    shorter, longer = sorted((ours, theirs), key=len)
    if longer.startswith(shorter) and len(shorter) >= 0.8 * len(longer):
        return True
    return SequenceMatcher(None, ours, theirs, autojunk=False).ratio() >= NEAR_MATCH_RATIO


_URL = re.compile(r"https?://\S+")
_TYPOGRAPHY = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"})


def _loosened(text: str) -> str:
    """Text as a platform might have rewritten it: URLs (shown as the attached link) and
    typographic quotes and dashes do not count as differences."""
    return _normalise(_URL.sub(" ", text).translate(_TYPOGRAPHY)).casefold()


def _unknown_not_found(publication: Publication, *, reason: str, retry_safe: bool) -> Publication:
    if not retry_safe:
        # A failed listing proves nothing: count it toward UNCONFIRMED, never toward a retry.
        return _read_missed(publication, reason=reason)
    if publication.read_count < UNKNOWN_READS_BEFORE_RETRY:
        return _note(publication, reason=reason)
    return _reschedule(publication, reason=f"{reason} after {publication.read_count} reads: safe to retry")


def _reschedule(publication: Publication, *, reason: str) -> Publication:
    writes = post_writes_count(publication_id=publication.pk)
    now = timezone.now()
    if writes >= MAX_POST_WRITES:
        publication_transition(
            event=Event.NEVER_SEEN,
            publication_id=publication.pk,
            failure_kind=FailureKind.NEVER_SEEN,
            failure_reason=f"{reason}; the platform never showed the post after {writes} writes",
            updated_at=now,
        )
    else:
        publication_transition(
            event=Event.RETRY_AFTER_UNKNOWN,
            publication_id=publication.pk,
            scheduled_for=now,
            read_count=0,
            last_read_at=None,
            failure_kind=FailureKind.RETRY_AFTER_UNKNOWN,
            failure_reason=reason[:1000],
            updated_at=now,
        )
    # The publish sweep picks a rescheduled publication up on its next tick.
    publication.refresh_from_db()
    return publication


# --- read bookkeeping -------------------------------------------------------------------


def _read_claim(publication: Publication) -> bool:
    """Take the next read: spaced by RECONCILE_MIN_INTERVAL_S, one reader at a time."""
    now = timezone.now()
    if publication.last_read_at is not None and now - publication.last_read_at < timedelta(
        seconds=settings.RECONCILE_MIN_INTERVAL_S
    ):
        return False
    claimed = Publication.objects.filter(
        pk=publication.pk, status=publication.status, read_count=publication.read_count
    ).update(read_count=F("read_count") + 1, last_read_at=now)
    if claimed == 1:
        publication.read_count += 1
        publication.last_read_at = now
    return claimed == 1


def _read_missed(publication: Publication, *, reason: str) -> Publication:
    """A read that did not show the post live: wait for the next, or give up as UNCONFIRMED."""
    if publication.read_count < settings.RECONCILE_MAX_READS:
        return _note(publication, reason=reason)
    publication_transition(
        event=Event.UNCONFIRM,
        publication_id=publication.pk,
        source=publication.status,
        failure_kind=FailureKind.UNCONFIRMED,
        failure_reason=f"{reason} after {publication.read_count} reads"[:1000],
        updated_at=timezone.now(),
    )
    publication.refresh_from_db()
    return publication


def _read_blocked(publication: Publication, exc: PlatformError) -> Publication:
    """The read could not be made (dead token, throttle): it does not count as a miss."""
    _channel_refused(publication.channel, exc)
    Publication.objects.filter(pk=publication.pk, status=publication.status, read_count__gt=0).update(
        read_count=F("read_count") - 1
    )
    publication.refresh_from_db()
    return publication


def _channel_refused(channel: Channel, exc: PlatformError) -> None:
    """A dead token or a throttle belongs to the channel, whichever read met it."""
    if isinstance(exc, NeedsReconnect):
        channel_mark_needs_reconnect(channel=channel, reason=f"the platform rejected the token: {exc}")
    elif isinstance(exc, Throttled):
        # Reads count against the same budget as writes: hold the whole channel.
        channel_defer(channel=channel, until=timezone.now() + timedelta(seconds=exc.retry_after_s))


def _channel_held(publication: Publication) -> bool:
    held_until = publication.channel.throttled_until
    return held_until is not None and held_until > timezone.now()


def _note(publication: Publication, *, reason: str) -> Publication:
    Publication.objects.filter(pk=publication.pk, status=publication.status).update(
        failure_reason=reason[:1000], updated_at=timezone.now()
    )
    publication.refresh_from_db()
    return publication


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
