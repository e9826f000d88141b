"""Benchmark the research stage against bare trafilatura in the same process.

    make bench-research                      # 200 feeds x 5 pages, 1,000 accounts x 10 feeds
    .venv/bin/python scripts/bench_research.py --feeds 50 --pages 4 --accounts 200

Serves N feeds x M article pages (the twelve real pages in demo/articles, reused) from a
local StaticSiteServer, subscribes A accounts to F feeds each (10 by default: the issue's
"10,000 subscriptions, 200 fetches"), runs research_run_all()
(fetch, parse, store, fetch pages, extract, fingerprint, dedupe, one ResearchRun per
account) on a throwaway database, then runs bare ``trafilatura.extract`` with the same
options over the same page bytes. Prints articles per second for both, their ratio, and
how many feed fetches the server saw (one per unique feed, however many subscribers).
The database is DATABASE_URL's test database (created and dropped here); with no
DATABASE_URL it is an in-memory SQLite database.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import multiprocessing.synchronize
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "1")
os.environ.setdefault("LANDED_VAR_DIR", str(ROOT / "var" / "bench"))
os.environ.pop("CELERY_BROKER_URL", None)
# Keep request logging out of the measurement.
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402 - the environment above must be set first

django.setup()

import trafilatura  # noqa: E402
from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

from devkit.devserver import StaticSiteServer  # noqa: E402
from posting.models import Account  # noqa: E402
from research import services  # noqa: E402
from research.models import Article, ResearchRun, Source, Subscription  # noqa: E402

PAGES = sorted((ROOT / "demo" / "articles").glob("*.html"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--feeds", type=int, default=200)
    parser.add_argument("--pages", type=int, default=5, help="article pages per feed")
    parser.add_argument("--accounts", type=int, default=1000)
    parser.add_argument("--feeds-per-account", type=int, default=10)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        report = bench(
            feeds=args.feeds, pages=args.pages, accounts=args.accounts, feeds_per_account=args.feeds_per_account
        )
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    if args.json:
        print(json.dumps(report))
        return
    print(f"feeds x pages        : {report['feeds']} x {report['pages_per_feed']} = {report['articles']} articles")
    print(f"accounts             : {report['accounts']} ({report['subscriptions']} subscriptions)")
    print(f"feed fetches         : {report['feed_fetches']} (one per unique feed)")
    print(f"page fetches         : {report['page_fetches']}")
    print(f"research stage       : {report['stage_s']:.2f} s, {report['stage_articles_per_s']:.1f} articles/s")
    print(
        f"bare trafilatura     : {report['bare_s']:.2f} s, {report['bare_articles_per_s']:.1f} articles/s"
        f" (mean of {report['bare_before_s']:.2f} s before and {report['bare_after_s']:.2f} s after)"
    )
    print(f"ratio stage / bare   : {report['ratio']:.2f} wall clock (target >= 0.8)")
    print(
        f"CPU-time ratio       : {report['cpu_ratio']:.2f} "
        f"(stage {report['stage_cpu_s']:.2f} s, bare {report['bare_cpu_s']:.2f} s of this process's CPU)"
    )


def bench(*, feeds: int, pages: int, accounts: int, feeds_per_account: int) -> dict[str, float | int]:
    # The site runs in its own process: it stands for the internet, and its request
    # handling must not compete for this process's GIL with the stage being measured.
    ready: multiprocessing.Queue[str] = multiprocessing.Queue()
    hits: multiprocessing.Queue[list[str]] = multiprocessing.Queue()
    stop = multiprocessing.Event()
    site = multiprocessing.Process(target=_serve_site, args=(feeds, pages, ready, hits, stop), daemon=True)
    site.start()
    base = ready.get(timeout=60)
    port = int(base.rsplit(":", 1)[1])
    bodies = [page.read_bytes() for page in PAGES]
    page_bodies = {
        f"{base}/p/{feed}/{item}.html": _page_body(bodies, feed, item, pages)
        for feed in range(feeds)
        for item in range(pages)
    }

    settings.RESEARCH_ALLOW_HOSTS = [f"127.0.0.1:{port}"]
    settings.RESEARCH_HOST_DELAY_S = 0.0
    # Every bench feed lives on one local host; in production they are spread over many.
    settings.RESEARCH_HOST_CONCURRENCY = services.FETCH_WORKERS
    settings.RESEARCH_MAX_ARTICLES_PER_FEED = pages

    sources = Source.objects.bulk_create([Source(url=f"{base}/feeds/{feed}.rss") for feed in range(feeds)])
    account_rows = Account.objects.bulk_create([Account(name=f"Bench {n}", slug=f"bench-{n}") for n in range(accounts)])
    subscriptions = Subscription.objects.bulk_create(
        [
            Subscription(account=account, source=sources[(n + k) % feeds])
            for n, account in enumerate(account_rows)
            for k in range(min(feeds_per_account, feeds))
        ]
    )

    # Warm both paths up (imports, lxml and trafilatura caches) outside the timings.
    for body in bodies:
        _extract(body, "https://warmup.example/")

    # Bare extraction runs before and after the stage; the mean of the two cancels most of
    # the drift of a shared, noisy machine.
    bare_before_s, bare_before_cpu = _bare(page_bodies)
    started, started_cpu = time.perf_counter(), time.process_time()
    counts = services.research_run_all()
    stage_s, stage_cpu = time.perf_counter() - started, time.process_time() - started_cpu
    extracted = Article.objects.exclude(extraction_status=Article.Extraction.PENDING).count()
    stop.set()
    requests = hits.get(timeout=60)
    site.join(timeout=10)
    feed_fetches = sum(1 for path in requests if path.startswith("/feeds/"))
    page_fetches = sum(1 for path in requests if path.startswith("/p/"))

    bare_after_s, bare_after_cpu = _bare(page_bodies)
    bare_s = (bare_before_s + bare_after_s) / 2
    bare_cpu = (bare_before_cpu + bare_after_cpu) / 2

    stage_rate = extracted / stage_s
    bare_rate = len(page_bodies) / bare_s
    return {
        "feeds": feeds,
        "pages_per_feed": pages,
        "articles": extracted,
        "accounts": accounts,
        "subscriptions": len(subscriptions),
        "research_runs": ResearchRun.objects.count(),
        "feed_fetches": feed_fetches,
        "page_fetches": page_fetches,
        "stage_s": round(stage_s, 3),
        "bare_s": round(bare_s, 3),
        "bare_before_s": round(bare_before_s, 3),
        "bare_after_s": round(bare_after_s, 3),
        "stage_articles_per_s": round(stage_rate, 1),
        "bare_articles_per_s": round(bare_rate, 1),
        "ratio": round(stage_rate / bare_rate, 3),
        # CPU time of this process (all its threads): what a shared machine's load cannot skew.
        "stage_cpu_s": round(stage_cpu, 3),
        "bare_cpu_s": round(bare_cpu, 3),
        "cpu_ratio": round((extracted / stage_cpu) / (len(page_bodies) / bare_cpu), 3),
        "articles_ok": counts.get("articles_ok", 0),
    }


def _bare(page_bodies: dict[str, bytes]) -> tuple[float, float]:
    started, started_cpu = time.perf_counter(), time.process_time()
    for url, body in page_bodies.items():
        _extract(body, url)
    return time.perf_counter() - started, time.process_time() - started_cpu


def _page_body(bodies: list[bytes], feed: int, item: int, pages: int) -> bytes:
    return bodies[(feed * pages + item) % len(bodies)]


def _serve_site(
    feeds: int,
    pages: int,
    ready: multiprocessing.Queue[str],
    hits: multiprocessing.Queue[list[str]],
    stop: multiprocessing.synchronize.Event,
) -> None:
    bodies = [page.read_bytes() for page in PAGES]
    server = StaticSiteServer({}).start()
    base = server.base_url
    for feed in range(feeds):
        items = []
        for item in range(pages):
            path = f"/p/{feed}/{item}.html"
            server.set(path, _page_body(bodies, feed, item, pages), "text/html; charset=utf-8")
            items.append(
                f"<item><title>Story {feed}-{item}</title><link>{base}{path}</link>"
                f"<guid>bench:{feed}:{item}</guid><pubDate>Mon, 01 Jun 2026 {item % 24:02d}:00:00 GMT</pubDate></item>"
            )
        feed_xml = (
            f'<?xml version="1.0"?><rss version="2.0"><channel><title>Feed {feed}</title>'
            f"<link>{base}/</link><description>bench</description>{''.join(items)}</channel></rss>"
        )
        server.set(f"/feeds/{feed}.rss", feed_xml.encode(), "application/rss+xml")
    ready.put(base)
    stop.wait()
    hits.put(list(server.requests))
    server.stop()


def _extract(body: bytes, url: str) -> str | None:
    # Bare trafilatura.extract, as the issue names the baseline. The stage calls
    # trafilatura.bare_extraction with the same options (the same extraction, without
    # serialising it to JSON): see research.extract.article_extract_bytes.
    return trafilatura.extract(
        body, url=url, favor_precision=True, with_metadata=True, include_comments=False, output_format="json"
    )


if __name__ == "__main__":
    main()
