"""Where a publication stands, in the customer's words: what happened and what happens next.

History shows this instead of a status name: "Facebook has temporarily blocked posting from
this Page; we will retry at 14:00 (Europe/London)", "Reconnect Instagram". The platform's own
error code comes from the attempts (``PublishAttempt.error_code``), which the History page
prefetches, so explaining a page of publications costs no query per row.
"""

from __future__ import annotations

from dataclasses import dataclass
from zoneinfo import ZoneInfo

from publish.graph import NEEDS_RECONNECT_CODES, QUOTA_SUBCODE, THROTTLE_CODES
from publish.kinds import FailureKind
from publish.limits import PLATFORM_NAMES
from publish.models import Channel, Publication, PublishAttempt

Status = Publication.Status
TEMPORARILY_BLOCKED = 368
DUPLICATE = 506


@dataclass(frozen=True)
class Outcome:
    """One sentence on what happened, one on what happens next, and whether the next step is
    the customer's (reconnect the channel: ``reconnect`` is True and the page links there)."""

    said: str
    next_step: str = ""
    reconnect: bool = False
    # Retrying is safe: reconcile read the platform and saw nothing land.
    retry: bool = False


def publication_outcome(*, publication: Publication, zone: ZoneInfo) -> Outcome:
    """Plain words for a publication whose channel and attempts were loaded with it."""
    platform = PLATFORM_NAMES.get(publication.channel.platform, "The platform")
    where = "Page" if platform == "Facebook" else "account"
    reason = _platform_reason(publication, platform=platform, where=where)
    status = publication.status
    at = publication.scheduled_for.astimezone(zone)
    when = f"{at:%H:%M} on {at:%a} {at.day} {at:%b} ({zone.key})"
    channel_lost = publication.channel.status != Channel.Status.CONNECTED
    if status == Status.LANDED:
        return Outcome("Live on " + platform + ".")
    if status == Status.VANISHED:
        return Outcome(
            f"It was live, then it was removed from {platform}.",
            "Nothing to do, unless it was removed by mistake.",
        )
    if status == Status.WITHDRAWN:
        return Outcome("Taken back to drafts before it went out.")
    if status == Status.PUBLISHING:
        return Outcome(f"Going out to {platform} now.")
    if status == Status.PUBLISHED:
        return Outcome(f"{platform} accepted it; we are checking that it is live.")
    if status == Status.SCHEDULED:
        if channel_lost or publication.failure_kind == FailureKind.NEEDS_RECONNECT:
            return Outcome(
                f"{platform} no longer accepts our connection to your {where}, so this waits.",
                f"Reconnect {platform}; it goes out as soon as you do.",
                reconnect=True,
            )
        if reason:
            return Outcome(f"{reason}.", f"We will retry at {when}.")
        return Outcome(f"Goes out at {when}.")
    if status == Status.UNKNOWN:
        return Outcome(
            f"{reason or f'{platform} did not answer when we sent it'}.",
            f"We are checking {platform} to see whether it went out before we try again, so it is never posted twice.",
        )
    if status == Status.UNCONFIRMED:
        return Outcome(
            f"{platform} accepted it, but we could not see it live after several checks.",
            f"Look on your {where}; if it is not there, tell us and we will look into it.",
        )
    # FAILED
    if publication.failure_kind == FailureKind.NEEDS_RECONNECT or channel_lost:
        return Outcome(
            f"{platform} no longer accepts our connection to your {where}.",
            f"Reconnect {platform}.",
            reconnect=True,
        )
    if publication.failure_kind == FailureKind.NEVER_SEEN:
        return Outcome(
            f"{reason or f'We tried several times and {platform} never showed the post'}; nothing landed.",
            f"We read {platform} back and it is not there, so sending it again is safe.",
            retry=True,
        )
    return Outcome(
        f"{reason or f'{platform} refused this post'}.",
        "It will not be retried as it is: edit the text and approve a new draft, or tell us.",
    )


def _platform_reason(publication: Publication, *, platform: str, where: str) -> str:
    """The platform's latest refusal, in words; "" when it gave none."""
    refused: PublishAttempt | None = None
    for attempt in publication.attempts.all():  # prefetched, oldest first
        if attempt.error_code is not None:
            refused = attempt
    if refused is None:
        return ""
    code, subcode = refused.error_code, refused.error_subcode
    if code == TEMPORARILY_BLOCKED:
        return f"{platform} has temporarily blocked posting from this {where} (#{code})"
    if subcode == QUOTA_SUBCODE:
        return "Instagram's daily limit of posts for this account is reached"
    if code in THROTTLE_CODES:
        return f"{platform} asked us to slow down for a while (#{code})"
    if code in NEEDS_RECONNECT_CODES:
        return f"{platform} no longer accepts our connection to your {where} (#{code})"
    if code == DUPLICATE:
        return f"{platform} said this repeats a recent post (#{code})"
    # What the platform said (the detail GraphClient records with each refusal).
    message = str((refused.response_summary or {}).get("detail", "")).strip()[:200]
    if not message:
        message = publication.failure_reason.strip()[:200]
    return f"{platform} refused it: “{message}” (#{code})" if message else f"{platform} refused it (#{code})"
