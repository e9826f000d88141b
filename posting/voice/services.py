"""Voice: import a business's past posts and learn, once, how it writes on each platform.

A profile is learned the first time an account has posts for a platform and is relearned
only when someone asks (the "Relearn" button or ``voice_learn``): a voice that drifted
every night with whatever was imported last would be no voice at all.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from accounts.models import Account, Platform
from posting.llm import LLMError, llm_complete_json, llm_configured
from posting.models import PastPost, VoiceProfile
from posting.voice.parsing import VoiceImportError
from posting.voice.stats import voice_describe, voice_exemplars, voice_stats
from publish.errors import PlatformError
from publish.models import Channel, Publication
from publish.services import provider_build

logger = logging.getLogger(__name__)

# How far back a connected channel's own posts are read to learn its voice.
CHANNEL_HISTORY_DAYS = 365
STYLE_GUIDE_SAMPLE = 20
STYLE_GUIDE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"style_guide": {"type": "string"}},
    "required": ["style_guide"],
    "additionalProperties": False,
}
STYLE_GUIDE_SYSTEM = """You describe how a small business writes its social media posts, so that a writer can
imitate the style. Describe tone, sentence length, person (we/I/you), emoji, hashtags, punctuation and sign-offs in
at most five short sentences. Describe the STYLE only: do not repeat any fact, product, price, name or event from
the posts. Answer with JSON only."""


class VoiceNoPosts(Exception):
    """There is nothing to learn a voice from on this platform yet."""


@transaction.atomic
def voice_import(*, account: Account, platform: str, posts: list[dict[str, Any]], origin: str = "upload") -> int:
    """Store past posts (``{"text", "posted_at"?}``) for one platform; returns how many were new.

    A post whose text is already imported for this account and platform is skipped, so
    uploading the same export twice changes nothing.
    """
    if platform not in Platform.values:
        raise VoiceImportError(f"Unknown platform {platform!r}.")
    existing = set(PastPost.objects.filter(account=account, platform=platform).values_list("text", flat=True))
    new: list[PastPost] = []
    for post in posts:
        text = _storable(str(post.get("text") or "")).strip()
        if not text or text in existing:
            continue
        existing.add(text)
        new.append(
            PastPost(account=account, platform=platform, text=text, posted_at=post.get("posted_at"), origin=origin)
        )
    PastPost.objects.bulk_create(new)
    return len(new)


def voice_import_from_channel(*, channel: Channel, days: int = CHANNEL_HISTORY_DAYS) -> int:
    """Import the published posts of a connected Page (or Instagram account) as past posts.

    Posts Landed itself published are left out: a voice learned from our own drafts would
    only ever learn itself.
    """
    since = timezone.now() - timedelta(days=days)
    try:
        recent = provider_build(channel=channel).list_recent(since=since)
    except PlatformError as exc:
        raise VoiceImportError(f"Could not read your posts from {channel}: {exc}") from None
    ours = set(
        Publication.objects.filter(channel=channel)
        .exclude(platform_post_id="")
        .values_list("platform_post_id", flat=True)
    )
    posts = [{"text": p.message, "posted_at": p.created_at} for p in recent if p.message and p.post_id not in ours]
    return voice_import(account=channel.account, platform=channel.platform, posts=posts, origin="channel")


def voice_learn(*, account: Account, platform: str) -> VoiceProfile:
    """Learn (or relearn) the account's voice on one platform from all its past posts there."""
    texts = list(PastPost.objects.filter(account=account, platform=platform).values_list("text", flat=True))
    if not texts:
        raise VoiceNoPosts(f"No past {Platform(platform).label} posts to learn from yet.")
    stats = voice_stats(texts, own_names=[account.name, *account.own_names])
    # The model call happens before the write so no transaction stays open while it runs.
    style_guide = _style_guide(account=account, platform=platform, texts=texts, stats=stats)
    profile, _ = VoiceProfile.objects.update_or_create(
        account=account,
        platform=platform,
        defaults={
            "stats": stats,
            "style_guide": style_guide,
            "exemplars": voice_exemplars(texts),
            "source_post_count": len(texts),
            "learned_at": timezone.now(),
        },
    )
    return profile


def voice_learn_after_import(*, account: Account, platform: str, relearn: bool = False) -> VoiceProfile | None:
    """What an import does to the voice: a platform's first import learns it straight away;
    later imports leave it as it is until someone asks (``relearn``, the Relearn button).

    Returns the profile learned now, or None when the voice already learned stays as it is.
    Raises VoiceNoPosts when the platform has no past posts to learn from.
    """
    if not relearn and VoiceProfile.objects.filter(account=account, platform=platform).exists():
        return None
    return voice_learn(account=account, platform=platform)


def voice_relearn(*, account: Account) -> list[VoiceProfile]:
    """Relearn every platform the account has past posts for (the customer's "Relearn" button)."""
    platforms = PastPost.objects.filter(account=account).values_list("platform", flat=True).distinct()
    return [voice_learn(account=account, platform=p) for p in sorted(set(platforms))]


def voices_learn_pending() -> dict[str, int]:
    """Learn each (account, platform) that has past posts and no profile yet: learned once."""
    has_profile = VoiceProfile.objects.filter(account=OuterRef("account"), platform=OuterRef("platform"))
    pending = (
        PastPost.objects.annotate(learned=Exists(has_profile))
        .filter(learned=False)
        .values_list("account_id", "platform")
        .distinct()
    )
    counts = {"learned": 0, "failed": 0}
    for account_id, platform in sorted(set(pending)):
        try:
            voice_learn(account=Account.objects.get(pk=account_id), platform=platform)
        except Exception:
            logger.exception("learning the %s voice of account %s failed", platform, account_id)
            counts["failed"] += 1
        else:
            counts["learned"] += 1
    return counts


def voice_summary(*, profile: VoiceProfile) -> list[str]:
    """The profile in plain words for the customer."""
    return voice_describe(profile.stats, platform_label=Platform(profile.platform).label)


def _style_guide(*, account: Account, platform: str, texts: list[str], stats: dict[str, Any]) -> str:
    """A short style guide written by the model when one is configured; blank otherwise."""
    if not llm_configured():
        return ""
    sample = "\n".join(f"- {text}" for text in texts[:STYLE_GUIDE_SAMPLE])
    description = " ".join(voice_describe(stats, platform_label=Platform(platform).label))
    try:
        result = llm_complete_json(
            account=account,
            purpose="voice_style_guide",
            system=STYLE_GUIDE_SYSTEM,
            user=f"MEASURED HABITS: {description}\n\nPOSTS:\n{sample}",
            schema_name="style_guide",
            schema=STYLE_GUIDE_SCHEMA,
            max_tokens=400,
        )
    except LLMError:
        # Recorded as an LLMUsage row; the statistics alone still shape drafts.
        return ""
    guide = result.data.get("style_guide")
    return guide.strip()[:2000] if isinstance(guide, str) else ""


def _storable(text: str) -> str:
    """The text without what PostgreSQL refuses to store (NUL bytes, lone UTF-16 surrogates
    from a JSON "\\ud83d"): one odd character must not turn an upload into a server error."""
    return text.replace("\x00", "").encode("utf-8", "ignore").decode("utf-8")
