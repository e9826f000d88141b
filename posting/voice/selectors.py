"""Reads for the voice page: per platform, what was learned and what it can be learned from."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count

from accounts.models import Account, Platform
from posting.composer.meaning import BUSINESS_MAX_POSTS
from posting.composer.relevance import knows_little
from posting.models import PastPost, VoiceProfile
from posting.voice.services import voice_summary
from publish.models import Channel
from publish.selectors import channel_connected_for


@dataclass(frozen=True)
class VoicePlatform:
    value: str
    label: str
    profile: VoiceProfile | None
    summary: list[str]  # the profile in plain words; empty until a voice is learned
    post_count: int  # past posts imported for this platform
    channel: Channel | None  # the connected channel past posts can be read from


def voice_platforms(*, account: Account) -> list[VoicePlatform]:
    profiles = {p.platform: p for p in VoiceProfile.objects.filter(account=account)}
    counts = dict(
        PastPost.objects.filter(account=account).values("platform").annotate(n=Count("pk")).values_list("platform", "n")
    )
    return [
        VoicePlatform(
            value=value,
            label=label,
            profile=profiles.get(value),
            summary=voice_summary(profile=profiles[value]) if value in profiles else [],
            post_count=counts.get(value, 0),
            channel=channel_connected_for(account_id=account.pk, platform=value),
        )
        for value, label in Platform.choices
    ]


def past_posts_say_little(*, account: Account) -> bool:
    """Whether the posts relevance reads (the most recent, as ``account_meaning`` does) say too
    little about what the business is to spot all of its news (``relevance.knows_little``)."""
    texts = (
        PastPost.objects.filter(account=account)
        .exclude(text="")
        .order_by("-posted_at", "-pk")
        .values_list("text", flat=True)[:BUSINESS_MAX_POSTS]
    )
    return knows_little([text for text in texts if text.strip()])
