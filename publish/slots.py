"""Posting slots: when an account's approved posts go out, per platform, in its time zone.

An account posts at a few wall-clock times on chosen weekdays (``PostingSlot`` rows). Until
the owner edits them they are derived from its cadence (posts per platform per day): one a
day at 10:00, more spread between 09:00 and 19:00, every day. Approving puts a post into the
next free slot (``slot_next_free``); the slot is stored on the publication (``slot_at``), and
the every-minute ``publish_due`` job publishes what is due, so a restart loses nothing.

Times are computed in the account's zone and stored in UTC. A wall-clock time that does not
exist on a day (the spring-forward hour) resolves the way ``zoneinfo`` does (fold 0), and
an account with a zone name Python does not know is treated as UTC (``account_zone``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.db import transaction

from publish.errors import NoFreeSlot
from publish.models import Channel, PostingSlot, Publication

if TYPE_CHECKING:
    from accounts.models import Account

# How far ahead the queue looks for a free slot: beyond four weeks something is wrong (a
# huge backlog), and the customer is told rather than a post landing next season.
HORIZON_DAYS = 28
FIRST_HOUR = 9
LAST_HOUR = 19
MAX_PER_DAY = 12
# A wall-clock time as people write it: 9:00, 09:00, 17:30 (24-hour).
_CLOCK = re.compile(r"(?P<hour>\d{1,2})[:.h](?P<minute>\d{2})")


class SlotsInvalid(ValueError):
    """The posting times the customer entered cannot be used; the message says why."""


@dataclass(frozen=True)
class Rhythm:
    """An account's posting slots on one platform: which weekdays, at which local times."""

    weekdays: tuple[int, ...]
    times: tuple[time, ...]


def account_zone(account: Account) -> ZoneInfo:
    """The account's time zone; UTC for a name zoneinfo does not know (never an error page)."""
    try:
        return ZoneInfo(account.timezone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def rhythm_from_cadence(cadence_per_day: int) -> Rhythm:
    """Default slots for a cadence: every day, one post at 10:00, more spread over 09:00 to 19:00."""
    per_day = max(1, min(int(cadence_per_day or 1), MAX_PER_DAY))
    times: tuple[time, ...]
    if per_day == 1:
        times = (time(10, 0),)
    else:
        span = (LAST_HOUR - FIRST_HOUR) * 60
        minutes = [FIRST_HOUR * 60 + round(span * i / (per_day - 1) / 15) * 15 for i in range(per_day)]
        times = tuple(time(m // 60, m % 60) for m in minutes)
    return Rhythm(weekdays=tuple(range(7)), times=times)


def rhythm_parse(*, weekdays: Iterable[str], times: str) -> Rhythm:
    """The owner's edit: weekday numbers (0 = Monday) and times like "09:00, 17:30"."""
    try:
        days = sorted({int(day) for day in weekdays})
    except ValueError:
        raise SlotsInvalid("Pick the days from the list.") from None
    if not days or any(day not in range(7) for day in days):
        raise SlotsInvalid("Pick at least one day to post on.")
    parsed: set[time] = set()
    for chunk in times.replace(";", ",").replace(" ", ",").split(","):
        if not chunk.strip():
            continue
        match = _CLOCK.fullmatch(chunk.strip())
        try:
            if match is None:
                raise ValueError(chunk)
            parsed.add(time(int(match["hour"]), int(match["minute"])))
        except ValueError:
            raise SlotsInvalid(f"“{chunk.strip()[:20]}” is not a time: write times like 09:00 or 17:30.") from None
    if not parsed:
        raise SlotsInvalid("Give at least one time to post at, like 09:00.")
    if len(parsed) > MAX_PER_DAY:
        raise SlotsInvalid(f"At most {MAX_PER_DAY} times a day.")
    return Rhythm(weekdays=tuple(days), times=tuple(sorted(parsed)))


def account_rhythm(*, account: Account, platform: str) -> Rhythm:
    """The account's slots on a platform; the cadence's defaults until the owner sets them."""
    rows = [slot for slot in _slots_of(account) if slot.platform == platform]
    if not rows:
        return rhythm_from_cadence(account.cadence_per_day)
    return Rhythm(
        weekdays=tuple(sorted({slot.weekday for slot in rows})), times=tuple(sorted({slot.time for slot in rows}))
    )


@transaction.atomic
def account_rhythm_set(*, account: Account, platform: str, rhythm: Rhythm) -> None:
    """Replace the account's slots on a platform. Posts already queued keep their times."""
    PostingSlot.objects.filter(account=account, platform=platform).delete()
    PostingSlot.objects.bulk_create(
        PostingSlot(account=account, platform=platform, weekday=day, time=at)
        for day in rhythm.weekdays
        for at in rhythm.times
    )


def slot_times(*, rhythm: Rhythm, zone: ZoneInfo, after: datetime, days: int = HORIZON_DAYS) -> Iterator[datetime]:
    """The slot instants (UTC) strictly after ``after``, in order, over the next ``days`` days."""
    first_day: date = after.astimezone(zone).date()
    for offset in range(days + 1):
        day = first_day + timedelta(days=offset)
        if day.weekday() not in rhythm.weekdays:
            continue
        for at in rhythm.times:
            # Through UTC and back: a wall time the clocks skip becomes the instant zoneinfo gives it.
            instant = datetime.combine(day, at, tzinfo=zone).astimezone(UTC)
            if instant > after:
                yield instant


def slots_free(*, account: Account, channel: Channel, after: datetime, limit: int) -> list[datetime]:
    """The next ``limit`` slots (UTC) on the channel's platform that no queued post holds."""
    rhythm = account_rhythm(account=account, platform=channel.platform)
    taken = set(
        Publication.objects.filter(
            channel=channel, slot_at__gt=after, slot_at__lte=after + timedelta(days=HORIZON_DAYS + 1)
        ).values_list("slot_at", flat=True)
    )
    free: list[datetime] = []
    for instant in slot_times(rhythm=rhythm, zone=account_zone(account), after=after):
        if instant not in taken:
            free.append(instant)
            if len(free) >= limit:
                break
    return free


def slot_next_free(*, account: Account, channel: Channel, after: datetime) -> datetime:
    """The first free slot after ``after``; NoFreeSlot when the next four weeks are full."""
    free = slots_free(account=account, channel=channel, after=after, limit=1)
    if not free:
        raise NoFreeSlot(
            f"Every posting time of the next {HORIZON_DAYS} days is taken: add posting times or post some now."
        )
    return free[0]


def slot_is_one_of_the_accounts(*, account: Account, platform: str, at: datetime) -> bool:
    """Whether ``at`` is one of the account's slot instants on that platform."""
    rhythm = account_rhythm(account=account, platform=platform)
    local = at.astimezone(account_zone(account))
    return local.weekday() in rhythm.weekdays and local.time().replace(tzinfo=None) in rhythm.times


def _slots_of(account: Account) -> list[PostingSlot]:
    # Prefetched by the queue page (``posting_slots``); loaded here otherwise.
    cache = getattr(account, "_prefetched_objects_cache", {})
    if "posting_slots" in cache:
        return list(cache["posting_slots"])
    return list(PostingSlot.objects.filter(account=account))
