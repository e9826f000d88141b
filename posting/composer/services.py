"""Composing: turn each account's usable articles into platform-aware drafts.

Safe to run twice: one draft per (account, platform, article) is a database constraint,
and an article the composer decided not to draft for a platform is recorded as a
``ComposeSkip`` so the reason is visible and the decision is not re-made every run.
New drafts are DRAFTED; the factual gate picks them up from there.
"""

from __future__ import annotations

import logging
import zoneinfo
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import Account, Platform
from posting.composer.extractive import ComposedPost, compose_extractive, voice_for_platform
from posting.composer.llm_composer import compose_with_llm_gated
from posting.composer.meaning import (
    BUSINESS_MAX_POSTS,
    BusinessMeaning,
    Vectors,
    article_vectors,
    business_description,
    business_meaning,
    description_texts,
    model_available,
    text_digest,
    vectors_pack,
    vectors_unpack,
)
from posting.composer.relevance import (
    BusinessTopic,
    Relevance,
    relevance_score,
    same_story,
    story_names,
    story_names_common,
    story_print,
    taught_text,
)
from posting.composer.relevance_judge import BusinessBrief, RelevanceJudge, borderline, relevance_judge
from posting.composer.selectors import TAUGHT_READ, account_platforms, account_topic, recent_story_prints
from posting.gate.services import draft_gate
from posting.llm import llm_configured
from posting.models import ComposeSkip, Composition, Draft, LLMUsage, PastPost, TaughtArticle, VoiceProfile
from posting.selectors import account_rejection_reasons, account_sign_offs
from posting.services import draft_revision_record
from research.models import Article
from research.selectors import articles_usable_for_account
from research.services import articles_meaning_store

logger = logging.getLogger(__name__)

# Drafts from stale news help nobody; older articles are left alone.
ARTICLE_MAX_AGE = timedelta(days=3)
# Look at this many of the newest usable articles per run, at most.
ARTICLES_PER_RUN = 50
# A story drafted this recently is not drafted again from another outlet or day.
STORY_MEMORY = timedelta(days=14)


def drafts_compose_dispatch() -> dict[str, int]:
    """The compose job: one task per account that is not paused (``account_drafts_compose_task``),
    each of which hands its new drafts to the gate.

    One task composing every account in turn used the job's one time limit for all of them
    and one worker slot: at 1,000 accounts the night's compose stage ran on one core while
    the other idled, and the task limit bounded how many accounts could be served at all.
    Queued once the caller's transaction commits; with eager tasks (the embedded default)
    each account's compose runs inline.
    """
    from posting.tasks import account_drafts_compose_task

    account_ids = list(Account.objects.filter(paused=False).order_by("pk").values_list("pk", flat=True))

    def enqueue() -> None:
        for account_id in account_ids:
            account_drafts_compose_task.delay(account_id)

    transaction.on_commit(enqueue)
    return {"accounts": len(account_ids)}


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
    """Draft the account's most relevant new articles for each platform it posts to, within cadence.

    Articles are ranked by relevance to what the business is about (best first); an
    article from another trade is recorded as an OFF_TOPIC skip, and one telling a story
    the account already has a draft about (from another outlet or an earlier day) as a
    SAME_STORY skip: never two drafts about the same story. Cadence is
    ``account.cadence_per_day`` drafts per platform per day (the account's local day). A
    draft the gate turned down does not use up the day's slot, so the next run can offer
    another article instead.
    """
    since = timezone.now() - ARTICLE_MAX_AGE
    # With its source: each draft names its outlet (_outlet), one query per draft otherwise.
    usable = articles_usable_for_account(account=account, since=since).select_related("source")
    articles = list(usable[:ARTICLES_PER_RUN])
    if not articles:
        return []
    platforms = account_platforms(account=account)
    remaining = {p: account.cadence_per_day - _drafts_in_play_today(account=account, platform=p) for p in platforms}
    handled = _handled(account=account, articles=articles)
    profiles = {p.platform: p for p in VoiceProfile.objects.filter(account=account)}
    meaning = account_meaning(account=account)
    topic = account_topic(account=account, meaning=meaning)
    if list(topic.borrowed) != account.borrowed_topics:
        # Shown on the Voice page; written only when they change (the first night, or after the
        # posts, industry or chosen topics changed), through the manager so the page is fresh.
        Account.objects.filter(pk=account.pk).update(borrowed_topics=list(topic.borrowed))
        account.borrowed_topics = list(topic.borrowed)
    run = _run_start(account=account, topic=topic)
    run.judge = relevance_judge(
        account=account,
        business=BusinessBrief(
            name=account.name,
            industry=account.industry,
            posts=meaning.own_posts if meaning is not None else (),
            topics=tuple(str(topic) for topic in account.topics) if isinstance(account.topics, list) else (),
        ),
    )
    stories = recent_story_prints(account=account, since=timezone.now() - STORY_MEMORY)
    # The names common in this run's articles and the stories already drafted, which are no one
    # story's own (``relevance.same_story``'s own names path).
    batch = {article.pk: story_names(title=article.title, body=article.text) for article in articles}
    batch.update({pk: other.names for pk, _, other in stories})
    common = story_names_common(batch.values())

    drafts: list[Draft] = []
    # Skips are written together at the end: one insert, not a get-or-create per article and
    # platform (at 1,000 accounts those were most of the compose stage's queries).
    skips: list[ComposeSkip] = []
    for article, relevance in _ranked(articles, topic=topic, rotation=account.pk):
        open_platforms = [p for p in platforms if (p, article.pk) not in handled]
        if not open_platforms:
            continue
        # A borderline article is the model's to call (with a key), while a draft could still
        # come of it. Once the day's drafts are made (or the run's calls spent), asking would only
        # spend calls, and recording the offline "off topic" would settle for good what the model
        # has not seen: it waits for a later run. (A model that is down does not stall the night:
        # then the offline decision stands.)
        if run.judge is not None and not run.llm_unavailable and borderline(relevance):
            if run.judge.spent or not any(remaining[p] > 0 for p in open_platforms):
                continue
            relevance = run.judge.decide(relevance, title=article.title, body=article.text)
            run.llm_unavailable = run.judge.unavailable
        if not relevance.relevant:
            detail = relevance.reason()
            for platform in open_platforms:
                _skip_record(
                    skips,
                    account=account,
                    platform=platform,
                    article=article,
                    reason=ComposeSkip.Reason.OFF_TOPIC,
                    detail=detail,
                )
            continue
        # The article's vectors were stored on the row while it was ranked (_articles_vectors).
        stored = vectors_unpack(article.meaning, digest=text_digest(article.title, article.text))
        printed = story_print(title=article.title, body=article.text, vectors=stored)
        repeated = next(
            (title for pk, title, other in stories if pk != article.pk and same_story(printed, other, common=common)),
            None,
        )
        if repeated is not None:
            for platform in open_platforms:
                _skip_record(
                    skips,
                    account=account,
                    platform=platform,
                    article=article,
                    reason=ComposeSkip.Reason.SAME_STORY,
                    # The customer knows a story by its headline, not our id for it.
                    detail=f"Same story as \u201c{repeated[:200]}\u201d, already drafted.",
                )
            continue
        drafted_any = False
        for platform in open_platforms:
            if remaining[platform] <= 0:
                continue
            draft = _article_draft(
                account=account,
                article=article,
                platform=platform,
                profiles=profiles,
                run=run,
                relevance=relevance.as_dict(),
                skips=skips,
            )
            if draft is not None:
                drafts.append(draft)
                drafted_any = True
                remaining[platform] -= 1
        if drafted_any:
            stories.append((article.pk, article.title, printed))
    # A concurrent run for this account may have recorded the same skip: the first one stands.
    ComposeSkip.objects.bulk_create(skips, ignore_conflicts=True)
    return drafts


@dataclass(frozen=True)
class SkippedDrafted:
    """What "Draft it anyway" did: the new drafts (each judged by the gate) and whether the
    article now teaches relevance."""

    drafts: list[Draft]
    taught: bool
    # Each platform it could not be drafted for, and why (``ComposeSkip.Reason`` labels).
    refused: list[tuple[str, str]] = field(default_factory=list)


def skipped_article_draft(*, account: Account, article: Article, user: User | None) -> SkippedDrafted:
    """Draft an article the composer skipped, because the customer asked ("Draft it anyway").

    Relevance, the story already drafted and the day's cadence are the customer's to overrule;
    the gate is not: each new draft is judged before this returns (as an edit is), so the page
    shows it in the drafts or held back, never "being checked". An article skipped as off topic
    also tells relevance what news matters to the business (``TaughtArticle``, read for closeness
    with its posts the next nights); one skipped as a story already drafted was about the
    business and teaches nothing. Instagram still needs an image the settings allow, and the drafts count towards the
    day's cadence like any other.
    """
    reasons = [ComposeSkip.Reason.OFF_TOPIC, ComposeSkip.Reason.SAME_STORY]
    with transaction.atomic():
        skips = ComposeSkip.objects.filter(account=account, article=article, reason__in=reasons)
        off_topic = skips.filter(reason=ComposeSkip.Reason.OFF_TOPIC).exists()
        skips.delete()
        if off_topic:
            TaughtArticle.objects.get_or_create(
                account=account,
                article=article,
                defaults={
                    "title": article.title[:500],
                    "text": taught_text(title=article.title, body=article.text),
                    "taught_by": user,
                },
            )
    handled = {platform for platform, _ in _handled(account=account, articles=[article])}
    platforms = [p for p in account_platforms(account=account) if p not in handled]
    if not platforms:
        return SkippedDrafted(drafts=[], taught=off_topic)
    profiles = {p.platform: p for p in VoiceProfile.objects.filter(account=account)}
    run = _run_start(account=account, topic=account_topic(account=account))
    skips_new: list[ComposeSkip] = []
    drafts: list[Draft] = []
    for platform in platforms:
        draft = _article_draft(
            account=account,
            article=article,
            platform=platform,
            profiles=profiles,
            run=run,
            relevance={"asked": True},  # the card says "you asked for it", not a score
            skips=skips_new,
        )
        if draft is not None:
            drafts.append(draft)
    ComposeSkip.objects.bulk_create(skips_new, ignore_conflicts=True)
    refused = [(Platform(skip.platform).label, ComposeSkip.Reason(skip.reason).label) for skip in skips_new]
    return SkippedDrafted(drafts=[draft_gate(draft_id=draft.pk) for draft in drafts], taught=off_topic, refused=refused)


def taught_article_forget(*, account: Account, taught_id: int) -> bool:
    """Stop reading one taught article (the Voice page's "Forget"); False if there was none."""
    deleted, _ = TaughtArticle.objects.filter(account=account, pk=taught_id).delete()
    return bool(deleted)


MAX_TOPICS = 30


def account_compose_settings_set(
    *, account: Account, topics: list[str], use_article_images: bool, instagram_bio_link: str
) -> Account:
    """What the customer told us about what to post: topics, whether article images may be
    used, and where its Instagram bio links to (only then may a caption say "Link in bio")."""
    cleaned = list(dict.fromkeys(" ".join(t.split())[:80] for t in topics if t.strip()))[:MAX_TOPICS]
    account.topics = cleaned
    account.use_article_images = use_article_images
    account.instagram_bio_link = instagram_bio_link.strip()
    account.save(update_fields=["topics", "use_article_images", "instagram_bio_link"])
    return account


def draft_create(
    *,
    account: Account,
    article: Article,
    platform: str,
    composed: ComposedPost,
    llm_usage: LLMUsage | None = None,
    fallback_reason: str = "",
    relevance: dict[str, Any] | None = None,
    image_url: str = "",
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
                image_url=image_url,
                composer=composed.composer,
                status=Draft.Status.DRAFTED,
            )
            Composition.objects.create(
                draft=draft,
                composer=composed.composer,
                sources=composed.sources,
                fallback_reason=fallback_reason[:500],
                llm_usage=llm_usage,
                relevance=relevance or {},
            )
            draft_revision_record(draft=draft, source="composer")
    except IntegrityError:
        # The unique (account, platform, article) constraint: a concurrent run got there first.
        return None
    return draft


@dataclass
class _Run:
    """What one compose run knows: the model's state, and what the gate needs of the account."""

    use_llm: bool
    own_names: list[str] = field(default_factory=list)
    sign_offs: list[str] = field(default_factory=list)
    topic: BusinessTopic | None = None
    # The customer's reasons for rejecting earlier drafts: the model is told not to repeat them.
    donts: list[str] = field(default_factory=list)
    # Set once the model is unreachable or throttled: later drafts in this run go straight
    # to the offline composer instead of each waiting out the client's retries again.
    llm_unavailable: str = ""
    # The model's say on borderline articles (None without a key).
    judge: RelevanceJudge | None = None


def _run_start(*, account: Account, topic: BusinessTopic) -> _Run:
    return _Run(
        use_llm=llm_configured(),
        own_names=[account.name, *(str(n) for n in account.own_names if isinstance(account.own_names, list))],
        sign_offs=account_sign_offs(account=account),
        topic=topic,
        donts=account_rejection_reasons(account=account),
    )


def _article_draft(
    *,
    account: Account,
    article: Article,
    platform: str,
    profiles: dict[str, VoiceProfile],
    run: _Run,
    relevance: dict[str, Any],
    skips: list[ComposeSkip],
) -> Draft | None:
    """One draft of ``article`` for ``platform``, or None with the reason added to ``skips``
    (None too when a concurrent run drafted it first)."""
    # Facebook carries the link (its preview shows the publisher's own card); Instagram
    # needs an image of its own, which only the account's setting allows.
    image_url = ""
    if platform == Platform.INSTAGRAM:
        skip = _instagram_image_skip(account=account, article=article)
        if skip:
            _skip_record(skips, account=account, platform=platform, article=article, reason=skip)
            return None
        image_url = article.lead_image_url
    composed, usage, fallback_reason = _compose(
        account=account,
        article=article,
        platform=platform,
        profile=profiles.get(platform),
        profiles=profiles,
        run=run,
    )
    if composed is None:
        _skip_record(skips, account=account, platform=platform, article=article, reason=ComposeSkip.Reason.NO_SENTENCES)
        return None
    return draft_create(
        account=account,
        article=article,
        platform=platform,
        composed=composed,
        llm_usage=usage,
        fallback_reason=fallback_reason,
        relevance=relevance,
        image_url=image_url,
    )


def _compose(
    *,
    account: Account,
    article: Article,
    platform: str,
    profile: VoiceProfile | None,
    profiles: dict[str, VoiceProfile],
    run: _Run,
) -> tuple[ComposedPost | None, LLMUsage | None, str]:
    """The model's post when one is configured and it passes the gate; the offline post otherwise.

    The model gets one retry told the gate's reasons; a post that fails the gate twice is
    never shown to anyone: the offline composer's draft is used instead.
    """
    stats = voice_for_platform(
        profile.stats if profile else None,
        [other.stats for other in profiles.values() if other is not profile and isinstance(other.stats, dict)],
    )
    usage: LLMUsage | None = None
    fallback_reason = ""
    if run.use_llm and run.llm_unavailable:
        fallback_reason = f"The model was unavailable earlier in this run: {run.llm_unavailable}"
    elif run.use_llm:
        outcome = compose_with_llm_gated(
            account=account,
            title=article.title,
            body=article.text,
            platform=platform,
            stats=stats,
            style_guide=_with_donts(profile.style_guide if profile else "", run.donts),
            exemplars=profile.exemplars if profile else [],
            own_names=run.own_names,
            sign_offs=run.sign_offs,
        )
        if outcome.post is not None:
            return outcome.post, outcome.usage, ""
        usage, fallback_reason = outcome.usage, outcome.fallback_reason
        if outcome.unavailable:
            run.llm_unavailable = outcome.fallback_reason
    offline = compose_extractive(
        title=article.title,
        body=article.text,
        platform=platform,
        stats=stats,
        topic=run.topic,
        outlet=_outlet(article),
        bio_link=bool(account.instagram_bio_link),
        own_names=run.own_names,
    )
    return offline, usage, fallback_reason[:500]


def _with_donts(style_guide: str, donts: list[str]) -> str:
    """The style guide plus the customer's own "don't"s, from the reasons they rejected drafts."""
    if not donts:
        return style_guide
    lines = "\n".join(f"- {reason}" for reason in donts)
    return f"{style_guide}\nDON'T (the business rejected earlier drafts for these reasons):\n{lines}".strip()


def _ranked(articles: list[Article], *, topic: BusinessTopic, rotation: int = 0) -> list[tuple[Article, Relevance]]:
    """Best first. With nothing known about the business yet, every article is let through."""
    if not topic.known:
        return [(article, Relevance(score=0.0, relevant=True, matched=[])) for article in articles]
    vectors = _articles_vectors(articles, rotation=rotation) if topic.meaning is not None else {}
    scored = [
        (article, relevance_score(topic=topic, title=article.title, body=article.text, vectors=vectors.get(article.pk)))
        for article in articles
    ]
    return sorted(scored, key=lambda pair: -pair[1].rank)


def account_meaning(*, account: Account) -> BusinessMeaning | None:
    """The account's most recent posts as the sentence model's vectors (None: words alone), and
    after them the articles it taught us (``TaughtArticle``, read for closeness only).

    Each post is embedded once, the first night it is read, and its vector kept on the row
    (``PastPost.meaning``, ``TaughtArticle.meaning``); later nights read it."""
    if not model_available():
        return None
    # The articles it taught us are read for closeness after the posts (BusinessMeaning.taught).
    taught = [
        row
        for row in TaughtArticle.objects.filter(account=account).values_list("pk", "text", "meaning")[:TAUGHT_READ]
        if row[1].strip()
    ]
    rows = [
        row
        for row in PastPost.objects.filter(account=account)
        .exclude(text="")
        .order_by("-posted_at", "-pk")
        .values_list("pk", "text", "meaning")[: BUSINESS_MAX_POSTS - len(taught)]
        if row[1].strip()  # as business_meaning keeps them, so the vectors line up with the rows
    ]
    stored = [_stored_vector(text, meaning) for _, text, meaning in rows]
    taught_stored = [_stored_vector(text, meaning) for _, text, meaning in taught]
    listed = account.own_names if isinstance(account.own_names, list) else []
    topics = account.topics if isinstance(account.topics, list) else []
    # Read by the combined score as a few more posts (meaning.Closeness.described); stored under
    # the digest of these texts, so a changed industry, name or topic is embedded afresh.
    description = business_description(
        industry=account.industry,
        names=[account.name, *(str(name) for name in listed)],
        topics=[str(topic) for topic in topics],
    )
    said = description_texts(description)
    said_digest = text_digest(*said)
    # Kept at float32, as embedded: the combined score then reads exactly what a fresh pass gives.
    described = vectors_unpack(account.description_meaning, digest=said_digest, dtype=np.float32)
    if described is not None and len(described) != len(said):
        described = None
    business = business_meaning(
        posts=[text for _, text, _ in rows],
        vectors=stored,
        description=description,
        described=described,
        taught=[text for _, text, _ in taught],
        taught_vectors=taught_stored,
    )
    if business is None:
        return None
    if described is None and business.described is not None:
        packed = vectors_pack(business.described, digest=said_digest, dtype=np.float32)
        # A plain queryset: the vector is on no page, so the account's content version stays.
        QuerySet(model=Account).filter(pk=account.pk).update(description_meaning=packed)
        account.description_meaning = packed
    # Each row's vector is stored the first night it is read: one query per kind, then none.
    own = len(business.vectors) - business.taught
    posts_fresh = [
        PastPost(pk=pk, meaning=vectors_pack(business.vectors[i : i + 1], digest=text_digest(text)))
        for i, (pk, text, _) in enumerate(rows)
        if stored[i] is None
    ]
    taught_fresh = [
        TaughtArticle(pk=pk, meaning=vectors_pack(business.vectors[own + i : own + i + 1], digest=text_digest(text)))
        for i, (pk, text, _) in enumerate(taught)
        if taught_stored[i] is None
    ]
    if posts_fresh:
        PastPost.objects.bulk_update(posts_fresh, ["meaning"])
    if taught_fresh:
        TaughtArticle.objects.bulk_update(taught_fresh, ["meaning"])
    return business


def _stored_vector(text: str, meaning: bytes | memoryview | None) -> Vectors | None:
    vectors = vectors_unpack(meaning, digest=text_digest(text))
    return vectors[0] if vectors is not None and len(vectors) == 1 else None


def _articles_vectors(articles: list[Article], *, rotation: int = 0) -> dict[int, Vectors]:
    """Each article's passage vectors: stored on the row by whichever account ranked it first
    (so one night embeds an article once, not once per account), or worked out and stored now.

    At the start of a night every worker reaches the same new articles at once. Each stores a
    vector as soon as it has it and reads the row again before embedding the next article, and
    each account starts at a different article (``rotation``, its id), so two worker processes
    share the new articles between them instead of both embedding all of them."""
    found: dict[int, Vectors] = {}
    missing: list[Article] = []
    for article in articles:
        vectors = vectors_unpack(article.meaning, digest=text_digest(article.title, article.text))
        if vectors is None:
            missing.append(article)
        else:
            found[article.pk] = vectors
    if missing:
        start = rotation % len(missing)
        missing = missing[start:] + missing[:start]
    for article in missing:
        digest = text_digest(article.title, article.text)
        stored = Article.objects.filter(pk=article.pk).values_list("meaning", flat=True).first()
        vectors = vectors_unpack(stored, digest=digest)
        if vectors is not None:
            article.meaning = stored  # another worker's: the same-story check reads it here too
        else:
            vectors = article_vectors(title=article.title, body=article.text)
            if vectors is None:
                return {}
            article.meaning = vectors_pack(vectors, digest=digest)
            articles_meaning_store(meanings={article.pk: article.meaning})
        found[article.pk] = vectors
    return found


def _instagram_image_skip(*, account: Account, article: Article) -> str:
    """Why an Instagram post cannot be made from this article ("" when it can): it needs an image."""
    if not account.use_article_images:
        return ComposeSkip.Reason.IMAGE_NOT_ALLOWED
    if not article.lead_image_url:
        return ComposeSkip.Reason.NO_IMAGE
    return ""


def _outlet(article: Article) -> str:
    source = article.source
    if source is None:
        return ""
    return source.title or (urlsplit(source.url).hostname or "")


def _skip_record(
    skips: list[ComposeSkip], *, account: Account, platform: str, article: Article, reason: str, detail: str = ""
) -> None:
    skips.append(ComposeSkip(account=account, platform=platform, article=article, reason=reason, detail=detail[:500]))


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
