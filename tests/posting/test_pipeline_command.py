"""`manage.py pipeline`: every stage headless, ending in a post the sandbox shows live."""

from __future__ import annotations

import json
from collections.abc import Iterator
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from posting.demo import demo_seed
from publish.models import Publication
from publish.sandbox import GraphSandbox
from research.demo import demo_site_server
from research.devserver import StaticSiteServer

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_broker(settings) -> None:
    # As `make pipeline` runs it, with no broker: publish and reconcile run in the command.
    # With a broker the workers publish (tests/test_pipeline_worker.py).
    settings.CELERY_TASK_ALWAYS_EAGER = True


@pytest.fixture
def sandbox(settings) -> Iterator[GraphSandbox]:
    sb = GraphSandbox()
    sb.start()
    settings.GRAPH_API_BASE_URL = sb.base_url
    yield sb
    sb.close()


@pytest.fixture
def feeds(settings) -> Iterator[StaticSiteServer]:
    server = demo_site_server()
    settings.RESEARCH_ALLOW_HOSTS = [f"127.0.0.1:{server.port}"]
    yield server
    server.stop()


def test_the_demo_account_ends_with_landed_posts_read_back_from_the_sandbox(sandbox, feeds, settings, tmp_path):
    # given: the demo business make run seeds (feeds, sandbox channels, voice)
    settings.VAR_DIR = tmp_path
    login = demo_seed(feeds_url=feeds.base_url)

    # when: the headless pipeline runs, approving as the demo owner
    out = StringIO()
    call_command("pipeline", account=login.account.slug, approve_as=login.username, json=True, stdout=out)
    funnel = json.loads(out.getvalue().strip().splitlines()[-1])

    # then: every stage produced something, and posts landed
    assert funnel["articles"] > 0
    assert funnel["drafts"] > 0
    assert funnel["approved"] > 0
    assert funnel["landed"] >= 1
    live = {p["id"]: p["permalink_url"] for p in sandbox.posts()} | {m["id"]: m["permalink"] for m in sandbox.media()}
    for publication in Publication.objects.filter(status=Publication.Status.LANDED):
        # The permalink is the one the platform shows for that post...
        assert publication.permalink == live[publication.platform_post_id]
    # ...and it was learned by reading the post back, not from the publish response.
    reads = [r for r in sandbox.requests_log() if r["method"] == "GET" and "/p/" not in r["path"]]
    landed_ids = Publication.objects.filter(status=Publication.Status.LANDED).values_list("platform_post_id", flat=True)
    for post_id in landed_ids:
        assert any(r["path"].endswith(f"/{post_id}") for r in reads), post_id


def test_running_it_twice_publishes_nothing_twice(sandbox, feeds, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    login = demo_seed(feeds_url=feeds.base_url)
    call_command("pipeline", account=login.account.slug, approve_as=login.username, json=True, stdout=StringIO())
    posts_after_first = len(sandbox.posts()) + len(sandbox.media())

    call_command("pipeline", account=login.account.slug, approve_as=login.username, json=True, stdout=StringIO())

    assert len(sandbox.posts()) + len(sandbox.media()) == posts_after_first


def test_an_unknown_account_is_a_clear_error(db):
    with pytest.raises(CommandError, match="No account with slug"):
        call_command("pipeline", account="nope", stdout=StringIO())


def test_approving_as_a_non_member_is_refused(sandbox, feeds, settings, tmp_path, other_member):
    settings.VAR_DIR = tmp_path
    login = demo_seed(feeds_url=feeds.base_url)
    with pytest.raises(CommandError, match="not a member"):
        call_command("pipeline", account=login.account.slug, approve_as=other_member.username, stdout=StringIO())
