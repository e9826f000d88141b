"""One night of Landed at scale, in the production shape, with its CPU floor measured alongside.

    make bench-night                                  # 1,000 accounts (800 paying), 200 feeds
    make bench-night BENCH_ARGS="--accounts 10 --feeds 4 --json"

What runs: PostgreSQL (a throwaway ``test_`` database next to DATABASE_URL's), Redis
(CELERY_BROKER_URL, REDIS_URL), two Celery worker processes (``scripts/bench_night_worker``:
Landed's own app plus task and query counters), the Graph sandbox in its own process with
80-250 ms latency and usage headers on every answer, and the feeds on 20 local hosts
(127.0.0.2-21) in their own process. Settings are production's (DEBUG off, generated
secrets). Accounts span ten trades; each has an owner, sandbox Facebook and Instagram
channels, a voice learned from past posts, and four feeds of its trade. Each feed lists five
articles written from templates (a story with names, places and figures to check).

The night, each stage started the way production starts it (the cron job's JobRun, as
beat or the cron route would) and timed until its work is done:
research (the fan-out per feed) -> compose (a task per account) -> gate (a task per draft)
-> approve (every paying owner taps approve: ``posting.services.draft_approve`` here, due at once, in
this process) -> publish (the tasks the approvals queued, the publish and container-poll
sweeps) -> reconcile (read back until landed). A ticker stands in for beat for the sweeps.

Then the CPU floor, in this process: bare trafilatura over every page the feeds served, and
the gate's own checks over every draft (no database, no queue); ``ratio`` = night / floor.
Ends with one JSON line (``--json``: only that line).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from functools import partial
from html import escape
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Feeds are spread over this many local hosts (127.0.0.2, ...): production's feeds live on
# many hosts, and per-host politeness is per host.
FEED_HOSTS = 20
PAGES_PER_FEED = 5
FEEDS_PER_ACCOUNT = 4
WORKER_PROCESSES = 2
WORKER_THREADS = 8
GRAPH_LATENCY_MS = (80, 250)
# How long a stage may take before the bench gives up (the fault night sets it shorter).
STAGE_TIMEOUT_S = int(os.environ.get("BENCH_NIGHT_STAGE_TIMEOUT_S", "900"))


class FAULTS:
    """``--faults``: the night as scripts/fault_night.py runs it, while it kills workers and
    restarts PostgreSQL and Redis under it. Then
    - a supervisor restarts a worker that died (as systemd or Docker's restart policy would);
    - this process's own reads, approvals and beat retry across a database or broker restart
      (a customer taps approve again; beat reconnects);
    - the recovery sweeps (extraction from the start, compose and gate from the compose stage
      on, publish and reconcile as always) run every SWEEP_EVERY_S, each tick asking
      for the job's *next* slot (job_run_request ``at`` = now + n periods): the hours of a night
      pass in seconds for the sweeps, so work a dead worker took with it is found again;
    - the Graph sandbox answers at random: 500 after creating the post, or the answer dropped
      after creating it, or (``--graph-throttle``) a throttle announcing THROTTLE_REGAIN_MINUTES
      in its usage header (one of ``RANDOM_GRAPH_FAULTS`` waiting for the next write from the
      approvals on, the next armed once a write met it, GRAPH_FAULTS_MAX met in all; each kind
      once per round, in random order);
    - the watchdog clock: the fault night (scripts/fault_night.py) scales the watchdogs' graces
      down, and this provokes each long-grace condition: ``JOB_DOWN_DRILL`` is withheld from
      the sweeps until its job_down alarm opens, research is not run again until every
      account's research_starved ("no recent run") is due, and one account follows a feed
      that answers 404 (source_failing, source_failing_for_account) until it is healed. At
      the end the feed is healed and research runs once more: every alarm must resolve.
    """

    on = False
    SWEEP_EVERY_S = 5.0
    # How often the injector looks whether the waiting fault was met (and arms the next).
    GRAPH_FAULT_EVERY_S = 2.0
    # Then the platform behaves: armed for ever, the last few posts' every retry met one.
    GRAPH_FAULTS_MAX = 6
    # --graph-throttle adds "throttle" (scripts/fault_night.py always passes it).
    RANDOM_GRAPH_FAULTS: tuple[str, ...] = ("500_after_create", "drop_after_create")
    # The regain time a throttle announces (Meta's header counts whole minutes): the product
    # pauses the channel that long (plus jitter), so a throttled post lands within the night.
    THROTTLE_REGAIN_MINUTES = 1
    THROTTLE_CODES = (4, 17, 32, 613, 80001, 80002)
    # Channel id -> whether the owner's History and the operator's console showed the pause
    # while it lasted (sampled by _watch_throttles).
    throttles_shown: dict[int, dict[str, bool]] = {}
    # The watchdog clock. How late an alarm may open after its condition became true on the
    # scaled clock: a watchdog tick (SWEEP_EVERY_S), its job queueing behind the night's tasks,
    # a worker restart or a PostgreSQL restart on a loaded machine.
    ALARM_ALLOWANCE_S = 60.0
    JOB_DOWN_DRILL = "deliver_alarm_notifications"
    withheld: set[str] = set()
    # Alarms the drills expect: kind, account, subject, and the moment each became due.
    expected_alarms: list[dict[str, Any]] = []
    heal_failing_feed: Any = None
    sweeps: set[str] = set()
    # The product's watchdogs, run on the sweeps' compressed clock from the night's start (as beat
    # would); WATCHDOG_STUCK_MINUTES is 1 in the fault night (scripts/fault_night.py), so a
    # publication a killed worker left unknown is "stuck" within the night.
    WATCHDOGS: tuple[str, ...] = ("watchdog_jobs", "watchdog_publishing", "watchdog_research")
    # How long after a publication is past the stuck threshold its alarm may take: one sweep
    # tick, the job's queueing behind the night's tasks and a worker restart on a loaded machine.
    STUCK_ALARM_GRACE_S = 60.0
    stuck_unalarmed: dict[int, float] = {}
    worker_restarts = 0
    retried = 0
    graph_faults: dict[str, int] = {}


def _db_errors() -> tuple[type[BaseException], ...]:
    import redis
    from django.db import InterfaceError, OperationalError
    from kombu.exceptions import OperationalError as KombuOperationalError

    return (InterfaceError, OperationalError, KombuOperationalError, redis.RedisError, ConnectionError)


def _retrying(action: Any, *, what: str, limit_s: float = 120.0) -> Any:
    """``action()``; with --faults, again after a database or broker error (the server is
    restarting) until it answers, up to ``limit_s``."""
    if not FAULTS.on:
        return action()
    from django.db import connection

    deadline = time.monotonic() + limit_s
    while True:
        try:
            return action()
        except _db_errors():
            connection.close()
            FAULTS.retried += 1
            if time.monotonic() > deadline:
                raise SystemExit(f"bench-night: {what} kept failing for {limit_s:.0f} s") from None
            time.sleep(0.5)


TRADES: dict[str, dict[str, Any]] = {
    "bakery": {
        "topics": ["bakery", "bread", "sourdough", "pastry", "flour"],
        "things": ["sourdough loaves", "croissants", "rye breads", "cinnamon buns", "baguettes"],
        "event": "a sourdough school",
        "body": "bakers",
    },
    "bicycle shop": {
        "topics": ["bicycle", "bike", "cycling", "cyclists", "e-bike"],
        "things": ["e-bikes", "cargo bikes", "road bikes", "bike repairs", "cycle lanes"],
        "event": "a bike repair cafe",
        "body": "cyclists",
    },
    "coffee roaster": {
        "topics": ["coffee", "espresso", "roaster", "beans", "cafe"],
        "things": ["espresso blends", "single-origin beans", "filter roasts", "cold brews", "coffee bags"],
        "event": "a cupping evening",
        "body": "roasters",
    },
    "florist": {
        "topics": ["flowers", "florist", "bouquets", "tulips", "roses"],
        "things": ["tulip bunches", "wedding bouquets", "dahlias", "rose stems", "wreaths"],
        "event": "a flower market",
        "body": "growers",
    },
    "hardware store": {
        "topics": ["hardware", "tools", "DIY", "timber", "paint"],
        "things": ["cordless drills", "paint tins", "timber boards", "garden tools", "screws"],
        "event": "a DIY workshop",
        "body": "tradespeople",
    },
    "bookshop": {
        "topics": ["books", "bookshop", "reading", "authors", "novels"],
        "things": ["paperbacks", "children's books", "signed novels", "poetry collections", "audiobooks"],
        "event": "a book festival",
        "body": "readers",
    },
    "gym": {
        "topics": ["gym", "fitness", "training", "workout", "strength"],
        "things": ["memberships", "spin classes", "strength sessions", "personal training plans", "yoga mats"],
        "event": "a fitness open day",
        "body": "members",
    },
    "dental practice": {
        "topics": ["dental", "dentist", "teeth", "oral health", "hygienist"],
        "things": ["check-ups", "hygiene appointments", "fillings", "braces", "toothbrushes"],
        "event": "a free dental check-up day",
        "body": "dentists",
    },
    "plumber": {
        "topics": ["plumbing", "plumber", "boiler", "heating", "pipes"],
        "things": ["boiler services", "heat pumps", "radiators", "leak repairs", "pipe fittings"],
        "event": "a heating efficiency fair",
        "body": "plumbers",
    },
    "pet grooming": {
        "topics": ["pets", "dog grooming", "dogs", "cats", "groomer"],
        "things": ["dog grooms", "nail trims", "puppy baths", "cat brushing sessions", "flea treatments"],
        "event": "a dog show",
        "body": "pet owners",
    },
}
TOWNS = ["Leith", "Harrogate", "Bristol", "Norwich", "Galway", "Cardiff", "Whitby", "Oban", "Bath", "Exeter"]
FIRST = ["Jane", "Tom", "Priya", "Aled", "Mairi", "Sam", "Olu", "Ines", "Karl", "Rosa", "Dev", "Nina"]
LAST = ["Smith", "Okafor", "Patel", "Jones", "Campbell", "Novak", "Reid", "Costa", "Berg", "Walsh"]
VERBS = ["opened", "launched", "expanded", "announced", "started"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]


def article_for(trade: str, feed: int, item: int) -> dict[str, str]:
    """One real-looking story for a trade: a business, a person, a town and figures to check."""
    rng = random.Random(f"{trade}/{feed}/{item}")
    spec = TRADES[trade]
    town, day = rng.choice(TOWNS), rng.choice(DAYS)
    person = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
    business = f"{rng.choice(LAST)} & {rng.choice(LAST)} {trade.title()}"
    thing, other = rng.sample(spec["things"], 2)
    verb = rng.choice(VERBS)
    staff, count, percent, year = (
        rng.randint(3, 40),
        rng.randint(120, 4000),
        rng.randint(5, 60),
        rng.randint(2019, 2025),
    )
    price = rng.randint(3, 90)
    topic = rng.choice(spec["topics"])
    title = f"{business} {verb} {spec['event']} in {town}"
    paragraphs = [
        f"{business} {verb} {spec['event']} in {town} on {day}, bringing {count} {thing} to local {spec['body']}.",
        f"The business employs {staff} people and has traded in {town} since {year}.",
        f"Owner {person} said demand for {thing} rose {percent} percent over the past year, "
        f"as more {spec['body']} looked for {topic} close to home.",
        f"The {spec['event']} runs every {day} and entry costs {price} pounds, with {other} on offer as well.",
        f"Local councillors welcomed the move, saying independent {trade} businesses keep the high street busy.",
        f"{person} said the team plans to hire {max(2, staff // 4)} more staff before the end of the year.",
        f"Figures from the regional trade body show {topic} spending in {town} grew for a third year running.",
    ]
    return {
        "title": title,
        "author": person,
        "summary": paragraphs[0],
        "paragraphs": "\n".join(f"<p>{escape(p)}</p>" for p in paragraphs),
        "slug": f"{trade.replace(' ', '-')}-{feed}-{item}",
    }


def page_html(article: dict[str, str], *, base: str, published: datetime) -> bytes:
    image = f"{base}/img/{article['slug']}.jpg"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>{escape(article["title"])}</title>
<meta property="og:title" content="{escape(article["title"])}">
<meta property="og:image" content="{image}">
<meta name="author" content="{escape(article["author"])}">
<meta property="article:published_time" content="{published.isoformat()}">
</head><body>
<header><nav><a href="/">Home</a> <a href="/news/">News</a> <a href="/about/">About</a></nav></header>
<article>
<h1>{escape(article["title"])}</h1>
<p class="byline">By {escape(article["author"])}, {published:%d %B %Y}</p>
{article["paragraphs"]}
</article>
<footer><p>Local Trade News. All rights reserved.</p></footer>
</body></html>""".encode()


def feed_plan(feeds: int) -> list[tuple[int, str]]:
    """(host index, trade) per feed: trades in turn, hosts in turn."""
    trades = list(TRADES)
    return [(feed % FEED_HOSTS, trades[feed % len(trades)]) for feed in range(feeds)]


FAILING_FEED_PATH = "/feeds/failing.rss"


def serve_feeds(feeds: int, ready: Any, hits: Any, stop: Any, heal: Any) -> None:
    """The internet's feeds and pages, in their own process (no GIL shared with the stages).
    FAILING_FEED_PATH answers 404 until ``heal`` is set, then a valid feed listing one article
    another feed of its host already listed (a feed with no entries counts as failing)."""
    from devkit.devserver import StaticSiteServer

    servers = [StaticSiteServer({}, host=f"127.0.0.{2 + h}").start() for h in range(min(FEED_HOSTS, feeds))]
    now = datetime.now(UTC)
    pages: dict[str, bytes] = {}
    urls = []
    for feed, (host, trade) in enumerate(feed_plan(feeds)):
        server = servers[host]
        base = server.base_url
        items = []
        for item in range(PAGES_PER_FEED):
            article = article_for(trade, feed, item)
            published = now - timedelta(hours=item + 1, minutes=feed % 60)
            path = f"/news/{article['slug']}.html"
            body = page_html(article, base=base, published=published)
            server.set(path, body, "text/html; charset=utf-8")
            server.set(f"/img/{article['slug']}.jpg", b"\xff\xd8\xff\xe0bench-image\xff\xd9", "image/jpeg")
            pages[f"{base}{path}"] = body
            items.append(
                f"<item><title>{escape(article['title'])}</title><link>{base}{path}</link>"
                f"<guid>{base}{path}</guid><pubDate>{format_datetime(published)}</pubDate>"
                f"<description>{escape(article['summary'])}</description></item>"
            )
        xml = (
            f'<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>{trade.title()} news {feed}'
            f"</title><link>{base}/</link><description>Trade news</description>{''.join(items)}</channel></rss>"
        )
        server.set(f"/feeds/{feed}.rss", xml.encode(), "application/rss+xml")
        urls.append(f"{base}/feeds/{feed}.rss")
    known = next(url for url in pages if url.startswith(servers[0].base_url))
    healed = (
        '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>Back again</title>'
        f"<link>{servers[0].base_url}/</link><description>Nothing new</description>"
        f"<item><title>Seen before</title><link>{known}</link><guid>{known}</guid></item></channel></rss>"
    )

    def heal_when_asked() -> None:
        heal.wait()
        servers[0].set(FAILING_FEED_PATH, healed.encode(), "application/rss+xml")

    threading.Thread(target=heal_when_asked, daemon=True).start()
    ready.put(
        {
            "feeds": urls,
            "failing_feed": f"{servers[0].base_url}{FAILING_FEED_PATH}",
            "hosts": [s.base_url.removeprefix("http://") for s in servers],
            "pages": pages,
        }
    )
    stop.wait()
    hits.put([path for server in servers for path in server.requests])
    for server in servers:
        server.stop()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def say(args: argparse.Namespace, message: str) -> None:
    if not args.json:
        print(message, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--accounts", type=int, default=1000)
    parser.add_argument("--paying", type=float, default=0.8, help="share of accounts that pay (default 0.8)")
    parser.add_argument("--feeds", type=int, default=200)
    parser.add_argument("--json", action="store_true", help="print only the closing JSON line")
    parser.add_argument(
        "--faults",
        action="store_true",
        help="the fault night's mode (scripts/fault_night.py): see FAULTS in this file",
    )
    parser.add_argument(
        "--graph-throttle",
        action="store_true",
        help="with --faults, throttles among the random Graph faults too (each announces a one-minute regain)",
    )
    parser.add_argument(
        "--profile",
        metavar="DIR",
        default="",
        help="write cProfile stats to DIR: the workers' tasks (sampled, one at a time per process) and the approvals",
    )
    parser.add_argument(
        "--keep-work",
        action="store_true",
        help="keep the run's folder (worker and sandbox logs, the sandbox's state); kept anyway when the run fails",
    )
    args = parser.parse_args()
    FAULTS.on = args.faults
    if args.graph_throttle:
        FAULTS.RANDOM_GRAPH_FAULTS = (*FAULTS.RANDOM_GRAPH_FAULTS, "throttle")
    if args.accounts < 1 or args.feeds < 1 or not 0 <= args.paying <= 1:
        parser.error("--accounts and --feeds must be at least 1, --paying between 0 and 1")
    for name in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL"):
        if not os.environ.get(name, "").startswith(("postgres", "redis")):
            parser.error(f"{name} must point at PostgreSQL / Redis (the production shape); it is {name!r} unset")

    # The internet and the platform first: their addresses go into the settings.
    ctx = multiprocessing.get_context("fork")
    ready, hits, stop, heal = ctx.Queue(), ctx.Queue(), ctx.Event(), ctx.Event()
    FAULTS.heal_failing_feed = heal
    site = ctx.Process(target=serve_feeds, args=(args.feeds, ready, hits, stop, heal), daemon=True)
    site.start()
    served = ready.get(timeout=120)
    work = Path(tempfile.mkdtemp(prefix="bench-night-"))
    graph_port = free_port()
    sandbox = subprocess.Popen(  # noqa: S603 (our own interpreter and module)
        [sys.executable, "-m", "devkit.sandbox", "--port", str(graph_port), "--state", str(work / "graph.sqlite3")],
        cwd=ROOT,
        stdout=(work / "sandbox.log").open("wb"),
        stderr=subprocess.STDOUT,
    )
    graph = f"http://127.0.0.1:{graph_port}"

    from cryptography.fernet import Fernet

    os.environ.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DJANGO_DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        CRON_SECRET=secrets.token_urlsafe(40),
        TOKEN_ENCRYPTION_KEYS=Fernet.generate_key().decode(),
        GRAPH_API_BASE_URL=graph,
        FACEBOOK_APP_ID="landed-sandbox-app",
        FACEBOOK_APP_SECRET="landed-sandbox-secret",  # noqa: S106 (the sandbox's published default)
        ALARMS_NOWHERE="1",
        RESEARCH_ALLOW_HOSTS=",".join(served["hosts"]),
        LANDED_VAR_DIR=str(work / "var"),
        LOG_LEVEL="WARNING",
        BENCH_NIGHT_REDIS_URL=os.environ["REDIS_URL"],
    )
    if args.profile:
        Path(args.profile).mkdir(parents=True, exist_ok=True)
        os.environ["BENCH_NIGHT_PROFILE"] = str(Path(args.profile).resolve())
    import django

    django.setup()
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    # Its own throwaway database: never the test suite's test_<name>.
    connection.settings_dict.setdefault("TEST", {})["NAME"] = f"{old_name}_bench_night"
    connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    workers: list[subprocess.Popen[bytes]] = []
    finished = False
    try:
        _wait_http(f"{graph}/_sandbox/now")
        report = night(args, served=served, graph=graph, work=work, workers=workers)
        finished = True
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
        for worker in workers:
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
        sandbox.terminate()
        stop.set()
        connection.close()
        connection.creation.destroy_test_db(old_name, verbosity=0)
        # The logs are what explains a failed run; a finished one leaves nothing behind.
        if finished and not args.keep_work:
            try:
                sandbox.wait(timeout=30)
            except subprocess.TimeoutExpired:
                sandbox.kill()
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"bench_night: the run's logs are in {work}", file=sys.stderr)
    feed_requests = hits.get(timeout=60)
    site.join(timeout=10)
    report["feed_fetches"] = sum(1 for path in feed_requests if path.startswith("/feeds/"))
    report["page_fetches"] = sum(1 for path in feed_requests if path.startswith("/news/"))
    if not args.json:
        print_report(report)
    print(json.dumps(report, sort_keys=True))


def _wait_http(url: str, timeout: float = 30) -> None:
    import requests

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            requests.post(url, json={}, timeout=2)
            return
        except requests.ConnectionError:
            time.sleep(0.2)
    raise SystemExit(f"the Graph sandbox did not answer at {url}")


def night(args: argparse.Namespace, *, served: dict[str, Any], graph: str, work: Path, workers: list) -> dict[str, Any]:
    import redis
    import requests
    from django.conf import settings

    from config.celery_app import app as celery_app

    counters = redis.Redis.from_url(os.environ["BENCH_NIGHT_REDIS_URL"])
    counters.delete("bench-night:started", "bench-night:finished", "bench-night:queries")
    celery_app.control.purge()

    def control(method: str, /, **kwargs: Any) -> Any:
        response = requests.post(f"{graph}/_sandbox/{method}", json=kwargs, timeout=30)
        response.raise_for_status()
        return response.json()

    setup_started = time.perf_counter()
    accounts, owners, unique_feeds = seed(args, served=served, control=control)
    control("set_latency", min_ms=GRAPH_LATENCY_MS[0], max_ms=GRAPH_LATENCY_MS[1])
    control("set_usage", app_call_count=12, business_call_count=9)
    setup_s = time.perf_counter() - setup_started
    say(args, f"setup: {len(accounts)} accounts, {unique_feeds} feeds, channels and voices in {setup_s:.1f} s")

    env = dict(os.environ)
    env["DATABASE_URL"] = _test_database_url()

    def worker_start(n: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen(  # noqa: S603 (our own interpreter and module)
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "scripts.bench_night_worker",
                "worker",
                "--pool=threads",
                f"--concurrency={WORKER_THREADS}",
                f"--hostname=bench-night-{n}@%h",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--loglevel=WARNING",
            ],
            cwd=ROOT,
            env=env,
            stdout=(work / f"worker-{n}.log").open("ab"),
            stderr=subprocess.STDOUT,
        )

    for n in range(WORKER_PROCESSES):
        workers.append(worker_start(n))
    night_over = threading.Event()
    if FAULTS.on:
        threading.Thread(target=_supervise, args=(workers, worker_start, night_over), daemon=True).start()
    _workers_ready(celery_app, len(workers), work)

    stages: dict[str, dict[str, float]] = {}
    night_started = time.perf_counter()
    ticker_stop = threading.Event()
    if FAULTS.on:
        FAULTS.sweeps.add("extract_articles")  # extraction left over, runs past their deadline
        # With the alarms' outbox delivery, as beat runs it (the jobs watchdog expects it every minute).
        FAULTS.sweeps.update({*FAULTS.WATCHDOGS, "deliver_alarm_notifications"})
        # Every job whose period plus scaled grace is shorter than the night, from its start as
        # beat would (before their stage they find nothing to do): the jobs watchdog sees them up.
        FAULTS.sweeps.update({"send_same_day_notes", "publish_due", "poll_ig_containers", "reconcile_recent"})
        night_clock = timezone_now()
        threading.Thread(target=_sweeps, args=(ticker_stop,), daemon=True).start()
        threading.Thread(target=_watch_stuck, args=(ticker_stop,), daemon=True).start()
        threading.Thread(target=_watch_throttles, args=(ticker_stop, owners), daemon=True).start()
    stages["research"] = stage_research(counters)
    say(args, f"research: {stages['research']['wall_s']:.1f} s")
    if FAULTS.on:
        threading.Thread(target=_job_down_drill, args=(ticker_stop,), daemon=True).start()
    FAULTS.sweeps.update({"compose_drafts", "gate_drafts"} if FAULTS.on else ())
    stages["compose"], stages["gate"] = stage_compose_and_gate(counters)
    say(args, f"compose: {stages['compose']['wall_s']:.1f} s, gate done at {stages['gate']['wall_s']:.1f} s")
    graph_faults = threading.Thread(target=_graph_faults, args=(ticker_stop, control), daemon=True)
    if FAULTS.on:
        # From the approvals on: each approval sends its post at once.
        graph_faults.start()
    if args.profile:
        import cProfile

        with cProfile.Profile() as profile:
            stages["approve"] = stage_approve(accounts=accounts, owners=owners)
        profile.dump_stats(str(Path(args.profile) / "approve.prof"))
    else:
        stages["approve"] = stage_approve(accounts=accounts, owners=owners)
    say(args, f"approve: {stages['approve']['wall_s']:.1f} s ({stages['approve']['items']} approvals)")
    if FAULTS.on:
        FAULTS.sweeps.update({"publish_due", "poll_ig_containers", "reconcile_recent"})
    ticker = threading.Thread(target=_beat, args=(ticker_stop,), daemon=True)
    ticker.start()
    try:
        stages["publish"], stages["reconcile"] = stage_publish_and_reconcile()
        if FAULTS.on:
            watchdog_clock_finish(args)
    finally:
        ticker_stop.set()
        ticker.join(timeout=10)
        if FAULTS.on:
            graph_faults.join(timeout=10)
            control("clear_injections")
        night_over.set()
    elapsed_s = time.perf_counter() - night_started
    say(args, f"publish: {stages['publish']['wall_s']:.1f} s, reconcile done at {stages['reconcile']['wall_s']:.1f} s")

    memory = _worker_memory(workers)
    queries = _counts(counters, "bench-night:queries")
    tasks = _counts(counters, "bench-night:finished")
    outcome = outcomes(control)
    floor = cpu_floor(served["pages"])
    publications = max(1, outcome["publications"])
    # The publish and read-back tasks' own queries; the sweeps' (cron.tasks.job_run_task) are
    # shared with the other jobs and reported under queries_by_task.
    publish_queries = sum(n for name, n in queries.items() if name.startswith(("publish.", "reconcile.")))
    report: dict[str, Any] = {
        "accounts": len(accounts),
        "paying": sum(1 for account in accounts if account.is_paying),
        "trades": len({account.industry for account in accounts}),
        "unique_feeds": unique_feeds,
        "worker_processes": WORKER_PROCESSES,
        "worker_threads": WORKER_THREADS,
        "graph_latency_ms": list(GRAPH_LATENCY_MS),
        "setup_s": round(setup_s, 1),
        # Two decimals: a small night's floor is well under a second, and other tools check
        # that ratio = elapsed_s / floor_s from the printed numbers.
        "elapsed_s": round(elapsed_s, 2),
        "floor_s": round(floor["floor_s"], 2),
        "floor_extract_s": round(floor["extract_s"], 1),
        "floor_gate_s": round(floor["gate_s"], 1),
        "ratio": round(elapsed_s / floor["floor_s"], 2) if floor["floor_s"] else None,
        "stages": stages,
        "queries_per_publication": round((publish_queries + stages["approve"]["queries"]) / publications, 1),
        "queries_by_task": queries,
        "tasks": tasks,
        "worker_peak_rss_mb": memory,
        **outcome,
    }
    report["articles"] = floor["pages"]
    if FAULTS.on:
        report["faults"] = {
            "worker_restarts": FAULTS.worker_restarts,
            "bench_retries": FAULTS.retried,
            "graph_faults": dict(FAULTS.graph_faults),
            **composed_everywhere(),
            "alarms": _retrying(partial(watchdog_alarms, since=night_clock), what="the alarms"),
            "stuck_unalarmed": {str(pk): s for pk, s in FAULTS.stuck_unalarmed.items()},
            "throttles": _retrying(throttle_report, what="the throttles"),
            "watchdog_clock": _retrying(partial(watchdog_clock_report, since=night_clock), what="the watchdog clock"),
            # The origin of the alarms' seconds, so the fault script puts them on its own clock.
            "night_started_epoch": night_clock.timestamp(),
        }
    report["target_s"] = 300
    report["research_politeness"] = {"host_delay_s": settings.RESEARCH_HOST_DELAY_S}
    return report


def _counts(counters: Any, key: str) -> dict[str, int]:
    """A Redis hash of counters (task name -> n) as text keys."""
    return {
        (name.decode() if isinstance(name, bytes) else str(name)): int(n) for name, n in counters.hgetall(key).items()
    }


def _test_database_url() -> str:
    from django.db import connection

    params = connection.settings_dict
    user = params.get("USER") or "postgres"
    password = f":{params['PASSWORD']}" if params.get("PASSWORD") else ""
    host = params.get("HOST") or "127.0.0.1"
    port = params.get("PORT") or "5432"
    return f"postgres://{user}{password}@{host}:{port}/{params['NAME']}"


def _workers_ready(celery_app: Any, count: int, work: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        replies = celery_app.control.ping(timeout=1.0) or []
        if len(replies) >= count:
            return
        time.sleep(0.5)
    logs = "\n".join((work / f"worker-{n}.log").read_text(errors="replace")[-2000:] for n in range(count))
    raise SystemExit(f"the workers did not start:\n{logs}")


def seed(args: argparse.Namespace, *, served: dict[str, Any], control: Any) -> tuple[list, dict, int]:
    """Accounts in ten trades, their owners, feeds, sandbox channels and voices."""
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import User

    from accounts.models import Account, Membership, Platform, Role
    from posting.voice.services import voice_import, voice_learn_after_import
    from publish.services import channel_bind
    from research.models import Source, Subscription

    trades = list(TRADES)
    paying = round(args.accounts * args.paying)
    accounts = Account.objects.bulk_create(
        [
            Account(
                name=f"{TOWNS[n % len(TOWNS)]} {trades[n % len(trades)].title()} {n}",
                slug=f"night-{n}",
                industry=trades[n % len(trades)],
                topics=TRADES[trades[n % len(trades)]]["topics"],
                is_paying=n < paying,
                use_article_images=True,
                cadence_per_day=1,
            )
            for n in range(args.accounts)
        ]
    )
    password = make_password(secrets.token_urlsafe(16))  # one hash: PBKDF2 per owner would dominate setup
    users = User.objects.bulk_create([User(username=f"owner-{n}", password=password) for n in range(args.accounts)])
    Membership.objects.bulk_create(
        [Membership(user=user, account=account, role=Role.OWNER) for user, account in zip(users, accounts, strict=True)]
    )
    plan = feed_plan(len(served["feeds"]))
    sources = Source.objects.bulk_create(
        [Source(url=url, title=f"{plan[i][1].title()} news {i}") for i, url in enumerate(served["feeds"])]
    )
    by_trade: dict[str, list] = {}
    for source, (_host, trade) in zip(sources, plan, strict=True):
        by_trade.setdefault(trade, []).append(source)
    subscriptions = []
    for n, account in enumerate(accounts):
        own = by_trade.get(account.industry) or sources
        for k in range(min(FEEDS_PER_ACCOUNT, len(own))):
            subscriptions.append(Subscription(account=account, source=own[(n // len(trades) + k) % len(own)]))
    if FAULTS.on:
        # The watchdog clock's failing source: a custom feed (no trade) of the first account's.
        failing = Source.objects.create(url=served["failing_feed"], title="The feed that went away")
        subscriptions.append(Subscription(account=accounts[0], source=failing))
    Subscription.objects.bulk_create(subscriptions)
    unique_feeds = len({subscription.source_id for subscription in subscriptions})

    for account in accounts:
        user = control("create_user", name=f"Owner of {account.name}")
        page = control("create_page", user_id=user["id"], name=account.name, ig_username=account.slug.replace("-", ""))
        channel_bind(
            account=account,
            platform=Platform.FACEBOOK_PAGE,
            external_id=page["id"],
            name=page["name"],
            token=page["access_token"],
        )
        channel_bind(
            account=account,
            platform=Platform.INSTAGRAM,
            external_id=page["instagram_id"],
            name=f"@{account.slug}",
            token=page["access_token"],
        )
        trade = account.industry
        thing = TRADES[trade]["things"][0]
        for platform in (Platform.FACEBOOK_PAGE, Platform.INSTAGRAM):
            posts = [
                {"text": f"Fresh {thing} this week at {account.name}! Pop in and say hello."},
                {"text": f"Big thanks to everyone who came to our {TRADES[trade]['event']}. See you next time!"},
                {"text": f"Did you know? Local {TRADES[trade]['body']} love {TRADES[trade]['topics'][0]}. We do too."},
            ]
            voice_import(account=account, platform=platform, posts=posts, origin="bench")
            voice_learn_after_import(account=account, platform=platform)
    owners = {membership.account_id: membership.user for membership in Membership.objects.select_related("user")}
    return accounts, owners, unique_feeds


def _idle(counters: Any, prefixes: tuple[str, ...]) -> bool:
    """No task waiting in the queue, and every started task with these name prefixes finished."""
    import redis
    from django.conf import settings

    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    if any(broker.llen(queue.name) for queue in settings.CELERY_TASK_QUEUES):
        return False
    if FAULTS.on:
        return True  # a killed task started and never finished: the work itself is checked instead
    started = _counts(counters, "bench-night:started")
    finished = _counts(counters, "bench-night:finished")
    return all(finished.get(name, 0) >= n for name, n in started.items() if name.startswith(prefixes))


def _wait(condition: Any, what: str) -> None:
    deadline = time.monotonic() + STAGE_TIMEOUT_S
    while not _retrying(condition, what=what, limit_s=STAGE_TIMEOUT_S):
        if time.monotonic() > deadline:
            raise SystemExit(f"bench-night: {what} did not finish within {STAGE_TIMEOUT_S} s")
        time.sleep(0.2)


def _job(name: str) -> None:
    from cron.services import job_run_request

    job_run_request(job_name=name, trigger="bench")


def stage_research(counters: Any) -> dict[str, float]:
    from cron.models import JobRun
    from research.models import Article, ResearchRun

    started = time.perf_counter()
    _job("research_feeds")
    _wait(lambda: JobRun.objects.filter(job="research_feeds", outcome=JobRun.Outcome.OK).exists(), "the dispatch")
    _wait(lambda: not ResearchRun.objects.filter(finished_at__isnull=True).exists(), "every account's research run")
    wall = time.perf_counter() - started
    articles = Article.objects.filter(extraction_status=Article.Extraction.OK).count()
    return {"wall_s": round(wall, 1), "items": articles, "per_s": round(articles / wall, 1)}


def stage_compose_and_gate(counters: Any) -> tuple[dict[str, float], dict[str, float]]:
    from accounts.models import Account
    from cron.models import JobRun
    from posting.models import Draft

    accounts = Account.objects.filter(paused=False).count()
    started = time.perf_counter()
    _job("compose_drafts")
    _wait(lambda: JobRun.objects.filter(job="compose_drafts", outcome=JobRun.Outcome.OK).exists(), "the dispatch")

    def composed() -> bool:
        finished = counters.hget("bench-night:finished", "posting.tasks.account_drafts_compose_task")
        return int(finished or 0) >= accounts

    _wait(composed, "composing")
    compose_wall = time.perf_counter() - started
    _wait(lambda: _idle(counters, ("posting.",)) and not Draft.objects.filter(status="drafted").exists(), "gating")
    gate_wall = time.perf_counter() - started
    drafts = Draft.objects.count()
    gated = Draft.objects.exclude(gate_verdict="").count()
    return (
        {"wall_s": round(compose_wall, 1), "items": drafts, "per_s": round(drafts / compose_wall, 1)},
        {"wall_s": round(gate_wall, 1), "items": gated, "per_s": round(gated / gate_wall, 1)},
    )


def stage_approve(*, accounts: list, owners: dict) -> dict[str, float]:
    """Every paying owner taps approve on every draft waiting: the service the view calls."""
    from django.db import connection

    from posting.selectors import drafts_awaiting_approval
    from posting.services import draft_approve

    queries = [0]

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        queries[0] += 1
        return execute(sql, params, many, context)

    started = time.perf_counter()
    approved = 0
    with connection.execute_wrapper(count):
        for account in accounts:
            if not account.is_paying:
                continue
            waiting = partial(lambda of: list(drafts_awaiting_approval(account=of)), account)
            for draft in _retrying(waiting, what="the drafts page"):
                # Due at once, as the headless pipeline approves: a customer's approval takes
                # the next posting slot (tomorrow morning, in the account's zone), and the night
                # measures throughput, not the wait for it. Publishing at the slot, exact to the
                # minute through the same publish_due sweep, is tests/publish/test_queue.py's.
                if FAULTS.on:
                    approved += _approve_retrying(draft, owners[account.pk])
                    continue
                draft_approve(draft=draft, user=owners[account.pk], post_now=True)
                approved += 1
    wall = time.perf_counter() - started
    return {"wall_s": round(wall, 1), "items": approved, "per_s": round(approved / wall, 1), "queries": queries[0]}


def _beat(stop: threading.Event) -> None:
    """What beat does for the sweeps: ask for each job's run in its slot (the slot dedupes)."""
    from django.db import connection

    while not stop.wait(1.0):
        for name in ("publish_due", "poll_ig_containers", "reconcile_recent"):
            try:
                _job(name)
            except _db_errors():
                if not FAULTS.on:
                    raise
                connection.close()  # beat reconnects and asks again next tick
    connection.close()


def _sweeps(stop: threading.Event) -> None:
    """--faults: each tick, the next slot's run of every recovery sweep (FAULTS)."""
    from django.db import connection
    from django.utils import timezone

    from cron.jobs import job_get
    from cron.services import job_run_request

    tick = 0
    while not stop.wait(FAULTS.SWEEP_EVERY_S):
        tick += 1
        for name in sorted(FAULTS.sweeps - FAULTS.withheld):
            try:
                job_run_request(job_name=name, at=timezone.now() + tick * job_get(name).period, trigger="bench")
            except _db_errors():
                connection.close()
    connection.close()


def timezone_now() -> Any:
    from django.utils import timezone

    return timezone.now()


def _watch_stuck(stop: threading.Event) -> None:
    """--faults: a publication unknown past WATCHDOG_STUCK_MINUTES + STUCK_ALARM_GRACE_S with no
    open publications_stuck alarm for its account is a watchdog that did not fire in its grace."""
    from datetime import timedelta

    from django.conf import settings
    from django.db import connection

    from cron.models import Alarm
    from cron.watchdogs import Kind
    from publish.models import Publication

    while not stop.wait(2.0):
        try:
            now = timezone_now()
            late = now - timedelta(minutes=settings.WATCHDOG_STUCK_MINUTES, seconds=FAULTS.STUCK_ALARM_GRACE_S)
            stuck = Publication.objects.filter(status=Publication.Status.UNKNOWN, publishing_started_at__lt=late)
            alarmed = set(
                Alarm.objects.filter(kind=Kind.PUBLICATIONS_STUCK, resolved_at__isnull=True).values_list(
                    "account_id", flat=True
                )
            )
            for pk, account_id, started in stuck.values_list("id", "account_id", "publishing_started_at"):
                if account_id not in alarmed:
                    FAULTS.stuck_unalarmed.setdefault(pk, round((now - started).total_seconds(), 1))
        except _db_errors():
            connection.close()
    connection.close()


def watchdog_alarms(*, since: Any) -> list[dict[str, Any]]:
    """--faults: after recovery, each watchdog once more (the next tick beat would ask for), then
    every alarm of the night: when it opened and resolved, in seconds from the night's start."""
    from django.utils.module_loading import import_string

    from cron.jobs import job_get
    from cron.models import Alarm
    from cron.services import job_run_recorded

    for name in FAULTS.WATCHDOGS:
        with job_run_recorded(job_name=name, trigger="bench") as counts:
            counts.update(import_string(job_get(name).service)())
    return [
        {
            "kind": alarm.kind,
            "subject": alarm.subject,
            "account_id": alarm.account_id,
            "opened_s": round((alarm.opened_at - since).total_seconds(), 1),
            "resolved_s": round((alarm.resolved_at - since).total_seconds(), 1) if alarm.resolved_at else None,
        }
        for alarm in Alarm.objects.filter(opened_at__gte=since).order_by("opened_at")
    ]


def _watch_throttles(stop: threading.Event, owners: dict) -> None:
    """--faults: while a channel is paused for a throttle with a post waiting behind it, does
    its owner's History say so, and the operator's console? Once per channel, as a person
    looking would: the real pages, through Django's test client (no server needed)."""
    from datetime import timedelta

    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client

    from publish.models import Channel, Publication

    operator = None
    while not stop.wait(2.0):
        try:
            if operator is None:
                operator, _ = User.objects.get_or_create(username="night-operator", defaults={"is_staff": True})
            # Still paused for a few seconds: the page is read before the pause ends.
            soon = timezone_now() + timedelta(seconds=5)
            paused = Channel.objects.filter(throttled_until__gt=soon).exclude(pk__in=list(FAULTS.throttles_shown))
            for channel in paused.select_related("account"):
                waiting = Publication.objects.filter(channel=channel, status=Publication.Status.SCHEDULED)
                if not waiting.exists():
                    continue
                member, staff = Client(), Client()
                member.force_login(owners[channel.account_id])
                staff.force_login(operator)
                history = member.get(f"/a/{channel.account.slug}/history/").content.decode()
                console = staff.get("/ops/").content.decode()
                FAULTS.throttles_shown[channel.pk] = {
                    "history": "is paused for the platform's rate limits until" in history,
                    "console": "Channels paused for rate limits" in console,
                }
        except _db_errors():
            connection.close()
    connection.close()


def throttle_report() -> list[dict[str, Any]]:
    """--faults: each throttle the platform answered during the night: the post it refused
    landed afterwards, nothing was sent to that channel until the announced regain time had
    passed, and the pause was shown (History, console) while it lasted."""
    from publish.kinds import AttemptOutcome
    from publish.models import Publication, PublishAttempt

    regain_s = FAULTS.THROTTLE_REGAIN_MINUTES * 60
    rows = []
    throttled = PublishAttempt.objects.filter(outcome=AttemptOutcome.THROTTLED).select_related("publication")
    for attempt in throttled.order_by("started_at"):
        publication = attempt.publication
        answered = attempt.finished_at or attempt.started_at  # a worker killed before recording the answer
        after = (
            PublishAttempt.objects.filter(publication__channel_id=publication.channel_id, started_at__gt=answered)
            .order_by("started_at")
            .first()
        )
        quiet_s = None if after is None else round((after.started_at - answered).total_seconds(), 1)
        shown = FAULTS.throttles_shown.get(publication.channel_id, {})
        rows.append(
            {
                "publication": publication.pk,
                "channel": publication.channel_id,
                "code": attempt.error_code,
                "request": attempt.request_kind,
                "status": publication.status,
                "landed": publication.status == Publication.Status.LANDED,
                "channel_quiet_s": quiet_s,
                "waited_for_regain": quiet_s is not None and quiet_s >= regain_s,
                "history_showed_pause": shown.get("history", False),
                "console_showed_pause": shown.get("console", False),
            }
        )
    return rows


def _job_down_drill(stop: threading.Event) -> None:
    """--faults: JOB_DOWN_DRILL is withheld from the sweeps (a job that stopped completing)
    until its job_down alarm opens, then runs again. Its alarm is due once its period plus its
    scaled grace have passed since it last completed (cron/selectors.py job_statuses)."""
    from datetime import timedelta

    from django.conf import settings
    from django.db import connection
    from django.db.models import Max

    from cron.jobs import job_get
    from cron.models import Alarm, JobRun
    from cron.watchdogs import Kind

    job = job_get(FAULTS.JOB_DOWN_DRILL)
    FAULTS.withheld.add(job.name)
    withheld_at = timezone_now()
    due = None
    try:
        while not stop.wait(1.0):
            try:
                # A run queued before the withholding may still complete: the last one counts.
                last = JobRun.objects.filter(job=job.name, outcome=JobRun.Outcome.OK).aggregate(at=Max("finished_at"))
                if last["at"] is None:
                    continue
                due = last["at"] + job.period + job.grace * settings.WATCHDOG_JOB_GRACE_SCALE
                opened = Alarm.objects.filter(kind=Kind.JOB_DOWN, subject=job.name, opened_at__gte=withheld_at)
                if opened.exists() or timezone_now() > due + timedelta(seconds=3 * FAULTS.ALARM_ALLOWANCE_S):
                    break
            except _db_errors():
                connection.close()
    finally:
        FAULTS.withheld.discard(job.name)
        if due is not None:
            FAULTS.expected_alarms.append({"kind": Kind.JOB_DOWN, "account_id": None, "subject": job.name, "due": due})
        connection.close()


def watchdog_clock_finish(args: argparse.Namespace) -> None:
    """--faults, after the night's posts have landed: wait until every long-grace alarm the
    night provoked is due (plus the allowance), then heal the failing feed and run research
    once more (the next slot of the research job, as beat would when its hours have passed)."""
    from datetime import timedelta

    from django.conf import settings
    from django.db.models import Max, Min

    from accounts.models import Account
    from cron.jobs import job_get
    from cron.services import job_run_request
    from cron.watchdogs import Kind
    from research.models import ResearchRun, Source, Subscription

    overdue = timedelta(seconds=settings.WATCHDOG_RESEARCH_OVERDUE_S)
    accounts = Account.objects.filter(paused=False, subscriptions__isnull=False).annotate(
        subscribed=Min("subscriptions__created_at"), researched=Max("research_runs__finished_at")
    )
    for account in accounts.distinct():
        due = max(account.subscribed, account.researched or account.subscribed) + overdue
        FAULTS.expected_alarms.append(
            {"kind": Kind.RESEARCH_STARVED, "account_id": account.pk, "subject": "", "due": due}
        )
    failing = Source.objects.get(url__endswith=FAILING_FEED_PATH)
    for subscription in Subscription.objects.filter(source=failing):
        # Due at the first failed read (WATCHDOG_SOURCE_MAX_FAILURES is 1 on this clock)...
        FAULTS.expected_alarms.append(
            {
                "kind": Kind.SOURCE_FAILING,
                "account_id": subscription.account_id,
                "subject": f"source:{failing.pk}",
                "due": failing.last_fetched_at,
                "first_failure": True,
            }
        )
        # ...and, never read successfully, WATCHDOG_SOURCE_FAILING_HOURS after it was added.
        FAULTS.expected_alarms.append(
            {
                "kind": Kind.SOURCE_FAILING_FOR_ACCOUNT,
                "account_id": subscription.account_id,
                "subject": f"source:{failing.pk}",
                "due": max(failing.created_at, subscription.created_at)
                + timedelta(hours=settings.WATCHDOG_SOURCE_FAILING_HOURS),
            }
        )
    last_due = max(expected["due"] for expected in FAULTS.expected_alarms if expected["due"] is not None)
    wait_s = (last_due - timezone_now()).total_seconds() + FAULTS.ALARM_ALLOWANCE_S
    say(args, f"watchdog clock: the last provoked alarm is due in {wait_s - FAULTS.ALARM_ALLOWANCE_S:.0f} s")
    if wait_s > 0:
        time.sleep(wait_s)
    FAULTS.heal_failing_feed.set()
    research = job_get("research_feeds")
    before = ResearchRun.objects.count()
    _retrying(
        lambda: job_run_request(job_name=research.name, at=timezone_now() + research.period, trigger="bench"),
        what="research again",
    )
    _wait(lambda: ResearchRun.objects.count() > before, "the second research dispatch")
    _wait(lambda: not ResearchRun.objects.filter(finished_at__isnull=True).exists(), "the second research night")
    say(args, "watchdog clock: research ran again with the feed healed")


def watchdog_clock_report(*, since: Any) -> list[dict[str, Any]]:
    """--faults: each alarm the watchdog clock provoked: due when, opened when, resolved when
    (seconds from the night's start). It must open after it is due (never early, except the
    first-failure alarm, which cannot open before the failure) and within ALARM_ALLOWANCE_S
    of it, and be resolved at the end."""
    from cron.models import Alarm

    rows = []
    for expected in FAULTS.expected_alarms:
        alarms = Alarm.objects.filter(
            kind=expected["kind"],
            account_id=expected["account_id"],
            subject=expected["subject"],
            opened_at__gte=since,
        ).order_by("opened_at")
        due = expected["due"]
        # The alarm open when the condition was due (for research, one already open for the
        # account's first night, "no usable article", is the same alarm and counts).
        alarm = next(
            (a for a in alarms if due is None or a.resolved_at is None or a.resolved_at > due),
            None,
        )
        due_s = None if due is None else round((due - since).total_seconds(), 1)
        opened_s = None if alarm is None else round((alarm.opened_at - since).total_seconds(), 1)
        resolved_s = None
        if alarm is not None and alarm.resolved_at is not None:
            resolved_s = round((alarm.resolved_at - since).total_seconds(), 1)
        early = (
            due_s is not None
            and opened_s is not None
            and opened_s < due_s - 1
            and not expected.get("first_failure")
            and expected["kind"] != "research_starved"
        )
        rows.append(
            {
                "kind": expected["kind"],
                "account_id": expected["account_id"],
                "subject": expected["subject"],
                "due_s": due_s,
                "opened_s": opened_s,
                "resolved_s": resolved_s,
                "ok": opened_s is not None
                and due_s is not None
                and not early
                and opened_s <= due_s + FAULTS.ALARM_ALLOWANCE_S
                and resolved_s is not None,
            }
        )
    return rows


def _supervise(workers: list, start: Any, over: threading.Event) -> None:
    """--faults: a worker that died is started again at once, as a supervisor does."""
    while not over.wait(0.5):
        for n, worker in enumerate(workers):
            if worker.poll() is not None and not over.is_set():
                workers[n] = start(n)
                FAULTS.worker_restarts += 1


def _graph_faults(stop: threading.Event, control: Any) -> None:
    """--faults: the platform misbehaving at random while posts go out. One fault waits for
    the next write at a time, and the next is armed only once a write has met it (the
    sandbox's request log says so): a night with few writes still meets every kind, and
    ``graph_faults`` counts the faults the product met, not the ones armed."""
    import requests

    chance = random.Random(13)
    plan: list[str] = []
    armed = ""
    met_before = 0
    first = True
    while sum(FAULTS.graph_faults.values()) < FAULTS.GRAPH_FAULTS_MAX:
        if not first and stop.wait(FAULTS.GRAPH_FAULT_EVERY_S):
            break
        first = False  # the first fault is armed at once: the approvals' posts go out at once
        try:
            met = sum(1 for row in control("requests_log") if row["injected"])
        except (OSError, requests.RequestException):
            continue
        if armed and met == met_before:
            continue  # still waiting for a write
        if armed:
            FAULTS.graph_faults[armed] = FAULTS.graph_faults.get(armed, 0) + 1
            armed = ""
            if sum(FAULTS.graph_faults.values()) >= FAULTS.GRAPH_FAULTS_MAX:
                break
        if not plan:  # every kind once per round, so a short night meets each of them
            plan = list(FAULTS.RANDOM_GRAPH_FAULTS)
            chance.shuffle(plan)
        kind = plan.pop()
        params: dict[str, Any] = {}
        if kind == "throttle":
            params = {"code": chance.choice(FAULTS.THROTTLE_CODES), "minutes": FAULTS.THROTTLE_REGAIN_MINUTES}
        try:
            control(
                "inject", method="POST", path_regex=r"/(feed|media|media_publish)(\?|$)", kind=kind, times=1, **params
            )
        except (OSError, requests.RequestException):
            plan.append(kind)
            continue
        armed, met_before = kind, met


def _approve_retrying(draft: Any, owner: Any) -> int:
    """--faults: the customer taps approve again until it answers; 1 if this tap approved it."""
    from posting.errors import DraftStateError
    from posting.models import Draft
    from posting.services import draft_approve
    from publish.errors import PublishNotEnqueued

    def tap() -> int:
        try:
            draft_approve(draft=draft, user=owner, post_now=True)
        except PublishNotEnqueued:
            return 1  # approved and committed; the publish sweep sends it
        except DraftStateError:
            # A tap whose answer was lost may have approved it already.
            return int(Draft.objects.filter(pk=draft.pk, status=Draft.Status.APPROVED).exists())
        return 1

    return int(_retrying(tap, what="approving"))


def composed_everywhere() -> dict[str, int]:
    """--faults: every account with articles of its own was composed despite the kills: it has
    drafts, or the composer recorded why not (an article off its topic: a small night has
    fewer feeds than trades, so some accounts only follow another trade's)."""
    from accounts.models import Account
    from posting.models import ComposeSkip, Draft
    from research.selectors import articles_usable_for_account

    with_articles = [a for a in Account.objects.all() if articles_usable_for_account(account=a).exists()]
    drafted = set(Draft.objects.values_list("account_id", flat=True))
    skipped = set(ComposeSkip.objects.values_list("account_id", flat=True))
    return {
        "accounts_with_articles": len(with_articles),
        "accounts_with_drafts": sum(1 for a in with_articles if a.pk in drafted),
        "accounts_never_composed": sum(1 for a in with_articles if a.pk not in drafted | skipped),
    }


def stage_publish_and_reconcile() -> tuple[dict[str, float], dict[str, float]]:
    from publish.models import Publication

    status = Publication.Status
    started = time.perf_counter()
    total = Publication.objects.count()
    _wait(
        lambda: not Publication.objects.filter(status__in=[status.SCHEDULED, status.PUBLISHING]).exists(),
        "publishing",
    )
    publish_wall = time.perf_counter() - started
    settled = [status.LANDED, status.VANISHED, status.FAILED, status.UNCONFIRMED]
    _wait(lambda: not Publication.objects.exclude(status__in=settled).exists(), "reading back")
    reconcile_wall = time.perf_counter() - started
    landed = Publication.objects.filter(status=status.LANDED).count()
    return (
        {"wall_s": round(publish_wall, 1), "items": total, "per_s": round(total / publish_wall, 1)},
        {"wall_s": round(reconcile_wall, 1), "items": landed, "per_s": round(landed / reconcile_wall, 1)},
    )


def outcomes(control: Any) -> dict[str, int]:
    """The invariants: what was approved landed, once."""
    from django.db.models import Count

    from posting.models import Draft
    from publish.models import Publication

    approved = Draft.objects.filter(status=Draft.Status.APPROVED)
    landed = Publication.objects.filter(account__isnull=False).landed()
    posts = control("posts")
    media = control("media")
    on_platform = len(posts) + len(media)
    twice = Publication.objects.values("draft").annotate(n=Count("id")).filter(n__gt=1).count()
    return {
        "drafts": Draft.objects.count(),
        "passed": Draft.objects.filter(gate_verdict=Draft.Verdict.PASSED).count(),
        "approved": approved.count(),
        "publications": Publication.objects.count(),
        "landed": landed.count(),
        "on_platform": on_platform,
        # A post the platform shows more than once per approved draft, or a draft published twice.
        "duplicates": max(0, on_platform - landed.count()) + twice,
        "approved_not_landed": approved.exclude(publications__in=landed).count(),
        "failed": Publication.objects.filter(status=Publication.Status.FAILED).count(),
    }


def cpu_floor(pages: dict[str, bytes]) -> dict[str, float]:
    """The same work done bare in this process: extraction of every page, the gate's checks on
    every draft against its article's text (no database, queue or HTTP in the timings)."""
    import trafilatura

    from posting.gate.core import gate_evaluate
    from posting.models import Draft
    from posting.selectors import account_sign_offs

    started = time.process_time(), time.perf_counter()
    for url, page in pages.items():
        trafilatura.extract(
            page, url=url, favor_precision=True, with_metadata=True, include_comments=False, output_format="json"
        )
    extract_s = time.perf_counter() - started[1]
    drafts = list(Draft.objects.select_related("article", "account"))
    inputs = [
        (d.text, d.article.title, d.article.text, [d.account.name], account_sign_offs(account=d.account))
        for d in drafts
    ]
    gate_started = time.perf_counter()
    for text, title, body, own_names, sign_offs in inputs:
        gate_evaluate(text=text, title=title, body=body, own_names=own_names, sign_offs=sign_offs, judge=None)
    gate_s = time.perf_counter() - gate_started
    return {"extract_s": extract_s, "gate_s": gate_s, "floor_s": extract_s + gate_s, "pages": len(pages)}


def _worker_memory(workers: list) -> list[float]:
    """Peak resident memory (VmHWM) of each worker process, in MB."""
    peaks = []
    for worker in workers:
        try:
            status = Path(f"/proc/{worker.pid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peaks.append(round(int(line.split()[1]) / 1024, 1))
    return peaks


def print_report(report: dict[str, Any]) -> None:
    print()
    print(
        f"night: {report['accounts']} accounts ({report['paying']} paying) in {report['trades']} trades, "
        f"{report['unique_feeds']} feeds, {report['worker_processes']} worker processes x "
        f"{report['worker_threads']} threads, Graph latency {report['graph_latency_ms']} ms"
    )
    print(f"{'stage':<10} {'wall s':>8} {'items':>7} {'per s':>8}")
    for name, stage in report["stages"].items():
        print(f"{name:<10} {stage['wall_s']:>8} {stage['items']:>7} {stage['per_s']:>8}")
    print(
        f"elapsed {report['elapsed_s']} s (target {report['target_s']}); CPU floor {report['floor_s']} s "
        f"(extraction {report['floor_extract_s']} s + gate {report['floor_gate_s']} s); ratio {report['ratio']}"
    )
    print(f"queries per publication (approve + publish + reconcile): {report['queries_per_publication']}")
    print(f"worker peak RSS MB: {report['worker_peak_rss_mb']}")
    print(
        f"approved {report['approved']}, landed {report['landed']}, duplicates {report['duplicates']}, "
        f"approved_not_landed {report['approved_not_landed']}, failed {report['failed']}"
    )
    print(f"feed fetches {report['feed_fetches']} for {report['unique_feeds']} unique feeds")


if __name__ == "__main__":
    main()
