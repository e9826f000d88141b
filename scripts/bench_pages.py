"""Benchmark the customer's pages (drafts, queue, history) next to a bare Django view.

    make bench-pages                                   # 16 clients, 400 requests per page
    .venv/bin/python scripts/bench_pages.py --clients 16 --requests 400 --json

One account with an owner, 50 drafts awaiting approval, 50 posts in the queue and 100 in
History (landed ones with engagement) on a throwaway database (DATABASE_URL's test database,
created and dropped here; in-memory SQLite without DATABASE_URL). The Django app is served
the way production serves it (the Dockerfile and docker-compose.yml): gunicorn, ``--workers``
sync worker processes (3 there), DEBUG off, persistent database connections and the cache and
sessions settings.py gives it (Redis when REDIS_URL is set). The clients run in a separate
process, ``--clients`` threads each sending ``--requests`` / clients requests per page,
signed in with a real session cookie. Each page is measured after the bare view
(``HttpResponse("ok")`` behind the same middleware, served by the same gunicorn) in the same
run, and the script prints p50/p95 latency and throughput per page and each page's throughput
as a ratio of the bare view's. Issue 11 asks: p95 < 100 ms, ratio >= 0.3. A "signed in" view
(session, user and membership, then "ok") is measured too: what every page pays before its
own work. The pages show 20 cards each (posting.selectors.PAGE_SIZE), the first page.

With Redis the pages are served from the page cache while the account's content is unchanged
(posting/page_cache.py), so a read-only run measures cached pages. ``--writes-per-s N`` gives
the account a new content version N times a second while the clients run (what every
committed write to its drafts, queue or history does), so that many renders are measured too:
a team approving while others read.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import socket
import sys
import threading
import time
import types
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "1")
os.environ.setdefault("LANDED_VAR_DIR", str(ROOT / "var" / "bench"))
os.environ.pop("CELERY_BROKER_URL", None)
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402 - the environment above must be set first

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection, connections  # noqa: E402
from django.http import HttpRequest, HttpResponse  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from django.urls import path  # noqa: E402
from django.utils import timezone  # noqa: E402

PAGES = ("drafts", "queue", "history")


def _bare(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok")


def _signed_in(request: HttpRequest, slug: str) -> HttpResponse:
    """The fixed cost every customer page pays before its own work: the session, the user and
    the account the member belongs to (``member_required``), then "ok". Reported next to the
    bare view so the pages' own cost reads apart from signing in; the ratio is still the bare view's."""
    from accounts.access import member_required

    return member_required(lambda request, account: HttpResponse("ok"))(request, slug)


def _urlconf() -> str:
    """The product's URLs plus one bare view, so both run behind the same middleware."""
    import config.urls

    module = types.ModuleType("bench_pages_urls")
    module.urlpatterns = [  # type: ignore[attr-defined]
        path("bench/bare/", _bare),
        path("bench/signed-in/<slug:slug>/", _signed_in),
        *config.urls.urlpatterns,
    ]
    sys.modules[module.__name__] = module
    return module.__name__


def _serve(port: int, workers: int, threads: int) -> None:
    """In its own process: gunicorn serving Django's WSGI handler, as in the Dockerfile. Forked
    after set-up, so the workers inherit the bench's settings (its URLs, its test database)."""
    from django.core.handlers.wsgi import WSGIHandler
    from gunicorn.app.base import BaseApplication  # type: ignore[import-untyped]  # gunicorn ships no types

    class Gunicorn(BaseApplication):
        def load_config(self) -> None:
            options = {
                "bind": f"127.0.0.1:{port}",
                "workers": workers,
                "threads": threads,
                "timeout": 60,
                "backlog": 256,
                "loglevel": "warning",
            }
            for key, value in options.items():
                self.cfg.set(key, value)

        def load(self) -> WSGIHandler:
            return WSGIHandler()

    Gunicorn().run()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_serving(port: int, *, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"gunicorn did not listen on port {port} within {timeout:.0f} s")


def _seed(*, drafts: int, queued: int, history: int) -> str:
    """The account's rows; returns the owner's session cookie."""
    from django.contrib.auth.models import User

    from accounts.models import Account, Membership, Role
    from posting.models import Draft, text_sha256_of
    from publish.models import Channel, Publication
    from reconcile.models import EngagementSnapshot
    from research.models import Article

    account = Account.objects.create(name="Bench Bikes", slug="bench", timezone="Europe/London", is_paying=True)
    # Signed in by a session below: the account needs no usable password.
    owner = User.objects.create_user(username="bench-owner")
    Membership.objects.create(user=owner, account=account, role=Role.OWNER)
    channel = Channel.objects.create(account=account, platform="facebook_page", external_id="page-bench")
    text = "Harbour Bikes opened a second shop in Leith on Monday. The shop employs 12 mechanics."
    claims = [{"text": text, "supported": True, "evidence": [{"sentence": 1, "text": text}], "reason": ""}]

    def draft(n: int, status: str) -> Draft:
        article = Article.objects.create(
            canonical_url=f"https://news.example/bench/{n}",
            title=f"Harbour Bikes opens a second shop ({n})",
            text=text * 20,
            lead_image_url="https://news.example/lead.jpg",
            extraction_status=Article.Extraction.OK,
        )
        return Draft.objects.create(
            account=account,
            article=article,
            platform="facebook_page",
            text=text,
            link_url=article.canonical_url,
            image_url=article.lead_image_url,
            status=status,
            gate_verdict=Draft.Verdict.PASSED,
            gate_text_sha256=text_sha256_of(text),
            gate_claims=claims,
        )

    for n in range(drafts):
        draft(n, Draft.Status.GATED)
    now = timezone.now()
    for n in range(queued + history):
        approved = draft(drafts + n, Draft.Status.APPROVED)
        landed = n >= queued
        publication = Publication.objects.create(
            account=account,
            draft=approved,
            channel=channel,
            message=approved.text,
            scheduled_for=now + timedelta(hours=n + 1) if not landed else now - timedelta(hours=n),
            slot_at=now + timedelta(hours=n + 1) if not landed else None,
            status=Publication.Status.LANDED if landed else Publication.Status.SCHEDULED,
            permalink=f"https://facebook.example/p/{n}" if landed else "",
            platform_post_id=f"post-{n}" if landed else "",
            landed_at=now - timedelta(hours=n) if landed else None,
        )
        if landed:
            EngagementSnapshot.objects.create(publication=publication, fetched_at=now, reactions=n, comments=n // 3)
    client = Client()
    client.force_login(owner)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def _hammer(
    host: str, port: int, target: str, cookie: str, count: int, latencies: list[float], errors: list[int]
) -> None:
    """One client: ``count`` GETs of ``target``, one connection each (the server speaks HTTP/1.0)."""
    import http.client

    for _ in range(count):
        started = time.perf_counter()
        conn = http.client.HTTPConnection(host, port, timeout=30)
        try:
            conn.request("GET", target, headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={cookie}"})
            response = conn.getresponse()
            response.read()
            ok = response.status == 200
        except OSError:
            ok = False
        finally:
            conn.close()
        # list.append is atomic under the GIL: no lock needed between client threads.
        if ok:
            latencies.append(time.perf_counter() - started)
        else:
            errors.append(1)


def _clients(base: str, cookie: str, paths: list[str], clients: int, requests: int, out: multiprocessing.Queue) -> None:
    """In its own process: for each path, ``clients`` threads share ``requests`` GETs."""
    from urllib.parse import urlsplit

    host, port = urlsplit(base).hostname or "127.0.0.1", urlsplit(base).port or 80
    results: dict[str, dict[str, float]] = {}
    for target in paths:
        latencies: list[float] = []
        errors: list[int] = []
        per_client = max(1, requests // clients)
        threads = [
            threading.Thread(target=_hammer, args=(host, port, target, cookie, per_client, latencies, errors))
            for _ in range(clients)
        ]
        wall = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - wall
        latencies.sort()
        results[target] = {
            "requests": len(latencies),
            "errors": len(errors),
            "p50_ms": 1000 * latencies[len(latencies) // 2] if latencies else 0.0,
            "p95_ms": 1000 * latencies[max(0, int(len(latencies) * 0.95) - 1)] if latencies else 0.0,
            "per_s": len(latencies) / wall if wall else 0.0,
        }
    out.put(results)


def _write_steadily(account_id: int, per_s: float, stop: threading.Event) -> None:
    """Replace the account's content version per_s times a second, as committed writes do."""
    from accounts.content_version import account_content_changed

    try:
        while not stop.wait(1 / per_s):
            account_content_changed([account_id])
    finally:
        # Outside a transaction Django asks the connection for its autocommit (so opens one in
        # this thread): closed here, or the test database could not be dropped.
        connection.close()


def bench(*, clients: int, requests: int, workers: int, threads: int, writes_per_s: float = 0.0) -> dict[str, Any]:
    settings.ROOT_URLCONF = _urlconf()
    settings.ALLOWED_HOSTS = ["*"]
    cookie = _seed(drafts=50, queued=50, history=100)
    # Production runs with DEBUG off: no query log, no template debug information. Set before
    # the first template is loaded (the engine reads it once).
    settings.DEBUG = False
    connections.close_all()  # the workers open their own after the fork
    port = _free_port()
    server = multiprocessing.get_context("fork").Process(target=_serve, args=(port, workers, threads))
    server.start()
    try:
        _wait_until_serving(port)
        base = f"http://127.0.0.1:{port}"
        paths = ["/bench/bare/", "/bench/signed-in/bench/", *[f"/a/bench/{page}/" for page in PAGES]]
        # Warm up (every worker's templates, connections and cache), then measure.
        warm: multiprocessing.Queue = multiprocessing.Queue()
        _clients(base, cookie, paths, 2 * workers, 4 * workers, warm)
        warm.get()
        out: multiprocessing.Queue = multiprocessing.Queue()
        process = multiprocessing.Process(target=_clients, args=(base, cookie, paths, clients, requests, out))
        writes_stop = threading.Event()
        writer = None
        if writes_per_s > 0:
            from accounts.models import Account

            account_id = Account.objects.get(slug="bench").pk
            writer = threading.Thread(target=_write_steadily, args=(account_id, writes_per_s, writes_stop))
            writer.start()
        process.start()
        try:
            results = out.get(timeout=1800)
        finally:
            writes_stop.set()
            if writer is not None:
                writer.join()
        process.join()
    finally:
        server.terminate()  # SIGTERM: gunicorn's graceful stop
        server.join(timeout=60)
    bare = results["/bench/bare/"]
    pages = {
        page: {**results[f"/a/bench/{page}/"], "ratio": results[f"/a/bench/{page}/"]["per_s"] / bare["per_s"]}
        for page in PAGES
    }
    signed_in = {**results["/bench/signed-in/bench/"]}
    signed_in["ratio"] = signed_in["per_s"] / bare["per_s"]
    return {
        "clients": clients,
        "requests_per_page": requests,
        "server": f"gunicorn, {workers} workers x {threads} threads",
        "writes_per_s": writes_per_s,
        "load_average": os.getloadavg(),
        "bare": bare,
        "signed_in": signed_in,
        "pages": pages,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--requests", type=int, default=400, help="requests per page, shared by the clients")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn workers (the Dockerfile's 3)")
    parser.add_argument("--threads", type=int, default=1, help="threads per worker (1: gunicorn's sync worker)")
    parser.add_argument(
        "--writes-per-s",
        type=float,
        default=0.0,
        help="replace the account's content version this often while measuring (pages rendered again)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        report = bench(
            clients=args.clients,
            requests=args.requests,
            workers=args.workers,
            threads=args.threads,
            writes_per_s=args.writes_per_s,
        )
    finally:
        connection.close()
        connection.creation.destroy_test_db(old_name, verbosity=0)
    if args.json:
        print(json.dumps(report))
        return
    bare = report["bare"]
    print(
        f"{report['server']}; clients {report['clients']}, {report['requests_per_page']} requests per page,"
        f" {report['writes_per_s']:g} writes/s"
    )
    print(f"load average at the end {' '.join(f'{n:.2f}' for n in report['load_average'])}")
    print(f"bare view  p50 {bare['p50_ms']:6.1f} ms  p95 {bare['p95_ms']:6.1f} ms  {bare['per_s']:7.1f}/s")
    for page, row in [("signed in", report["signed_in"]), *report["pages"].items()]:
        print(
            f"{page:<10} p50 {row['p50_ms']:6.1f} ms  p95 {row['p95_ms']:6.1f} ms  {row['per_s']:7.1f}/s"
            f"  ratio {row['ratio']:.2f}  errors {row['errors']}"
        )


if __name__ == "__main__":
    main()
