"""The walking product: every stage through a real Celery worker on Redis, with publish
and reconcile going over real HTTP to the Graph sandbox."""

from __future__ import annotations

import json
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from accounts.models import Account, Platform
from devkit.demo import demo_seed
from devkit.demo_feeds import AUDIO_FEED_PATH, demo_site_server
from devkit.devserver import StaticSiteServer
from devkit.sandbox import GraphSandbox
from posting.models import Draft
from posting.services import draft_approve
from posting.tasks import account_drafts_compose_task
from publish.models import Publication, PublishAttempt
from publish.services import channel_bind
from research.models import Article
from research.services import source_subscribe
from research.tasks import research_run_for_account_task
from tests import factories
from tests.worker import WorkerProcess, wait_until, worker_env

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def sandbox() -> Iterator[GraphSandbox]:
    sb = GraphSandbox()
    sb.start()
    yield sb
    sb.close()


@pytest.fixture
def feeds() -> Iterator[StaticSiteServer]:
    server = demo_site_server()
    yield server
    server.stop()


@pytest.fixture
def worker(sandbox: GraphSandbox, feeds: StaticSiteServer, tmp_path: Path) -> Iterator[WorkerProcess]:
    process = WorkerProcess(
        env=worker_env(
            GRAPH_API_BASE_URL=sandbox.base_url,
            RESEARCH_ALLOW_HOSTS=f"127.0.0.1:{feeds.port}",
        ),
        log_path=tmp_path / "worker.log",
    ).start()
    yield process
    process.stop()


def test_an_approved_draft_lands_through_a_real_worker(
    sandbox: GraphSandbox, feeds: StaticSiteServer, worker: WorkerProcess, settings
) -> None:
    # given: a hi-fi shop subscribed to the bundled audio-trade feed, with sandbox Facebook and Instagram channels
    settings.GRAPH_API_BASE_URL = sandbox.base_url
    settings.RESEARCH_ALLOW_HOSTS = [f"127.0.0.1:{feeds.port}"]
    account: Account = factories.account_create(name="Harbour Hi-Fi", slug="harbour-hifi", industry="audio retail")
    owner: User = factories.member_create(account=account)
    source_subscribe(account=account, url=f"{feeds.base_url}{AUDIO_FEED_PATH}")
    sandbox_user = sandbox.create_user(name="Owner")
    page = sandbox.create_page(sandbox_user["id"], name="Harbour Hi-Fi")
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
        name="@harbourhifi",
        token=page["access_token"],
    )

    # when: research and composing run on the worker
    research_run_for_account_task.delay(account.pk)
    wait_until(
        lambda: Article.objects.filter(extraction_status=Article.Extraction.OK).exists(),
        timeout=90,
        what=f"articles extracted by the worker\n{worker.log()}",
    )
    account_drafts_compose_task.delay(account.pk)
    draft = wait_until(
        lambda: Draft.objects.filter(
            account=account, platform=Platform.FACEBOOK_PAGE, gate_verdict=Draft.Verdict.PASSED
        ).first(),
        timeout=90,
        what=f"a Facebook draft passed by the gate on the worker\n{worker.log()}",
    )

    # and: the human approves it (the publish task is enqueued on commit)
    draft_approve(draft=draft, user=owner)

    # then: the worker publishes it and reconciles it until the sandbox shows it live
    publication = wait_until(
        lambda: Publication.objects.filter(draft=draft, status=Publication.Status.LANDED).first(),
        timeout=90,
        what=f"the publication to land\n{worker.log()}",
    )
    posts = sandbox.posts(page_id=page["id"])
    assert len(posts) == 1
    assert publication.platform_post_id == posts[0]["id"]
    # The permalink came from reading the post back, and is the platform's own.
    assert publication.permalink == posts[0]["permalink_url"]
    reads = [
        r for r in sandbox.requests_log() if r["method"] == "GET" and r["path"].endswith(publication.platform_post_id)
    ]
    assert reads, "landed without a read-back"
    assert not any(r["token_in_query"] for r in sandbox.requests_log())


def test_the_pipeline_command_with_a_broker_leaves_publishing_to_the_worker_and_waits(
    sandbox: GraphSandbox, feeds: StaticSiteServer, worker: WorkerProcess, settings, tmp_path: Path
) -> None:
    # given: the demo business, and a real worker on the broker
    settings.GRAPH_API_BASE_URL = sandbox.base_url
    settings.RESEARCH_ALLOW_HOSTS = [f"127.0.0.1:{feeds.port}"]
    settings.VAR_DIR = tmp_path
    login = demo_seed(feeds_url=feeds.base_url)

    # when: the pipeline runs against this deployment
    out = StringIO()
    call_command("pipeline", account=login.account.slug, approve_as=login.username, json=True, wait=120, stdout=out)
    funnel = json.loads(out.getvalue().strip().splitlines()[-1])

    # then: it returned only once posts had landed, and every request to the platform was the
    # worker's (a task id on each attempt): the command did not publish alongside it
    assert funnel["approved"] > 0
    assert funnel["landed"] >= 1
    attempts = PublishAttempt.objects.filter(publication__account=login.account)
    assert attempts.exists()
    assert not attempts.filter(task_id="").exists(), worker.log()
    assert not Publication.objects.filter(
        account=login.account, status__in=[Publication.Status.PUBLISHING, Publication.Status.PUBLISHED]
    ).exists()
