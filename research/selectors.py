"""Research reads."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Count, F, Q, QuerySet

from posting.models import Account
from research.models import Article, ResearchRun, Source, article_usable_q


def articles_usable_for_account(*, account: Account, since: datetime | None = None) -> QuerySet[Article]:
    """Articles the composer may draft from: extracted ok, not a duplicate, listed by a
    source the account subscribes to; newest first (``since`` filters on when we stored it)."""
    # ``sources`` lists every feed that led to the story; ``source`` (the first of them) is
    # matched too, so a row written with only that field still counts.
    listed = Q(sources__subscriptions__account=account) | Q(source__subscriptions__account=account)
    articles = Article.objects.filter(listed, article_usable_q())
    if since is not None:
        articles = articles.filter(created_at__gte=since)
    return articles.distinct().order_by(F("published_at").desc(nulls_last=True), "-created_at", "-pk")


def sources_for_account(*, account: Account) -> QuerySet[Source]:
    return Source.objects.filter(subscriptions__account=account).order_by("title", "url")


def research_run_latest(*, account: Account) -> ResearchRun | None:
    return ResearchRun.objects.filter(account=account).order_by("-started_at", "-pk").first()


def source_article_counts(*, source_ids: list[int], since: datetime) -> dict[int, dict[str, int]]:
    """Extraction outcomes per source since ``since``: a feed that works but whose pages are
    all blocked shows up here, not in the feed's own health."""
    rows = (
        Article.sources.through.objects.filter(source_id__in=source_ids, article__created_at__gte=since)
        .values("source_id", "article__extraction_status")
        .annotate(n=Count("article_id"))
    )
    counts: dict[int, dict[str, int]] = {}
    for row in rows:
        counts.setdefault(row["source_id"], {})[row["article__extraction_status"]] = row["n"]
    return counts
