"""The customers' emails: the morning digest of drafts waiting, and same-day notes when a
post lands or fails. Each person decides per account (``notifications``); every email
carries a one-click unsubscribe (RFC 8058) for its kind and account.

Both are jobs (cron/jobs.py), so they run from beat, the cron routes and the scheduler of
``make run`` alike, and both are exactly-once by a row claimed before sending:
- the digest: a MorningDigest row, unique per (membership, local day), inserted before the
  email goes out;
- the notes: a PublicationNote row per publication outcome (unique), written by the job
  when it sees the outcome (never inside the publish or reconcile transaction that made
  it), then claimed and sent once, like the alarm outbox.
"""

from __future__ import annotations

import logging
import smtplib
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives, get_connection
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.models import Account, Membership
from cron.models import MorningDigest, PublicationNote
from notifications.models import Kind
from notifications.selectors import preferences_for
from notifications.tokens import unsubscribe_token
from posting.models import Draft
from posting.selectors import drafts_awaiting_approval
from publish.limits import PLATFORM_NAMES
from publish.models import Publication
from publish.outcomes import publication_outcome
from publish.slots import account_zone

logger = logging.getLogger(__name__)

# The digest names this many drafts (oldest first) by their first words and links to the rest:
# it is a nudge, not the approval page.
DIGEST_FIRST_DRAFTS = 5
DIGEST_FIRST_WORDS = 12
# A digest may go out up to this many hours after its chosen hour (the scheduler was down at
# 07:00 and is back at 08:10), never later: a morning digest in the afternoon is noise.
DIGEST_LATE_HOURS = 3
# Outcomes older than this get no note: "same day", and a first deploy must not mail a
# business about every post of the past month.
NOTE_WINDOW = timedelta(hours=12)
# The notes outbox: a worker holds a row this long while it sends (far longer than any
# send), tries it this many times, waiting NOTE_BACKOFF_S·2^(n-1) between tries.
NOTE_CLAIM = timedelta(minutes=5)
NOTE_ATTEMPTS = 5
NOTE_BACKOFF_S = 60
NOTE_BATCH = 200

SEND_ERRORS = (smtplib.SMTPException, OSError)


def one_line(text: str) -> str:
    """Customer text (a business name) as a mail header takes it: one line, bounded."""
    return " ".join(str(text).split())[:120]


def when_local(at: datetime, account: Account) -> str:
    """A time as the customer reads it, with its zone: "07:00 on Tue 1 Dec (Europe/London)"."""
    zone = account_zone(account)
    local = at.astimezone(zone)
    return f"{local:%H:%M} on {local:%a} {local.day} {local:%b} ({zone.key})"


def customer_email(
    *, membership: Membership, kind: str, subject: str, template: str, context: dict[str, Any]
) -> EmailMultiAlternatives:
    """One email to one member: plain text with a simple HTML part, and the unsubscribe
    headers of RFC 8058 pointing at a signed link for this kind of email and this account."""
    account = membership.account
    token = unsubscribe_token(membership_id=membership.pk, kind=kind)
    unsubscribe_url = settings.SITE_URL + reverse("notifications:unsubscribe", kwargs={"token": token})
    full_context = {
        **context,
        "account": account,
        "kind_name": Kind(kind).label.lower(),
        "unsubscribe_url": unsubscribe_url,
        "settings_url": settings.SITE_URL + reverse("settings", kwargs={"slug": account.slug}),
    }
    message = EmailMultiAlternatives(
        subject=one_line(subject),
        body=render_to_string(f"cron/email/{template}.txt", full_context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[membership.user.email],
        headers={
            "List-Unsubscribe": f"<{unsubscribe_url}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.attach_alternative(render_to_string(f"cron/email/{template}.html", full_context), "text/html")
    return message


def _members_emailable() -> Any:
    """Memberships whose person can receive email: active, with an address."""
    return (
        Membership.objects.filter(user__is_active=True)
        .exclude(user__email="")
        .select_related("account", "user")
        .order_by("account_id", "pk")
    )


# --- The morning digest -----------------------------------------------------------------


@dataclass(frozen=True)
class DraftLine:
    platform: str
    first_words: str


@dataclass(frozen=True)
class Waiting:
    total: int
    oldest_created_at: datetime | None
    first: list[DraftLine]


def first_words(text: str, *, words: int = DIGEST_FIRST_WORDS) -> str:
    split = text.split()
    return " ".join(split[:words]) + ("…" if len(split) > words else "")


def drafts_waiting(*, account: Account) -> Waiting:
    """What the digest says: how many drafts wait, since when, and the oldest few (2 queries)."""
    waiting = drafts_awaiting_approval(account=account).order_by("created_at", "pk")
    total = waiting.count()
    if total == 0:
        return Waiting(total=0, oldest_created_at=None, first=[])
    shown: list[Draft] = list(waiting[:DIGEST_FIRST_DRAFTS])
    return Waiting(
        total=total,
        oldest_created_at=shown[0].created_at,
        first=[DraftLine(platform=d.get_platform_display(), first_words=first_words(d.text)) for d in shown],
    )


def _age(since: datetime, now: datetime) -> str:
    hours = int((now - since).total_seconds() // 3600)
    if hours < 1:
        return "less than an hour"
    if hours < 48:
        return f"{hours} hour{'s' if hours != 1 else ''}"
    return f"{hours // 24} days"


def morning_digests_send() -> dict[str, int]:
    """Email each person who wants it, per account, the drafts waiting, once per local day.

    Due when the account's clock (Account.timezone) is in the member's chosen hour, or up
    to DIGEST_LATE_HOURS after it, so DST changes and a late scheduler are both handled.
    Nothing is sent when nothing waits, or for a paused account.
    """
    now = timezone.now()
    counts: Counter[str] = Counter()
    memberships = list(_members_emailable().filter(account__paused=False))
    preferences = preferences_for(memberships=memberships)
    claimed = set(
        MorningDigest.objects.filter(
            membership_id__in=[m.pk for m in memberships], day__gte=(now - timedelta(days=2)).date()
        ).values_list("membership_id", "day")
    )
    waiting_by_account: dict[int, Waiting] = {}
    for membership in memberships:
        wants = preferences[membership.pk]
        if not wants.digest:
            continue
        account = membership.account
        local_now = now.astimezone(account_zone(account))
        if not wants.digest_hour <= local_now.hour < wants.digest_hour + DIGEST_LATE_HOURS:
            continue
        day = local_now.date()
        if (membership.pk, day) in claimed:
            continue
        if account.pk not in waiting_by_account:
            waiting_by_account[account.pk] = drafts_waiting(account=account)
        waiting = waiting_by_account[account.pk]
        if waiting.total == 0:
            counts["nothing_waiting"] += 1
            continue
        try:
            # The claim, committed before the send: a second tick or worker finds it and stops.
            with transaction.atomic():
                claim = MorningDigest.objects.create(membership=membership, day=day, drafts=waiting.total)
        except IntegrityError:
            continue
        message = _digest_email(membership=membership, waiting=waiting, now=now)
        try:
            message.send()
        except SEND_ERRORS as exc:
            # Give the claim back so the next tick (15 minutes) tries again within the window.
            MorningDigest.objects.filter(pk=claim.pk, sent_at__isnull=True).delete()
            logger.warning("morning digest for membership %s not sent: %s", membership.pk, type(exc).__name__)
            counts["failed"] += 1
            continue
        MorningDigest.objects.filter(pk=claim.pk).update(sent_at=timezone.now())
        counts["digests_sent"] += 1
    return {"digests_sent": 0, "failed": 0, "nothing_waiting": 0, **counts}


def _digest_email(*, membership: Membership, waiting: Waiting, now: datetime) -> EmailMultiAlternatives:
    account = membership.account
    total = waiting.total
    subject = f"{total} draft{'s' if total != 1 else ''} for {account.name} waiting for your approval"
    assert waiting.oldest_created_at is not None  # total > 0
    return customer_email(
        membership=membership,
        kind=Kind.DIGEST,
        subject=subject,
        template="morning_digest",
        context={
            "total": total,
            "first": waiting.first,
            "more": total - len(waiting.first),
            "oldest_age": _age(waiting.oldest_created_at, now),
            "oldest_at": when_local(waiting.oldest_created_at, account),
            "sent_at": when_local(now, account),
            "drafts_url": settings.SITE_URL + reverse("drafts", kwargs={"slug": account.slug}),
        },
    )


# --- Same-day notes ---------------------------------------------------------------------


def publication_notes_queue() -> int:
    """Write an outbox row for every recent outcome that has none: landed (with its
    permalink) or failed. The unique (publication, outcome) makes a second sight a no-op."""
    since = timezone.now() - NOTE_WINDOW
    landed = (
        Publication.objects.filter(status=Publication.Status.LANDED, landed_at__gte=since)
        .exclude(pk__in=PublicationNote.objects.filter(outcome=PublicationNote.Outcome.LANDED).values("publication"))
        .values_list("pk", flat=True)
    )
    failed = (
        Publication.objects.filter(status=Publication.Status.FAILED, updated_at__gte=since)
        .exclude(pk__in=PublicationNote.objects.filter(outcome=PublicationNote.Outcome.FAILED).values("publication"))
        .values_list("pk", flat=True)
    )
    rows = [PublicationNote(publication_id=pk, outcome=PublicationNote.Outcome.LANDED) for pk in landed]
    rows += [PublicationNote(publication_id=pk, outcome=PublicationNote.Outcome.FAILED) for pk in failed]
    return len(PublicationNote.objects.bulk_create(rows, ignore_conflicts=True)) if rows else 0


def publication_note_deliver(*, note_id: int) -> str:
    """Claim one note and email it once to each member who wants same-day notes.

    Returns "delivered", "no_recipients" (delivered to nobody: nobody wants it), "failed"
    (held for a backoff, to be retried), "gave_up" or "not_claimed".
    """
    now = timezone.now()
    claimed = (
        PublicationNote.objects.filter(pk=note_id, delivered_at__isnull=True, given_up_at__isnull=True)
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lte=now))
        .update(claimed_until=now + NOTE_CLAIM, attempts=F("attempts") + 1)
    )
    if claimed != 1:
        return "not_claimed"
    note = PublicationNote.objects.get(pk=note_id)
    mine = PublicationNote.objects.filter(pk=note.pk, delivered_at__isnull=True, given_up_at__isnull=True)
    publication = (
        Publication.objects.select_related("channel", "account", "draft")
        .prefetch_related("attempts")
        .get(pk=note.publication_id)
    )
    members = list(_members_emailable().filter(account_id=publication.account_id))
    preferences = preferences_for(memberships=members)
    recipients = [m for m in members if preferences[m.pk].same_day]
    messages = [_note_email(membership=m, publication=publication, outcome=note.outcome) for m in recipients]
    try:
        if messages:
            with get_connection() as connection:
                connection.send_messages(messages)
    except SEND_ERRORS as exc:
        error = type(exc).__name__
        logger.warning("same-day note %s not sent: %s", note.pk, error)
        if note.attempts >= NOTE_ATTEMPTS:
            mine.update(given_up_at=timezone.now(), claimed_until=None, last_error=f"{error} after {note.attempts}")
            return "gave_up"
        retry_at = timezone.now() + timedelta(seconds=NOTE_BACKOFF_S * 2 ** (note.attempts - 1))
        mine.update(claimed_until=retry_at, last_error=error)
        return "failed"
    mine.update(delivered_at=timezone.now(), claimed_until=None, recipients=len(messages), last_error="")
    return "delivered" if messages else "no_recipients"


def same_day_notes_send() -> dict[str, int]:
    """The notes job: queue the outcomes seen since the last run, then send what is pending."""
    queued = publication_notes_queue()
    now = timezone.now()
    pending = list(
        PublicationNote.objects.filter(delivered_at__isnull=True, given_up_at__isnull=True)
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lte=now))
        .order_by("created_at")
        .values_list("pk", flat=True)[:NOTE_BATCH]
    )
    counts: Counter[str] = Counter()
    for note_id in pending:
        counts[publication_note_deliver(note_id=note_id)] += 1
    return {"queued": queued, "delivered": 0, "no_recipients": 0, "failed": 0, "gave_up": 0, **counts}


def _note_email(*, membership: Membership, publication: Publication, outcome: str) -> EmailMultiAlternatives:
    account = membership.account
    platform = PLATFORM_NAMES.get(publication.channel.platform, "The platform")
    zone = account_zone(account)
    said = publication_outcome(publication=publication, zone=zone)
    landed = outcome == PublicationNote.Outcome.LANDED
    if landed:
        subject = f"Live on {platform}: your post for {account.name}"
    else:
        subject = f"Not posted on {platform}: a post for {account.name}"
    history_url = settings.SITE_URL + reverse("history", kwargs={"slug": account.slug})
    return customer_email(
        membership=membership,
        kind=Kind.SAME_DAY,
        subject=subject,
        template="same_day_note",
        context={
            "landed": landed,
            "platform": platform,
            "channel_name": publication.channel.name or publication.channel.external_id,
            "first_words": first_words(publication.message, words=20),
            "permalink": publication.permalink,
            "landed_at": when_local(publication.landed_at, account) if publication.landed_at else "",
            "said": said.said,
            "next_step": said.next_step,
            "reconnect_url": (
                settings.SITE_URL + reverse("channels:page", kwargs={"slug": account.slug}) if said.reconnect else ""
            ),
            "history_url": history_url,
        },
    )
