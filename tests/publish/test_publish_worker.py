"""Issue 5's incident test: a real Celery worker killed with SIGKILL after the platform created
the post but before our database recorded it. After restart and reconcile there is exactly
one post, and the publication is landed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from config.celery_app import app as celery_app
from devkit.sandbox import GraphSandbox
from publish.models import Publication, PublishAttempt
from publish.services import STALE_MARGIN_S, publication_publish, publications_publish_due
from publish.tasks import publication_publish_task
from reconcile.tasks import publication_reconcile_task
from tests.reconcile import fixtures
from tests.reconcile.fixtures import SandboxPage, publication_make
from tests.worker import worker_forget, worker_spawn

graph_sandbox = fixtures.graph_sandbox
sandbox_page = fixtures.sandbox_page

Status = Publication.Status


# Generous: the wait ends as soon as the condition holds. A worker's start and first task took
# over 30 s once on a 2-core machine loaded by other work (CI, 2 Dec 2026); what these tests
# check is what happens, not how fast.
def _wait_for(condition: Callable[[], object], *, timeout_s: float = 90.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError("condition not met in time")


@pytest.fixture
def start_worker(graph_sandbox: GraphSandbox) -> Iterator[Callable[[], subprocess.Popen]]:
    """Start `celery -A config worker` on the test database and this test's broker db."""
    celery_app.control.purge()
    database = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DATABASE_URL": (
            f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{connection.settings_dict['NAME']}"
        ),
        "GRAPH_API_BASE_URL": graph_sandbox.base_url,
        # Long enough that the worker is still waiting for the hung answer when it is killed.
        "GRAPH_TIMEOUT_S": "60",
        "RECONCILE_MIN_INTERVAL_S": "0",
    }
    started: list[subprocess.Popen] = []

    def start() -> subprocess.Popen:
        process = worker_spawn(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--pool=solo",
                "--without-mingle",
                "--without-gossip",
                "--loglevel=WARNING",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
        )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        worker_forget(process)
    celery_app.control.purge()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_after_the_post_was_created_leads_to_one_landed_post(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox, start_worker: Callable[[], subprocess.Popen]
) -> None:
    # given: the platform creates the post, then takes a minute to answer
    graph_sandbox.inject(method="POST", path_regex=r"/\d+/feed$", kind="hang_after_create", seconds=120)
    publication = publication_make(channel=sandbox_page.facebook)
    worker = start_worker()

    # when: the worker publishes and is SIGKILLed while waiting for the answer
    publication_publish_task.delay(publication.pk)
    _wait_for(lambda: len(graph_sandbox.posts(page_id=sandbox_page.page_id)) == 1)
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)

    # then: our database knows a write went out (the fence) but not its result
    publication.refresh_from_db()
    assert publication.status == Status.PUBLISHING
    assert publication.platform_post_id == ""
    assert PublishAttempt.objects.get(publication=publication, request_kind="fb_feed").outcome == "sent"

    # and the claim carries its deadline: the publish task's hard limit plus a margin, before
    # which the sweep leaves it alone (the worker could still be at work)
    assert publication.publishing_deadline - publication.publishing_started_at == timedelta(
        seconds=settings.PUBLISH_TASK_TIME_LIMIT + STALE_MARGIN_S
    )
    assert publications_publish_due()["stale_to_unknown"] == 0

    # when: the deadline passes (time passes), the sweep runs, a new worker reconciles,
    # and the original task message is delivered again
    Publication.objects.filter(pk=publication.pk).update(publishing_deadline=timezone.now() - timedelta(seconds=1))
    assert publications_publish_due()["stale_to_unknown"] == 1
    start_worker()
    publication_reconcile_task.delay(publication.pk)
    _wait_for(lambda: Publication.objects.get(pk=publication.pk).status == Status.LANDED)
    # A marker behind the redelivery in the queue: once it is done, so is the redelivery
    # (one solo worker takes tasks in order).
    marker = publication_publish(publication_id=publication_make(channel=sandbox_page.facebook, n=2).pk)
    publication_publish_task.delay(publication.pk)
    publication_reconcile_task.delay(marker.pk)
    _wait_for(lambda: Publication.objects.get(pk=marker.pk).status == Status.LANDED)

    # then: one post, ours, landed with the permalink read back; no second write was sent
    [post] = [
        post for post in graph_sandbox.posts(page_id=sandbox_page.page_id) if post["id"] != marker.platform_post_id
    ]
    publication.refresh_from_db()
    assert publication.status == Status.LANDED
    assert publication.platform_post_id == post["id"]
    assert publication.permalink == post["permalink_url"]
    assert PublishAttempt.objects.filter(publication=publication, request_kind="fb_feed").count() == 1


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_write_that_failed_before_taking_effect_is_retried_by_the_worker_without_a_sweep(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox, start_worker: Callable[[], subprocess.Popen]
) -> None:
    # given: the platform answers the first write with a 502 page and creates nothing
    graph_sandbox.inject(method="POST", path_regex=r"/\d+/feed$", kind="html_502")
    publication = publication_make(channel=sandbox_page.facebook)
    start_worker()

    # when: the worker publishes, and no sweep runs at all
    publication_publish_task.delay(publication.pk)

    # then: reconcile's own follow-ups look for the post over several listings, find none,
    # and the retry lands: one post, two writes, the listings in between
    _wait_for(lambda: Publication.objects.get(pk=publication.pk).status == Status.LANDED)
    assert len(graph_sandbox.posts(page_id=sandbox_page.page_id)) == 1
    assert PublishAttempt.objects.filter(publication=publication, request_kind="fb_feed").count() == 2
    listings = [
        row
        for row in graph_sandbox.requests_log()
        if row["method"] == "GET" and row["path"].endswith(f"/{sandbox_page.page_id}/published_posts")
    ]
    assert len(listings) >= 3
