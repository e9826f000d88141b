"""Reads the composer needs."""

from __future__ import annotations

from datetime import datetime

from accounts.models import Account, Platform
from posting.composer.meaning import BusinessMeaning, text_digest, vectors_unpack
from posting.composer.relevance import BusinessTopic, StoryPrint, story_print, topic_build
from posting.models import ComposeSkip, Draft, PastPost, TaughtArticle
from publish.models import Channel
from research.models import Article

# Past posts read to learn what a business is about: its recent writing says it best.
PAST_POSTS_READ = 500
# Articles the customer had drafted although they were skipped (``TaughtArticle``) read for
# closeness with the posts, the most recent first: enough for a season's corrections, few enough
# that a stray tap soon stops counting.
TAUGHT_READ = 10


def account_platforms(*, account: Account) -> list[str]:
    """The platforms an account posts to: those with a channel it has not revoked.

    An account that has connected nothing yet (onboarding) gets drafts for every platform,
    so its first morning already shows what Landed would post; approving one then asks it
    to connect that platform.
    """
    connected = set(
        Channel.objects.filter(account=account)
        .exclude(status=Channel.Status.REVOKED)
        .values_list("platform", flat=True)
    )
    return [p for p in Platform.values if p in connected] or list(Platform.values)


def account_topic(*, account: Account, meaning: BusinessMeaning | None = None) -> BusinessTopic:
    """What the account is about: industry, chosen topics, own names and all its past posts,
    and ``meaning``, its recent posts' vectors and the articles it taught us
    (``services.account_meaning``), when given."""
    listed = account.own_names if isinstance(account.own_names, list) else []
    topics = account.topics if isinstance(account.topics, list) else []
    posts = PastPost.objects.filter(account=account).order_by("-posted_at", "-pk").values_list("text", flat=True)
    return topic_build(
        industry=account.industry,
        own_names=[account.name, *(str(name) for name in listed)],
        past_posts=list(posts[:PAST_POSTS_READ]),
        topics=[str(topic) for topic in topics],
        meaning=meaning,
    )


def recent_story_prints(*, account: Account, since: datetime) -> list[tuple[int, str, StoryPrint]]:
    """The stories the account has drafts about since ``since``: (article id, headline, its print)."""
    articles = (
        Article.objects.filter(drafts__account=account, drafts__created_at__gte=since)
        .distinct()
        .values_list("pk", "title", "text", "meaning")
    )
    return [
        (
            pk,
            title,
            story_print(title=title, body=text, vectors=vectors_unpack(meaning, digest=text_digest(title, text))),
        )
        for pk, title, text, meaning in articles
    ]


def skipped_stories_recent(*, account: Account, limit: int = 20) -> list[ComposeSkip]:
    """Articles recently left out as off topic or as a story already drafted, one row per
    article (a skip is recorded per platform), newest first: what "we skipped" shows."""
    skips = (
        ComposeSkip.objects.filter(
            account=account, reason__in=[ComposeSkip.Reason.OFF_TOPIC, ComposeSkip.Reason.SAME_STORY]
        )
        .select_related("article")
        .order_by("-created_at", "-pk")[: limit * len(Platform.values)]
    )
    newest_per_article: dict[int, ComposeSkip] = {}
    for skip in skips:
        newest_per_article.setdefault(skip.article_id, skip)
    return list(newest_per_article.values())[:limit]


def taught_articles(*, account: Account) -> list[TaughtArticle]:
    """What the customer taught by "Draft it anyway", newest first, as the Voice page lists them
    (only the first ``TAUGHT_READ`` are read by relevance)."""
    return list(TaughtArticle.objects.filter(account=account)[:TAUGHT_READ])


def skipped_article(*, account: Account, article_id: int) -> Article | None:
    """An article the composer skipped for this account as off topic or a story it already has:
    what "Draft it anyway" may draft. None for any other article (another account's, a drafted
    one, one skipped for want of an image)."""
    skip = (
        ComposeSkip.objects.filter(
            account=account,
            article_id=article_id,
            reason__in=[ComposeSkip.Reason.OFF_TOPIC, ComposeSkip.Reason.SAME_STORY],
        )
        .select_related("article__source")
        .first()
    )
    return skip.article if skip is not None else None


def article_drafted(*, account: Account, article_id: int) -> bool:
    """Whether the account has a draft of this article (a second tap on "Draft it anyway")."""
    return Draft.objects.filter(account=account, article_id=article_id).exists()
