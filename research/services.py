"""Research writes: subscribing to sources, the research run, extraction and dedupe.

The network work (feed and page fetches, feed parsing) runs in a small thread pool and
never touches the database; every write happens on the calling thread, so a task holds
exactly one database connection.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import islice

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, F
from django.utils import timezone

from posting.models import Account
from research import industries
from research.dedupe import FingerprintIndex, canonical_url, fingerprint
from research.errors import FeedParseError, FetchError, InvalidSourceUrl
from research.extract import article_extract_bytes
from research.feeds import MAX_URL_CHARS, ParsedFeed, feed_parse, opml_parse
from research.fetch import FetchResult, Purpose, fetch_url, parse_target
from research.models import Article, ErrorKind, ResearchRun, Source, Subscription, article_usable_q

logger = logging.getLogger(__name__)

# Feeds and pages in flight at once per run; per-host politeness still applies inside.
FETCH_WORKERS = 8
# How far back a new article is compared with others for near-duplicates.
NEAR_DUPLICATE_WINDOW = timedelta(days=14)
# Articles extracted per call of articles_extract_pending (the next tick takes the rest).
EXTRACT_BATCH = 500
MAX_EXTRACT_BATCHES_PER_RUN = 20
# Extraction outcomes written per round trip.
WRITE_BATCH = 25


# --- Subscriptions ---------------------------------------------------------------------


@transaction.atomic
def source_subscribe(*, account: Account, url: str, title: str = "") -> Source:
    """Subscribe the account to a feed URL (http/https only), creating the Source once."""
    url = url.strip()
    try:
        parse_target(url)
    except FetchError as exc:
        raise InvalidSourceUrl(exc.detail) from exc
    source, created = Source.objects.get_or_create(url=url, defaults={"title": title.strip()[:300]})
    if not created and title and not source.title:
        Source.objects.filter(pk=source.pk, title="").update(title=title.strip()[:300])
        source.refresh_from_db()
    Subscription.objects.get_or_create(account=account, source=source)
    return source


@transaction.atomic
def source_unsubscribe(*, account: Account, source_id: int) -> bool:
    deleted, _ = Subscription.objects.filter(account=account, source_id=source_id).delete()
    return deleted > 0


@transaction.atomic
def sources_subscribe_industry(*, account: Account, industry: str = "") -> list[Source]:
    """Subscribe the account to its industry's preset sources (or the named industry's)."""
    name = industry or account.industry
    subscribed = []
    for preset in industries.presets_for(name):
        source = source_subscribe(account=account, url=preset.url, title=preset.title)
        Source.objects.filter(pk=source.pk, industry="").update(industry=name)
        subscribed.append(source)
    return subscribed


@dataclass(frozen=True)
class OpmlImport:
    subscribed: list[Source]
    rejected: list[tuple[str, str]]


@transaction.atomic
def sources_import_opml(*, account: Account, opml: bytes) -> OpmlImport:
    """Subscribe to every feed an OPML file lists; URLs we refuse are reported, not fatal."""
    subscribed: list[Source] = []
    rejected: list[tuple[str, str]] = []
    for feed in opml_parse(opml):
        try:
            subscribed.append(source_subscribe(account=account, url=feed.url, title=feed.title))
        except InvalidSourceUrl as exc:
            rejected.append((feed.url[:200], str(exc)))
    return OpmlImport(subscribed=subscribed, rejected=rejected)


# --- The research run ------------------------------------------------------------------


def research_run_all() -> dict[str, int]:
    """Fetch every subscribed source of every active account once, extract what is new,
    and write one ResearchRun per account."""
    accounts = list(Account.objects.filter(paused=False).order_by("pk"))
    runs, totals = _research_run(accounts)
    totals["accounts"] = len(runs)
    totals["accounts_starved"] = sum(1 for run in runs if run.usable_articles == 0)
    return totals


def research_run_for_account(*, account: Account) -> ResearchRun:
    """The same pass for one account's sources only (onboarding, "refresh now")."""
    runs, _totals = _research_run([account])
    return runs[0]


def _research_run(accounts: list[Account]) -> tuple[list[ResearchRun], dict[str, int]]:
    started = timezone.now()
    subscriptions = list(
        Subscription.objects.filter(account__in=accounts).values_list("account_id", "source_id").order_by("pk")
    )
    source_ids = sorted({source_id for _, source_id in subscriptions})
    sources = list(Source.objects.filter(pk__in=source_ids))

    outcomes = {outcome.source_id: outcome for outcome in sources_fetch(sources=sources)}
    extracted = Counter[str]()
    pending = Article.objects.filter(sources__in=source_ids, extraction_status=Article.Extraction.PENDING)
    # Batches bound memory; every article leaves "pending" when its batch is recorded, so
    # this ends. The cap only guards against a pathological night (the sweep takes the rest).
    for _batch in range(MAX_EXTRACT_BATCHES_PER_RUN):
        batch = list(pending.distinct().order_by("created_at", "pk")[:EXTRACT_BATCH])
        if not batch:
            break
        extracted.update(articles_extract(articles=batch))

    by_account: dict[int, list[int]] = {}
    for account_id, source_id in subscriptions:
        by_account.setdefault(account_id, []).append(source_id)
    finished = timezone.now()
    usable = _usable_counts(accounts=accounts, since=started)
    runs = {}
    for account in accounts:
        run = runs[account.pk] = ResearchRun(account=account)
        mine = [outcomes[source_id] for source_id in by_account.get(account.pk, [])]
        run.feeds_subscribed = len(mine)
        run.feeds_fetched = sum(1 for o in mine if o.outcome == "fetched")
        run.feeds_not_modified = sum(1 for o in mine if o.outcome == "not_modified")
        run.feeds_failed = sum(1 for o in mine if o.outcome == "failed")
        run.error_kinds = dict(Counter(o.error_kind for o in mine if o.error_kind))
        run.new_articles = len({article_id for o in mine for article_id in o.new_article_ids})
        run.usable_articles = usable.get(account.pk, 0)
        run.finished_at = finished
    # Written once at the end, in one INSERT: a thousand accounts cost one round trip.
    created = ResearchRun.objects.bulk_create(runs.values(), batch_size=1000)
    ResearchRun.objects.filter(pk__in=[run.pk for run in created]).update(started_at=started)
    for run in created:
        run.started_at = started

    totals = dict(
        sources=len(sources),
        feeds_fetched=sum(1 for o in outcomes.values() if o.outcome == "fetched"),
        feeds_not_modified=sum(1 for o in outcomes.values() if o.outcome == "not_modified"),
        feeds_failed=sum(1 for o in outcomes.values() if o.outcome == "failed"),
        new_articles=sum(len(o.new_article_ids) for o in outcomes.values()),
        **{f"articles_{status}": count for status, count in extracted.items()},
    )
    return [runs[account.pk] for account in accounts], totals


def _usable_counts(*, accounts: list[Account], since: datetime) -> dict[int, int]:
    """Usable articles stored since ``since``, per account, in one query (the same rule as
    ``articles_usable_for_account``)."""
    rows = (
        Subscription.objects.filter(
            article_usable_q("source__listed_articles__"),
            account__in=accounts,
            source__listed_articles__created_at__gte=since,
        )
        .values("account_id")
        .annotate(usable=Count("source__listed_articles", distinct=True))
    )
    return {row["account_id"]: row["usable"] for row in rows}


@dataclass
class SourceOutcome:
    source_id: int
    outcome: str  # fetched | not_modified | failed
    error_kind: str = ""
    entries: int = 0
    new_article_ids: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class FeedFetch:
    source_id: int
    result: FetchResult | None = None
    feed: ParsedFeed | None = None
    error: FetchError | FeedParseError | None = None


def sources_fetch(*, sources: list[Source]) -> list[SourceOutcome]:
    """Fetch and parse each source once (in parallel), then record each outcome."""
    by_id = {source.pk: source for source in sources}
    outcomes = []
    for fetched in _in_threads(_feed_fetch, sources):
        source = by_id[fetched.source_id]
        try:
            outcomes.append(source_record_fetch(source=source, fetched=fetched))
        except Exception:
            # Whatever a hostile feed slipped past parsing (its writes are rolled back with
            # the failed transaction) must cost that source, not every account's night.
            logger.exception("unexpected error recording source %s", source.pk)
            internal = FetchError(ErrorKind.INTERNAL, "unexpected error while storing the feed's entries")
            outcomes.append(source_record_fetch(source=source, fetched=FeedFetch(source_id=source.pk, error=internal)))
    return outcomes


def _feed_fetch(source: Source) -> FeedFetch:
    # Runs in a worker thread: network and parsing only, no database.
    try:
        result = fetch_url(source.url, purpose=Purpose.FEED, etag=source.etag, last_modified=source.last_modified)
    except FetchError as exc:
        return FeedFetch(source_id=source.pk, error=exc)
    except Exception:
        # A bug must cost one source, not the night's run: recorded on the source, logged
        # with its id (never the URL, which may carry a key).
        logger.exception("unexpected error fetching source %s", source.pk)
        return FeedFetch(source_id=source.pk, error=FetchError(ErrorKind.INTERNAL, "unexpected error while fetching"))
    if result.not_modified:
        # A 304 costs no parsing.
        return FeedFetch(source_id=source.pk, result=result)
    try:
        return FeedFetch(source_id=source.pk, result=result, feed=feed_parse(result.body, base_url=result.url))
    except FeedParseError as exc:
        return FeedFetch(source_id=source.pk, result=result, error=exc)
    except Exception:
        logger.exception("unexpected error parsing source %s", source.pk)
        error = FeedParseError(ErrorKind.INTERNAL, "unexpected error while reading the feed")
        return FeedFetch(source_id=source.pk, result=result, error=error)


@transaction.atomic
def source_record_fetch(*, source: Source, fetched: FeedFetch) -> SourceOutcome:
    """Record one feed fetch on its source's health and store the entries we had not seen."""
    now = timezone.now()
    if fetched.error is not None:
        error = fetched.error
        status = error.status if isinstance(error, FetchError) else fetched.result and fetched.result.status
        Source.objects.filter(pk=source.pk).update(
            last_fetched_at=now,
            last_status=status,
            consecutive_failures=F("consecutive_failures") + 1,
            last_error_kind=error.kind,
            last_error_detail=error.detail[:500],
            items_last_run=0,
            new_articles_last_run=0,
        )
        return SourceOutcome(source_id=source.pk, outcome="failed", error_kind=error.kind)

    result = fetched.result
    assert result is not None
    health = {
        "last_fetched_at": now,
        "last_success_at": now,
        "last_status": result.status,
        "consecutive_failures": 0,
        "last_error_kind": "",
        "last_error_detail": "",
        # A server that stops sending validators must not keep us sending stale ones.
        "etag": result.etag[:500],
        "last_modified": result.last_modified[:100],
    }
    if fetched.feed is None:
        Source.objects.filter(pk=source.pk).update(**health, items_last_run=0, new_articles_last_run=0)
        return SourceOutcome(source_id=source.pk, outcome="not_modified")

    feed = fetched.feed
    new_ids = _articles_store(source=source, feed=feed)
    if feed.recovered:
        health["last_error_detail"] = f"feed is not well-formed XML; {len(feed.entries)} entries recovered"
    if feed.title and not source.title:
        health["title"] = feed.title
    Source.objects.filter(pk=source.pk).update(
        **health, items_last_run=len(feed.entries), new_articles_last_run=len(new_ids)
    )
    return SourceOutcome(source_id=source.pk, outcome="fetched", entries=len(feed.entries), new_article_ids=new_ids)


def _articles_store(*, source: Source, feed: ParsedFeed) -> list[int]:
    """Create the entries not seen before; link known stories to this source too."""
    entries = sorted(feed.entries, key=lambda e: e.published_at.timestamp() if e.published_at else 0.0, reverse=True)[
        : settings.RESEARCH_MAX_ARTICLES_PER_FEED
    ]
    # Canonicalising re-encodes the query, which can lengthen a link past what we store.
    by_url = {url: entry for entry in entries if len(url := canonical_url(entry.url)) <= MAX_URL_CHARS}
    entry_ids = [entry.entry_id for entry in entries if entry.entry_id]
    # An entry id is only unique within its feed: a known id from this source is the same
    # story even if its link changed (new tracking parameters, moved URL).
    known_ids = set(Article.objects.filter(sources=source, entry_id__in=entry_ids).values_list("entry_id", flat=True))
    existing = dict(Article.objects.filter(canonical_url__in=by_url).values_list("canonical_url", "pk"))
    new_articles = [
        Article(
            source=source,
            canonical_url=url,
            entry_id=entry.entry_id,
            title=entry.title,
            summary=entry.summary,
            author=entry.author,
            published_at=entry.published_at,
        )
        for url, entry in by_url.items()
        if url not in existing and not (entry.entry_id and entry.entry_id in known_ids)
    ]
    # ignore_conflicts: another worker may store the same story at the same moment.
    Article.objects.bulk_create(new_articles, ignore_conflicts=True)
    stored = dict(
        Article.objects.filter(canonical_url__in=[a.canonical_url for a in new_articles]).values_list(
            "canonical_url", "pk"
        )
    )
    new_ids = [stored[a.canonical_url] for a in new_articles if a.canonical_url in stored]
    Article.sources.through.objects.bulk_create(
        [
            Article.sources.through(article_id=article_id, source_id=source.pk)
            for article_id in [*new_ids, *existing.values()]
        ],
        ignore_conflicts=True,
    )
    return new_ids


# --- Extraction ------------------------------------------------------------------------


def articles_extract_pending() -> dict[str, int]:
    """Fetch and extract articles still pending (new ones, or left over by a failed run)."""
    pending = Article.objects.filter(extraction_status=Article.Extraction.PENDING).order_by("created_at")
    return articles_extract(articles=pending[:EXTRACT_BATCH])


def articles_extract(*, articles: Iterable[Article]) -> dict[str, int]:
    """Fetch the pages in parallel; extract each one on this thread as it arrives, and
    store the outcomes in small batches (one round trip per batch, not per article)."""
    articles = list(articles)
    counts = Counter[str]()
    since = timezone.now() - NEAR_DUPLICATE_WINDOW
    known = FingerprintIndex(
        Article.objects.filter(
            extraction_status=Article.Extraction.OK,
            duplicate_of__isnull=True,
            fingerprint__isnull=False,
            created_at__gte=since,
        ).values_list("pk", "fingerprint")
    )
    sources_of: dict[int, list[int]] = {}
    links = Article.sources.through.objects.filter(article_id__in=[a.pk for a in articles])
    for article_id, source_id in links.values_list("article_id", "source_id"):
        sources_of.setdefault(article_id, []).append(source_id)
    done: list[Article] = []
    for article, page in _in_threads(_page_fetch, articles):
        try:
            article_apply_extraction(article=article, page=page, known_fingerprints=known)
        except Exception:
            # One page that trips a bug must not stop the run (and its ResearchRuns).
            logger.exception("unexpected error extracting article %s", article.pk)
            internal = FetchError(ErrorKind.INTERNAL, "unexpected error while extracting")
            article_apply_extraction(article=article, page=internal, known_fingerprints=known)
        counts[article.extraction_status] += 1
        counts["duplicates"] += 1 if article.duplicate_of_id else 0
        done.append(article)
        if len(done) >= WRITE_BATCH:
            _articles_save(done, sources_of=sources_of)
            done = []
    _articles_save(done, sources_of=sources_of)
    if not counts["duplicates"]:
        del counts["duplicates"]
    return dict(counts)


def _page_fetch(article: Article) -> tuple[Article, FetchResult | FetchError]:
    # Runs in a worker thread: network only, no database.
    try:
        return article, fetch_url(article.canonical_url, purpose=Purpose.PAGE)
    except FetchError as exc:
        return article, exc
    except Exception:
        logger.exception("unexpected error fetching article %s", article.pk)
        return article, FetchError(ErrorKind.INTERNAL, "unexpected error while fetching")


def article_apply_extraction(
    *, article: Article, page: FetchResult | FetchError, known_fingerprints: FingerprintIndex
) -> Article:
    """Set what extraction made of one fetched page on the article (not saved), and mark it
    a duplicate if it is one.

    ``known_fingerprints`` indexes recent usable stories; a new usable story is added so
    the rest of the batch is compared with it too.
    """
    article.fetched_at = timezone.now()
    if isinstance(page, FetchError):
        blocked = page.kind == ErrorKind.BLOCKED
        article.extraction_status = Article.Extraction.BLOCKED if blocked else Article.Extraction.FAILED
        article.extraction_error = f"{page.kind}: {page.detail}"[:500]
        return article

    extraction = article_extract_bytes(page.body, url=page.url)
    article.extraction_status = extraction.status
    article.extraction_error = extraction.error[:500]
    article.text = extraction.text
    article.title = article.title or extraction.title
    article.author = article.author or extraction.author
    article.published_at = article.published_at or extraction.published_at
    article.lead_image_url = extraction.lead_image_url
    article.fingerprint = fingerprint(extraction.text) if extraction.status == Article.Extraction.OK else None
    article.duplicate_of_id = _original_of(article, final_url=page.url, known_fingerprints=known_fingerprints)
    if article.duplicate_of_id is None and article.fingerprint is not None:
        known_fingerprints.add(article.pk, article.fingerprint)
    return article


_EXTRACTION_FIELDS = [
    "fetched_at",
    "extraction_status",
    "extraction_error",
    "text",
    "title",
    "author",
    "published_at",
    "lead_image_url",
    "fingerprint",
    "duplicate_of_id",
]


@transaction.atomic
def _articles_save(articles: list[Article], *, sources_of: dict[int, list[int]]) -> None:
    if not articles:
        return
    # One prepared UPDATE sent with executemany: bulk_update's CASE/WHEN over ten columns,
    # or one ORM update per row, cost more Python time than extraction can spare (see
    # docs/BENCHMARKS.md). Values go through each field's own preparation for this database.
    fields = [Article._meta.get_field(name) for name in _EXTRACTION_FIELDS]
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    sql = f"UPDATE {quote(Article._meta.db_table)} SET {assignments} WHERE {quote('id')} = %s"  # noqa: S608 - names from the model, values are parameters
    rows = [
        [field.get_db_prep_save(getattr(article, field.attname), connection) for field in fields] + [article.pk]
        for article in articles
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)
    # One story, many sources: whoever subscribes to a duplicate's outlet reaches the original.
    Article.sources.through.objects.bulk_create(
        [
            Article.sources.through(article_id=article.duplicate_of_id, source_id=source_id)
            for article in articles
            if article.duplicate_of_id
            for source_id in sources_of.get(article.pk, [])
        ],
        ignore_conflicts=True,
    )


def _original_of(article: Article, *, final_url: str, known_fingerprints: FingerprintIndex) -> int | None:
    final = canonical_url(final_url)
    if final != article.canonical_url:
        # The feed's link redirected to a page we already have under its own URL.
        original = Article.objects.filter(canonical_url=final).exclude(pk=article.pk).values_list("pk", flat=True)
        if original:
            return original[0]
    if article.fingerprint is None:
        return None
    return known_fingerprints.find(article.fingerprint, exclude=article.pk)


def _in_threads[T, R](work: Callable[[T], R], items: list[T], *, ahead: int | None = None) -> Iterator[R]:
    """Results of ``work`` over ``items`` in completion order, FETCH_WORKERS at a time.

    At most ``ahead`` items are submitted and not yet handed to the caller, so fetched
    pages wait in memory for extraction in a bounded queue: a 500-page batch of 3 MiB
    pages must not be held all at once when extraction is slower than the network.
    """
    if not items:
        return
    ahead = ahead or FETCH_WORKERS * 2
    remaining = iter(items)
    with ThreadPoolExecutor(max_workers=min(FETCH_WORKERS, len(items)), thread_name_prefix="research") as pool:
        running = {pool.submit(work, item) for item in islice(remaining, ahead)}
        while running:
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                # Refill before handing the result over, so the network stays busy while
                # the caller extracts.
                for item in islice(remaining, 1):
                    running.add(pool.submit(work, item))
                yield future.result()
