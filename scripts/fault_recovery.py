"""Measure how fast publishing recovers from two faults, in the production shape.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/landed_faults \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/9 .venv/bin/python scripts/fault_recovery.py [--json]

A real Celery worker and a real Celery beat (the production schedule: publish sweep every
minute, reconcile sweep every five) run against PostgreSQL, Redis and the Graph sandbox,
with the production time limits and read spacing. Two faults, one after the other:

  worker_killed_mid_write  the platform creates the post, then hangs; the worker is SIGKILLed
                           while it waits and a new one is started at once (a supervisor).
                           Measured: from the kill, and from the moment the death is knowable
                           (the claim's deadline: the publish task's hard time limit plus a
                           margin, before which the worker might still be writing), to landed.
  write_failed_before_effect
                           the platform answers the write with a 502 page and creates nothing.
                           Measured: from the failed write to landed.

Each run asserts the invariant: exactly one post on the platform per publication. Takes
about five minutes of wall-clock time (the sweeps run on their real cadence). The database
named by DATABASE_URL is migrated and gets one fault account; nothing else is touched.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import django
from django.core.management import call_command
from django.utils import timezone

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devkit.sandbox import GraphSandbox  # noqa: E402  (no Django needed to start it)

# The product's modules are imported inside the functions that use them: the settings name
# the sandbox's address, known only once it runs, so django.setup() happens in main().
if TYPE_CHECKING:
    from publish.models import Channel, Publication


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the measurements as one JSON object")
    args = parser.parse_args()
    for name in ("DATABASE_URL", "CELERY_BROKER_URL"):
        if not os.environ.get(name, "").startswith(("postgres", "redis")):
            parser.error(f"{name} must point at PostgreSQL / Redis (the production shape)")

    sandbox = GraphSandbox()
    sandbox.start()
    var_dir = Path(tempfile.mkdtemp(prefix="landed-faults-"))
    # The embedded default's secrets (generated under var_dir); everything else as in production.
    os.environ.update(
        DJANGO_DEBUG="1",
        LANDED_VAR_DIR=str(var_dir),
        GRAPH_API_BASE_URL=sandbox.base_url,
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    django.setup()
    call_command("migrate", verbosity=0)
    processes = Processes(var_dir)
    try:
        processes.beat_start()
        channel = _fault_channel(sandbox)
        results = {
            "worker_killed_mid_write": _worker_killed(sandbox, channel, processes),
            "write_failed_before_effect": _write_failed(sandbox, channel, processes),
        }
    finally:
        processes.stop_all()
        sandbox.close()
    if args.json:
        print(json.dumps(results))
    else:
        for name, numbers in results.items():
            print(name + ": " + ", ".join(f"{key} {value}" for key, value in numbers.items()))
    return 0


class Processes:
    """The worker(s) and beat, as separate OS processes, logging under var_dir."""

    def __init__(self, var_dir: Path) -> None:
        self.var_dir = var_dir
        self.running: list[subprocess.Popen[bytes]] = []

    def _start(self, *args: str, log: str) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(  # noqa: S603 (our own fixed celery command line)
            [sys.executable, "-m", "celery", "-A", "config", *args],
            cwd=ROOT,
            env=dict(os.environ),
            stdout=(self.var_dir / log).open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.running.append(process)
        return process

    def worker_start(self) -> subprocess.Popen[bytes]:
        return self._start(
            "worker", "--pool=solo", "--without-gossip", "--without-mingle", "--loglevel=INFO", log="worker.log"
        )

    def beat_start(self) -> subprocess.Popen[bytes]:
        schedule = self.var_dir / "celerybeat-schedule"
        return self._start("beat", "--loglevel=INFO", "--schedule", str(schedule), log="beat.log")

    def kill(self, process: subprocess.Popen[bytes]) -> None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)

    def stop_all(self) -> None:
        for process in self.running:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    self.kill(process)


def _fault_channel(sandbox: GraphSandbox) -> Channel:
    from accounts.models import Account, Platform
    from publish.services import channel_bind

    account, _ = Account.objects.get_or_create(slug="faults", defaults={"name": "Fault Bikes"})
    user = sandbox.create_user(name="Fault Owner")
    page = sandbox.create_page(user["id"], name="Fault Bikes")
    return channel_bind(
        account=account,
        platform=Platform.FACEBOOK_PAGE,
        external_id=page["id"],
        name=page["name"],
        token=page["access_token"],
    )


def _publication_make(channel: Channel, n: str) -> Publication:
    from posting.models import Draft
    from publish.models import Publication
    from research.models import Article

    article = Article.objects.create(
        canonical_url=f"https://news.example/faults/{n}-{time.time()}",
        title="Fault Bikes opens in Leith",
        text="Fault Bikes opened a second shop in Leith on Monday.",
    )
    text = f"Fault Bikes opened a second shop in Leith on Monday. ({n} {time.time():.0f})"
    draft = Draft.objects.create(
        account=channel.account,
        article=article,
        platform=channel.platform,
        text=text,
        status=Draft.Status.APPROVED,
        gate_verdict=Draft.Verdict.PASSED,
    )
    return Publication.objects.create(
        account=channel.account,
        draft=draft,
        channel=channel,
        message=text,
        link_url=article.canonical_url,
        scheduled_for=timezone.now() - timedelta(seconds=1),
    )


def _worker_killed(sandbox: GraphSandbox, channel: Channel, processes: Processes) -> dict[str, float]:
    from publish.models import Publication
    from publish.tasks import publication_publish_task

    sandbox.inject(method="POST", path_regex=r"/\d+/feed$", kind="hang_after_create", seconds=600)
    publication = _publication_make(channel, "killed")
    worker = processes.worker_start()
    publication_publish_task.delay(publication.pk)
    _wait_for(lambda: len(sandbox.posts(page_id=channel.external_id)) == 1, timeout_s=120, what="the post created")
    processes.kill(worker)
    killed_at = time.time()
    processes.worker_start()  # the supervisor restarts it
    publication.refresh_from_db()
    claimed_at, deadline = publication.publishing_started_at, publication.publishing_deadline
    if claimed_at is None or deadline is None:
        raise SystemExit(f"publication {publication.pk} was never claimed")
    knowable_at = deadline.timestamp()
    _wait_for(
        lambda: Publication.objects.get(pk=publication.pk).status == Publication.Status.LANDED,
        timeout_s=900,
        what="the killed worker's post to land",
    )
    landed_at = time.time()
    _exactly_one_post(sandbox, channel, publication.pk)
    return {
        "s_from_kill_to_landed": round(landed_at - killed_at, 1),
        "s_from_knowable_to_landed": round(landed_at - knowable_at, 1),
        "s_claim_to_knowable": round(knowable_at - claimed_at.timestamp(), 1),
    }


def _write_failed(sandbox: GraphSandbox, channel: Channel, processes: Processes) -> dict[str, float]:
    from publish.models import Publication, PublishAttempt
    from publish.tasks import publication_publish_task

    sandbox.inject(method="POST", path_regex=r"/\d+/feed$", kind="html_502")
    publication = _publication_make(channel, "failed")
    publication_publish_task.delay(publication.pk)
    failed_write_at = _wait_for(
        lambda: (
            PublishAttempt.objects.filter(publication=publication, request_kind="fb_feed")
            .exclude(finished_at=None)
            .values_list("finished_at", flat=True)
            .first()
        ),
        timeout_s=120,
        what="the failed write",
    )
    _wait_for(
        lambda: Publication.objects.get(pk=publication.pk).status == Publication.Status.LANDED,
        timeout_s=900,
        what="the retried post to land",
    )
    landed_at = time.time()
    _exactly_one_post(sandbox, channel, publication.pk)
    writes = PublishAttempt.objects.filter(publication=publication, request_kind="fb_feed").count()
    return {"s_from_failed_write_to_landed": round(landed_at - failed_write_at.timestamp(), 1), "writes": writes}


def _exactly_one_post(sandbox: GraphSandbox, channel: Channel, publication_id: int) -> None:
    from publish.models import Publication

    message = Publication.objects.get(pk=publication_id).message
    posts = [post for post in sandbox.posts(page_id=channel.external_id) if post.get("message") == message]
    if len(posts) != 1:
        raise SystemExit(f"invariant broken: {len(posts)} posts for publication {publication_id}")


def _wait_for[T](condition: Callable[[], T | None], *, timeout_s: float, what: str) -> T:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    raise SystemExit(f"timed out after {timeout_s:.0f} s waiting for {what}")


if __name__ == "__main__":
    sys.exit(main())
