"""Research writes: subscribing to sources, the research run, extraction and dedupe.

The network work (feed and page fetches, feed parsing) runs in a small thread pool and
never touches the database; every write happens on the calling thread, so a task holds
exactly one database connection.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import islice

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Field
from django.utils import timezone

from accounts.models import Account
from research import industries
from research.dedupe import canonical_url, fingerprint
from research.errors import FeedParseError, FetchError, InvalidSourceUrl, SourceLimitReached
from research.extract import article_extract_bytes
from research.feeds import MAX_URL_CHARS, ParsedFeed, feed_parse, opml_parse
from research.fetch import FetchResult, Purpose, fetch_url, parse_target
from research.models import Article, Delivery, ErrorKind, ResearchRun, Source, Subscription
from research.selectors import usable_article_counts

logger = logging.getLogger(__name__)

# Feeds and pages in flight at once per run; per-host politeness still applies inside.
FETCH_WORKERS = 8
# Articles extracted per call of articles_extract_pending (the next tick takes the rest).
EXTRACT_BATCH = 500
MAX_EXTRACT_BATCHES_PER_RUN = 20
# Extraction outcomes written per round trip.
WRITE_BATCH = 25


# --- Subscriptions ---------------------------------------------------------------------


@transaction.atomic
def source_subscribe(*, account: Account, url: str, title: str = "") -> Source:
    """Subscribe the account to a feed URL (http/https only), creating the Source once.

    ``title`` is this account's own name for the feed; a new one replaces the old, an
    empty one keeps it. The shared Source only ever takes the feed's own title.
    """
    url = url.strip()
    try:
        parse_target(url)
    except FetchError as exc:
        raise InvalidSourceUrl(exc.detail) from exc
    title = title.strip()[:300]
    existing = Subscription.objects.filter(account=account, source__url=url).first()
    if existing is None:
        # Locking the account row makes concurrent subscribes count one after another.
        Account.objects.select_for_update().filter(pk=account.pk).first()
        limit = settings.RESEARCH_MAX_SOURCES_PER_ACCOUNT
        if Subscription.objects.filter(account=account).count() >= limit:
            raise SourceLimitReached(
                f"this account already follows {limit} sources, the most one account may; unsubscribe from one first"
            )
    source, _created = Source.objects.get_or_create(url=url)
    subscription, created = Subscription.objects.get_or_create(
        account=account, source=source, defaults={"title": title}
    )
    if not created and title and subscription.title != title:
        Subscription.objects.filter(pk=subscription.pk).update(title=title)
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
        except (InvalidSourceUrl, SourceLimitReached) as exc:
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


# --- The night, fanned out --------------------------------------------------------------
#
# The cron job starts the night with ``research_night_dispatch``: one unfinished ResearchRun
# per account, then one task per subscribed feed (``research.source_research``), each with
# its own time limits, fetching that feed and extracting the pages it brought. A tarpit
# feed holds one task (and so one worker slot) for at most its own limit; every other
# feed's task runs beside it. An account's run is finished as soon as each of its feeds
# is recorded and its new pages extracted. At the night's deadline ``research_runs_finish_overdue``
# queues once more the feeds no task read (a worker killed holding them), and at twice the
# deadline closes what is still open, counting a feed not read by then as a timeout. With
# eager tasks (the embedded default) the same calls run inline, one feed after another.


def research_night_dispatch() -> dict[str, int]:
    """Open this night's ResearchRuns and queue one bounded task per subscribed feed."""
    # Imported here: the tasks module imports this one (a real cycle).
    from research import tasks

    # A run left open by an earlier night (a lost task) is closed with what it has.
    research_runs_finish(force=True)
    accounts = list(Account.objects.filter(paused=False).order_by("pk"))
    started = timezone.now()
    budgeted = _sources_within_budget(account_ids=[account.pk for account in accounts])
    source_ids = sorted({source_id for affordable, _skipped in budgeted.values() for source_id in affordable})
    runs = ResearchRun.objects.bulk_create(
        [
            ResearchRun(
                account=account,
                skipped_source_ids=sorted(set(budgeted.get(account.pk, ([], []))[1]) - set(source_ids)),
            )
            for account in accounts
        ],
        batch_size=1000,
    )
    ResearchRun.objects.filter(pk__in=[run.pk for run in runs]).update(started_at=started)
    # A feed that waits has its cost halved, so it is tried again within a few nights (and
    # measured afresh) rather than waiting forever on one bad night's figure.
    waiting = {source_id for run in runs for source_id in run.skipped_source_ids}
    Source.objects.filter(pk__in=waiting).update(fetch_seconds_last_run=F("fetch_seconds_last_run") / 2)

    def enqueue() -> None:
        for source_id in source_ids:
            tasks.source_research_task.delay(source_id)
        # The night's deadline: feeds never read by then are queued again, the rest closed
        # (``research_runs_finish_overdue``).
        tasks.research_runs_finish_overdue_task.apply_async(countdown=settings.RESEARCH_NIGHT_DEADLINE_S)

    # Queued once the runs are committed, so a fast worker finds them.
    transaction.on_commit(enqueue)
    # Accounts that follow nothing are finished (and starved) at once.
    finished = research_runs_finish()
    return {
        "accounts": len(accounts),
        "sources": len(source_ids),
        "runs_finished_at_once": finished,
        "feeds_over_budget": sum(1 for run in runs if run.skipped_source_ids),
    }


def _sources_within_budget(*, account_ids: list[int]) -> dict[int, tuple[list[int], list[int]]]:
    """Per account, the feeds its nightly fetch budget affords and the ones it does not.

    Each feed costs what its task took last night; an account's feeds are taken cheapest
    first until RESEARCH_ACCOUNT_FETCH_SECONDS_PER_NIGHT is spent, so a customer's slow or
    hostile feeds use up that customer's budget, and its quick feeds are still read. A feed
    is read if any subscriber affords it (its cost is then already paid).
    """
    budget = float(settings.RESEARCH_ACCOUNT_FETCH_SECONDS_PER_NIGHT)
    rows = (
        Subscription.objects.filter(account_id__in=account_ids)
        .order_by("account_id", "source__fetch_seconds_last_run", "source_id")
        .values_list("account_id", "source_id", "source__fetch_seconds_last_run")
    )
    plans: dict[int, tuple[list[int], list[int]]] = {}
    spent: dict[int, float] = {}
    for account_id, source_id, cost in rows:
        affordable, skipped = plans.setdefault(account_id, ([], []))
        # The first feed is always read: a budget never leaves an account with nothing.
        if affordable and spent.get(account_id, 0.0) + cost > budget:
            skipped.append(source_id)
            continue
        spent[account_id] = spent.get(account_id, 0.0) + cost
        affordable.append(source_id)
    return plans


def source_research(*, source_id: int) -> SourceOutcome | None:
    """Read one feed and extract the pages it brought, then finish the runs it completes."""
    source = Source.objects.filter(pk=source_id).first()
    if source is None:
        return None  # unsubscribed and deleted since the night was dispatched
    touched = {source_id}
    began = time.monotonic()
    try:
        (outcome,) = sources_fetch(sources=[source])
        # Other feeds may list the pages this one brought: their subscribers' runs wait for
        # these pages too.
        touched.update(
            Delivery.objects.filter(article_id__in=outcome.new_article_ids).values_list("source_id", flat=True)
        )
        for start in range(0, len(outcome.new_article_ids), EXTRACT_BATCH):
            batch = Article.objects.filter(
                pk__in=outcome.new_article_ids[start : start + EXTRACT_BATCH],
                extraction_status=Article.Extraction.PENDING,
            )
            articles_extract(articles=batch.order_by("pk"))
    finally:
        Source.objects.filter(pk=source_id).update(fetch_seconds_last_run=round(time.monotonic() - began, 3))
        # Even a task stopped by its time limit lets its accounts' runs finish; pages it
        # left pending are taken by the extraction sweep.
        research_runs_finish(source_ids=sorted(touched))
    return outcome


def research_runs_finish(
    *,
    source_ids: list[int] | None = None,
    force: bool = False,
    started_before: datetime | None = None,
    run_ids: list[int] | None = None,
) -> int:
    """Finish the open ResearchRuns whose feeds are all read and extracted (only those of
    subscribers to ``source_ids`` when given); with ``force``, every open run as it stands
    (only those started at or before ``started_before``, or among ``run_ids``, when given)."""
    now = timezone.now()
    with transaction.atomic():
        open_runs = ResearchRun.objects.filter(finished_at__isnull=True)
        if run_ids is not None:
            open_runs = open_runs.filter(pk__in=run_ids)
        if started_before is not None:
            open_runs = open_runs.filter(started_at__lte=started_before)
        if source_ids is not None:
            open_runs = open_runs.filter(
                account_id__in=Subscription.objects.filter(source_id__in=source_ids).values("account_id")
            )
        # Two feeds of one account finishing at once: the second waits for the first's lock
        # and then reads what the first committed, so whichever finishes last sees every feed
        # read and closes the run. (Skipping locked runs let both decide "not yet": the run
        # stayed open until the night's deadline.) Locks are taken in pk order: no deadlock.
        runs = list(open_runs.select_for_update(of=("self",)).order_by("pk"))
        if not runs:
            return 0
        account_ids = [run.account_id for run in runs]
        subscribed: dict[int, list[int]] = {}
        for account_id, sid in Subscription.objects.filter(account_id__in=account_ids).values_list(
            "account_id", "source_id"
        ):
            subscribed.setdefault(account_id, []).append(sid)
        sources = Source.objects.in_bulk({sid for ids in subscribed.values() for sid in ids})
        done = []
        for run in runs:
            skipped = set(run.skipped_source_ids)
            mine = [sources[sid] for sid in subscribed.get(run.account_id, []) if sid in sources and sid not in skipped]
            read = [s for s in mine if s.last_fetched_at and s.last_fetched_at >= run.started_at]
            pending = Article.objects.filter(
                deliveries__source__in=mine,
                created_at__gte=run.started_at,
                extraction_status=Article.Extraction.PENDING,
            )
            if not force and (len(read) < len(mine) or pending.exists()):
                continue
            failed = [s for s in read if s.last_error_kind]
            error_kinds = Counter(s.last_error_kind for s in failed)
            # A feed still unread at the deadline cost its subscribers this night: a timeout.
            unread = len(mine) - len(read)
            if unread:
                error_kinds[ErrorKind.TIMEOUT] += unread
            if skipped:
                error_kinds["over_budget"] += len(skipped)
            run.feeds_subscribed = len(mine) + len(skipped)
            run.feeds_failed = len(failed) + unread + len(skipped)
            run.feeds_not_modified = sum(1 for s in read if not s.last_error_kind and s.last_status == 304)
            run.feeds_fetched = len(read) - len(failed) - run.feeds_not_modified
            run.error_kinds = dict(error_kinds)
            run.new_articles = Article.objects.filter(source__in=mine, created_at__gte=run.started_at).count()
            run.finished_at = now
            done.append(run)
        usable_by_start: dict[datetime, list[ResearchRun]] = {}
        for run in done:
            usable_by_start.setdefault(run.started_at, []).append(run)
        for started, group in usable_by_start.items():
            usable = usable_article_counts(account_ids=[run.account_id for run in group], since=started)
            for run in group:
                run.usable_articles = usable.get(run.account_id, 0)
        fields = [
            "feeds_subscribed",
            "feeds_failed",
            "feeds_not_modified",
            "feeds_fetched",
            "error_kinds",
            "new_articles",
            "usable_articles",
            "finished_at",
        ]
        ResearchRun.objects.bulk_update(done, fields, batch_size=500)
    return len(done)


def _research_run(accounts: list[Account]) -> tuple[list[ResearchRun], dict[str, int]]:
    started = timezone.now()
    subscriptions = list(
        Subscription.objects.filter(account__in=accounts).values_list("account_id", "source_id").order_by("pk")
    )
    source_ids = sorted({source_id for _, source_id in subscriptions})
    sources = list(Source.objects.filter(pk__in=source_ids))

    outcomes = {outcome.source_id: outcome for outcome in sources_fetch(sources=sources)}
    extracted = Counter[str]()
    pending = Article.objects.filter(deliveries__source__in=source_ids, extraction_status=Article.Extraction.PENDING)
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
    usable = usable_article_counts(account_ids=[account.pk for account in accounts], since=started)
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
    if feed.title:
        # The feed's own name, refreshed each read; subscribers' names are their own.
        health["title"] = feed.title[:300]
    Source.objects.filter(pk=source.pk).update(
        **health, items_last_run=len(feed.entries), new_articles_last_run=len(new_ids)
    )
    return SourceOutcome(source_id=source.pk, outcome="fetched", entries=len(feed.entries), new_article_ids=new_ids)


def _articles_store(*, source: Source, feed: ParsedFeed) -> list[int]:
    """Create the story pages not seen before and this feed's delivery of each entry.

    What the feed says about an entry (title, summary, author, link, date) is stored on
    this source's delivery only: the shared article takes nothing from any feed.
    """
    entries = sorted(feed.entries, key=lambda e: e.published_at.timestamp() if e.published_at else 0.0, reverse=True)[
        : settings.RESEARCH_MAX_ARTICLES_PER_FEED
    ]
    # Canonicalising re-encodes the query, which can lengthen a link past what we store.
    by_url = {url: entry for entry in entries if len(url := canonical_url(entry.url)) <= MAX_URL_CHARS}
    entry_ids = [entry.entry_id for entry in entries if entry.entry_id]
    # An entry id is only unique within its feed: a known id from this source is the same
    # story even if its link changed (new tracking parameters, moved URL).
    known_ids = set(Delivery.objects.filter(source=source, entry_id__in=entry_ids).values_list("entry_id", flat=True))
    by_url = {url: entry for url, entry in by_url.items() if not (entry.entry_id and entry.entry_id in known_ids)}
    existing = dict(Article.objects.filter(canonical_url__in=by_url).values_list("canonical_url", "pk"))
    new_articles = [Article(source=source, canonical_url=url) for url in by_url if url not in existing]
    # ignore_conflicts: another worker may store the same story at the same moment.
    Article.objects.bulk_create(new_articles, ignore_conflicts=True)
    stored = dict(Article.objects.filter(canonical_url__in=by_url).values_list("canonical_url", "pk"))
    Delivery.objects.bulk_create(
        [
            Delivery(
                source=source,
                article_id=stored[url],
                entry_id=entry.entry_id,
                title=entry.title,
                summary=entry.summary,
                author=entry.author,
                link=entry.url if len(entry.url) <= MAX_URL_CHARS else "",
                published_at=entry.published_at,
            )
            for url, entry in by_url.items()
            if url in stored
        ],
        ignore_conflicts=True,
    )
    return [stored[a.canonical_url] for a in new_articles if a.canonical_url in stored]


# --- Extraction ------------------------------------------------------------------------


def articles_extract_pending() -> dict[str, int]:
    """Fetch and extract articles still pending (new ones, or left over by a failed run),
    then close the research runs past the night's deadline (``research_runs_finish_overdue``)."""
    pending = Article.objects.filter(extraction_status=Article.Extraction.PENDING).order_by("created_at")
    counts = articles_extract(articles=pending[:EXTRACT_BATCH])
    counts["research_runs_closed_overdue"] = research_runs_finish_overdue()
    return counts


def research_runs_finish_overdue() -> int:
    """At the night's deadline, queue again the feeds no task ever read; close the runs
    that have nothing left to wait for, and at the hard deadline (twice the night's) every
    run as it stands. Returns the runs closed.

    A worker SIGKILLed while it holds feed tasks (acks late) takes them along: the broker
    hands them back only after its visibility timeout (an hour), long after the night's
    deadline, and the deadline closed those accounts' runs empty (the fault night: their
    ``research_starved`` alarm opened and stayed open). So the deadline re-dispatches each
    open run's unread feeds, once per run, and lets the re-run tasks finish the run as
    usual (``source_research``). Fetching a feed twice is harmless: a story page is one
    Article per canonical URL and a delivery one row per (source, article) (unique
    constraints, ``ignore_conflicts``), and a feed's task that comes back from the broker
    an hour later finds its entries known and the runs closed.

    A shorter broker visibility timeout for research tasks instead was rejected: it is one
    setting for the whole transport, so every countdown message (this deadline's own, the
    publishing retries) and every task running longer than it would be delivered again
    while its first delivery still holds it.

    Called by the deadline's countdown message (``research.runs_finish_overdue``) and by
    the extraction sweep (every 15 minutes), which covers a deadline message lost with a
    killed worker.
    """
    # Imported here: the tasks module imports this one (a real cycle).
    from research import tasks

    now = timezone.now()
    deadline_s = settings.RESEARCH_NIGHT_DEADLINE_S
    closed = research_runs_finish(force=True, started_before=now - timedelta(seconds=2 * deadline_s))
    with transaction.atomic():
        overdue = list(
            ResearchRun.objects.filter(
                finished_at__isnull=True,
                feeds_redispatched_at__isnull=True,
                started_at__lte=now - timedelta(seconds=deadline_s),
            )
            .select_for_update(of=("self",), skip_locked=True)
            .order_by("pk")
        )
        unread = _runs_unread_source_ids(overdue)
        redispatch = [run for run in overdue if unread.get(run.pk)]
        source_ids = sorted({sid for run in redispatch for sid in unread[run.pk]})
        ResearchRun.objects.filter(pk__in=[run.pk for run in redispatch]).update(feeds_redispatched_at=now)
        if source_ids:
            logger.warning(
                "research deadline: %d feeds of %d runs never read, queued again", len(source_ids), len(redispatch)
            )

            def enqueue() -> None:
                for source_id in source_ids:
                    tasks.source_research_task.delay(source_id)
                # The hard deadline: whatever the second try did not finish is closed then.
                tasks.research_runs_finish_overdue_task.apply_async(countdown=deadline_s)

            transaction.on_commit(enqueue)
    # Runs past the deadline with every feed read (pages left pending are the extraction
    # sweep's): nothing to wait for.
    waiting = [run.pk for run in overdue if run.pk not in {r.pk for r in redispatch}]
    if waiting:
        closed += research_runs_finish(force=True, run_ids=waiting)
    return closed


def _runs_unread_source_ids(runs: list[ResearchRun]) -> dict[int, list[int]]:
    """Per run, the subscribed feeds (within its budget) not read since it started."""
    if not runs:
        return {}
    subscribed: dict[int, list[int]] = {}
    for account_id, sid in Subscription.objects.filter(account_id__in=[run.account_id for run in runs]).values_list(
        "account_id", "source_id"
    ):
        subscribed.setdefault(account_id, []).append(sid)
    fetched_at = dict(
        Source.objects.filter(pk__in={sid for ids in subscribed.values() for sid in ids}).values_list(
            "pk", "last_fetched_at"
        )
    )
    unread: dict[int, list[int]] = {}
    for run in runs:
        skipped = set(run.skipped_source_ids)
        unread[run.pk] = [
            sid
            for sid in subscribed.get(run.account_id, [])
            if sid in fetched_at and sid not in skipped and ((last := fetched_at[sid]) is None or last < run.started_at)
        ]
    return unread


def articles_extract(*, articles: Iterable[Article]) -> dict[str, int]:
    """Fetch the pages in parallel; extract each one on this thread as it arrives, and
    store the outcomes in small batches (one round trip per batch, not per article)."""
    articles = list(articles)
    counts = Counter[str]()
    done: list[Article] = []
    for article, page in _in_threads(_page_fetch, articles):
        try:
            article_apply_extraction(article=article, page=page)
        except Exception:
            # One page that trips a bug must not stop the run (and its ResearchRuns).
            logger.exception("unexpected error extracting article %s", article.pk)
            internal = FetchError(ErrorKind.INTERNAL, "unexpected error while extracting")
            article_apply_extraction(article=article, page=internal)
        counts[article.extraction_status] += 1
        done.append(article)
        if len(done) >= WRITE_BATCH:
            _articles_save(done)
            done = []
    _articles_save(done)
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


def article_apply_extraction(*, article: Article, page: FetchResult | FetchError) -> Article:
    """Set what extraction made of one fetched page on the article (not saved).

    Near-duplicates are not linked here: which copy of a story an account drafts from is
    decided among the pages its own feeds delivered (``articles_usable_for_account``).
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
    # The page's own words only: a feed's title for it is that feed's delivery.
    article.title = extraction.title
    article.author = extraction.author
    article.published_at = extraction.published_at
    article.lead_image_url = extraction.lead_image_url
    article.fingerprint = fingerprint(extraction.text) if extraction.status == Article.Extraction.OK else None
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
]


def _extraction_columns() -> list[tuple[Field, str]]:
    """Each extraction field with its column: all are plain columns of Article (never a relation)."""
    columns = []
    for name in _EXTRACTION_FIELDS:
        field = Article._meta.get_field(name)
        if not isinstance(field, Field) or not field.column:
            raise TypeError(f"Article.{name} is not a column")
        columns.append((field, field.column))
    return columns


@transaction.atomic
def _articles_save(articles: list[Article]) -> None:
    if not articles:
        return
    # One prepared UPDATE sent with executemany: bulk_update's CASE/WHEN over ten columns,
    # or one ORM update per row, cost more Python time than extraction can spare (see
    # docs/BENCHMARKS.md). Values go through each field's own preparation for this database.
    columns = _extraction_columns()
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(column)} = %s" for _, column in columns)
    sql = f"UPDATE {quote(Article._meta.db_table)} SET {assignments} WHERE {quote('id')} = %s"  # noqa: S608 - names from the model, values are parameters
    rows = [
        [field.get_db_prep_save(getattr(article, field.attname), connection) for field, _ in columns] + [article.pk]
        for article in articles
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)


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


def articles_meaning_store(*, meanings: dict[int, bytes]) -> None:
    """Store the composer's sentence vectors on the articles (``Article.meaning``): the first
    account to rank an article pays for embedding it, every later one reads them. Written as
    given, whatever was there: the bytes carry a digest of the text they were computed from."""
    Article.objects.bulk_update([Article(pk=pk, meaning=meaning) for pk, meaning in meanings.items()], ["meaning"])
