"""Composing: turn each account's usable articles into platform-aware drafts.

Safe to run twice: one draft per (account, platform, article) is a database constraint,
and an article the composer decided not to draft for a platform is recorded as a
``ComposeSkip`` so the reason is visible and the decision is not re-made every run.
New drafts are DRAFTED; the factual gate picks them up from there.
"""

from __future__ import annotations

import logging
import zoneinfo
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from posting.composer.extractive import ComposedPost, compose_extractive
from posting.composer.llm_composer import ComposeError, compose_with_llm
from posting.composer.selectors import account_platforms
from posting.llm import llm_configured
from posting.models import Account, ComposeSkip, Composition, Draft, LLMUsage, Platform, VoiceProfile
from posting.services import draft_revision_record
from research.models import Article
from research.selectors import articles_usable_for_account

logger = logging.getLogger(__name__)

# Drafts from stale news help nobody; older articles are left alone.
ARTICLE_MAX_AGE = timedelta(days=3)
# Look at this many of the newest usable articles per run, at most.
ARTICLES_PER_RUN = 50


def drafts_compose_all() -> dict[str, int]:
    """Compose for every account that is not paused; one account's failure never stops the rest."""
    counts = {"accounts": 0, "drafts": 0, "accounts_failed": 0}
    for account in Account.objects.filter(paused=False).order_by("pk"):
        counts["accounts"] += 1
        try:
            counts["drafts"] += len(drafts_compose_for_account(account=account))
        except Exception:
            # Recorded (Sentry picks up logged exceptions) and counted for the JobRun.
            logger.exception("composing failed for account %s", account.pk)
            counts["accounts_failed"] += 1
    return counts


def drafts_compose_for_account(*, account: Account) -> list[Draft]:
    """Draft the newest usable articles for each platform the account posts to, within cadence.

    Cadence is ``account.cadence_per_day`` drafts per platform per day (the account's local
    day). A draft the gate turned down does not use up the day's slot, so the next run can
    offer another article instead.
    """
    since = timezone.now() - ARTICLE_MAX_AGE
    articles = list(articles_usable_for_account(account=account, since=since)[:ARTICLES_PER_RUN])
    if not articles:
        return []
    platforms = account_platforms(account=account)
    remaining = {p: account.cadence_per_day - _drafts_in_play_today(account=account, platform=p) for p in platforms}
    handled = _handled(account=account, articles=articles)
    profiles = {p.platform: p for p in VoiceProfile.objects.filter(account=account)}
    run = _Run(use_llm=llm_configured())

    drafts: list[Draft] = []
    for article in articles:
        for platform in platforms:
            if remaining[platform] <= 0 or (platform, article.pk) in handled:
                continue
            if platform == Platform.INSTAGRAM and not article.lead_image_url:
                _skip_record(account=account, platform=platform, article=article, reason=ComposeSkip.Reason.NO_IMAGE)
                continue
            profile = profiles.get(platform) or next(iter(profiles.values()), None)
            composed, usage, fallback_reason = _compose(
                account=account, article=article, platform=platform, profile=profile, run=run
            )
            if composed is None:
                _skip_record(
                    account=account, platform=platform, article=article, reason=ComposeSkip.Reason.NO_SENTENCES
                )
                continue
            draft = draft_create(
                account=account,
                article=article,
                platform=platform,
                composed=composed,
                llm_usage=usage,
                fallback_reason=fallback_reason,
            )
            if draft is not None:
                drafts.append(draft)
                remaining[platform] -= 1
    return drafts


def draft_create(
    *,
    account: Account,
    article: Article,
    platform: str,
    composed: ComposedPost,
    llm_usage: LLMUsage | None = None,
    fallback_reason: str = "",
) -> Draft | None:
    """Store a composed post as a DRAFTED draft; None if another run drafted it first."""
    try:
        with transaction.atomic():
            draft = Draft.objects.create(
                account=account,
                platform=platform,
                article=article,
                text=composed.text,
                link_url=article.canonical_url if platform == Platform.FACEBOOK_PAGE else "",
                image_url=article.lead_image_url if platform == Platform.INSTAGRAM else "",
                composer=composed.composer,
                status=Draft.Status.DRAFTED,
            )
            Composition.objects.create(
                draft=draft,
                composer=composed.composer,
                sources=composed.sources,
                fallback_reason=fallback_reason[:500],
                llm_usage=llm_usage,
            )
            draft_revision_record(draft=draft, source="composer")
    except IntegrityError:
        # The unique (account, platform, article) constraint: a concurrent run got there first.
        return None
    return draft


@dataclass
class _Run:
    """What one compose run has learned about the model so far."""

    use_llm: bool
    # Set once the model is unreachable or throttled: later drafts in this run go straight
    # to the extractive composer instead of each waiting out the client's retries again.
    llm_unavailable: str = ""


def _compose(
    *, account: Account, article: Article, platform: str, profile: VoiceProfile | None, run: _Run
) -> tuple[ComposedPost | None, LLMUsage | None, str]:
    """The LLM's post when one is configured and it delivers; the extractive post otherwise."""
    stats = profile.stats if profile else {}
    usage: LLMUsage | None = None
    fallback_reason = ""
    if run.use_llm and run.llm_unavailable:
        fallback_reason = f"The model was unavailable earlier in this run: {run.llm_unavailable}"
    elif run.use_llm:
        try:
            composed, usage = compose_with_llm(
                account=account,
                title=article.title,
                body=article.text,
                platform=platform,
                stats=stats,
                style_guide=profile.style_guide if profile else "",
                exemplars=profile.exemplars if profile else [],
            )
        except ComposeError as exc:
            usage = exc.usage
            fallback_reason = str(exc)
            if exc.unavailable:
                run.llm_unavailable = str(exc)
        else:
            return composed, usage, ""
    extractive = compose_extractive(
        title=article.title, body=article.text, platform=platform, stats=stats, industry=account.industry
    )
    return extractive, usage, fallback_reason


def _skip_record(*, account: Account, platform: str, article: Article, reason: str) -> None:
    ComposeSkip.objects.get_or_create(account=account, platform=platform, article=article, defaults={"reason": reason})


def _handled(*, account: Account, articles: list[Article]) -> set[tuple[str, int]]:
    ids = [a.pk for a in articles]
    drafted = Draft.objects.filter(account=account, article_id__in=ids).values_list("platform", "article_id")
    skipped = ComposeSkip.objects.filter(account=account, article_id__in=ids).values_list("platform", "article_id")
    return set(drafted) | set(skipped)


def _drafts_in_play_today(*, account: Account, platform: str) -> int:
    return (
        Draft.objects.filter(account=account, platform=platform, created_at__gte=_local_midnight(account))
        .exclude(gate_verdict__in=[Draft.Verdict.REJECTED, Draft.Verdict.NO_SUBSTANCE])
        .count()
    )


def _local_midnight(account: Account) -> datetime:
    try:
        tz = zoneinfo.ZoneInfo(account.timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        tz = zoneinfo.ZoneInfo("UTC")
    local_now = timezone.now().astimezone(tz)
    return local_now.replace(hour=0, minute=0, second=0, microsecond=0)
