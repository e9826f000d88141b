"""Research reads."""

from __future__ import annotations

from datetime import datetime

from django.db.models import CharField, Count, F, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce, NullIf

from accounts.models import Account
from research.dedupe import distinct_stories
from research.models import Article, Delivery, ResearchRun, Source, Subscription, article_usable_q


def articles_usable_for_account(*, account: Account, since: datetime | None = None) -> QuerySet[Article]:
    """Articles the account may draft from: extracted ok, delivered by one of its own
    sources, one per story; newest first (``since`` filters on when we stored it), each
    annotated with ``delivered_at``.

    Near-duplicates are folded inside the account's own set only (the first stored stands
    for the story), so another customer's feed can neither hide a page from this account
    nor make it draft from a copy that only that feed listed.
    """
    mine = Article.objects.filter(article_usable_q(), deliveries__source__subscriptions__account=account)
    if since is not None:
        mine = mine.filter(created_at__gte=since)
    candidates = mine.distinct().order_by("created_at", "pk").values_list("pk", "fingerprint")
    # Newest by the date the account's own feed gave the story, else the page's date.
    delivered_at = (
        Delivery.objects.filter(article=OuterRef("pk"), source__subscriptions__account=account)
        .order_by(F("published_at").desc(nulls_last=True))
        .values("published_at")[:1]
    )
    return (
        Article.objects.filter(pk__in=distinct_stories(candidates))
        .annotate(delivered_at=Coalesce(Subquery(delivered_at), F("published_at")))
        .order_by(F("delivered_at").desc(nulls_last=True), "-created_at", "-pk")
    )


def usable_article_counts(*, account_ids: list[int], since: datetime) -> dict[int, int]:
    """``articles_usable_for_account(...).count()`` for many accounts in one query."""
    rows = (
        Subscription.objects.filter(
            article_usable_q("source__deliveries__article__"),
            account_id__in=account_ids,
            source__deliveries__article__created_at__gte=since,
        )
        .values_list("account_id", "source__deliveries__article_id", "source__deliveries__article__fingerprint")
        .distinct()
        .order_by("account_id", "source__deliveries__article__created_at", "source__deliveries__article_id")
    )
    per_account: dict[int, list[tuple[int, int | None]]] = {}
    for account_id, article_id, value in rows:
        per_account.setdefault(account_id, []).append((article_id, value))
    return {account_id: len(distinct_stories(items)) for account_id, items in per_account.items()}


def sources_for_account(*, account: Account) -> QuerySet[Source]:
    """The account's sources, each with ``label``: the account's own name for it, else the
    feed's own title, else its URL (never another subscriber's name)."""
    own_title = Subscription.objects.filter(account=account, source=OuterRef("pk")).values("title")[:1]
    return (
        Source.objects.filter(subscriptions__account=account)
        .annotate(
            label=Coalesce(
                NullIf(Subquery(own_title), Value("")),
                NullIf(F("title"), Value("")),
                F("url"),
                output_field=CharField(),
            )
        )
        .order_by("label", "url")
    )


def research_run_latest(*, account: Account) -> ResearchRun | None:
    return ResearchRun.objects.filter(account=account).order_by("-started_at", "-pk").first()


def source_article_counts(*, source_ids: list[int], since: datetime) -> dict[int, dict[str, int]]:
    """Extraction outcomes per source since ``since``: a feed that works but whose pages are
    all blocked shows up here, not in the feed's own health."""
    rows = (
        Delivery.objects.filter(source_id__in=source_ids, article__created_at__gte=since)
        .values("source_id", "article__extraction_status")
        .annotate(n=Count("article_id"))
    )
    counts: dict[int, dict[str, int]] = {}
    for row in rows:
        counts.setdefault(row["source_id"], {})[row["article__extraction_status"]] = row["n"]
    return counts
