"""Publishing exactly once, over real HTTP against the Graph sandbox."""

from __future__ import annotations

import json
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from accounts.models import Platform
from config.celery_app import app as celery_app
from devkit.sandbox import GraphSandbox
from publish.errors import DraftNotApproved, NoConnectedChannel
from publish.models import Channel, Publication, PublishAttempt
from publish.services import (
    channel_bind,
    containers_poll,
    publication_publish,
    publication_schedule,
    publications_publish_due,
)
from publish.tasks import publication_publish_task
from reconcile.services import publication_reconcile
from tests import factories
from tests.reconcile import fixtures
from tests.reconcile.fixtures import SandboxPage, publication_make

# Shared fixtures, bound here so pytest finds them in this module.
graph_sandbox = fixtures.graph_sandbox
sandbox_page = fixtures.sandbox_page

Status = Publication.Status
FEED = r"/\d+/feed$"
MEDIA_PUBLISH = r"/\d+/media_publish$"


def _reconcile_until_settled(publication: Publication, reads: int = 6) -> Publication:
    for _ in range(reads):
        publication = publication_reconcile(publication_id=publication.pk)
        if publication.status not in {Status.PUBLISHED, Status.UNKNOWN}:
            break
    return publication


# --- scheduling ---------------------------------------------------------------------------


def test_it_schedules_an_approved_draft_once_with_its_text_frozen(sandbox_page: SandboxPage, account) -> None:
    draft = factories.draft_create(account=account, platform=Platform.FACEBOOK_PAGE, status="approved")

    first = publication_schedule(draft=draft)
    second = publication_schedule(draft=draft)

    assert first.pk == second.pk
    assert first.status == Status.SCHEDULED
    assert first.channel == sandbox_page.facebook
    assert (first.message, first.link_url) == (draft.text, draft.link_url)
    assert first.scheduled_for <= timezone.now()


def test_it_refuses_to_schedule_a_draft_that_is_not_approved(sandbox_page: SandboxPage, account) -> None:
    draft = factories.draft_create(account=account, platform=Platform.FACEBOOK_PAGE, status="gated")

    with pytest.raises(DraftNotApproved):
        publication_schedule(draft=draft)
    assert not Publication.objects.exists()


def test_it_refuses_to_schedule_without_a_connected_channel(sandbox_page: SandboxPage, account) -> None:
    Channel.objects.filter(pk=sandbox_page.instagram.pk).update(status=Channel.Status.NEEDS_RECONNECT)
    draft = factories.draft_create(account=account, platform=Platform.INSTAGRAM, status="approved")

    with pytest.raises(NoConnectedChannel):
        publication_schedule(draft=draft)


# --- happy paths ------------------------------------------------------------------------


def test_a_facebook_post_lands_with_the_permalink_read_back(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    publication = publication_make(channel=sandbox_page.facebook)

    publication = publication_publish(publication_id=publication.pk, task_id="task-1")

    assert publication.status == Status.PUBLISHED
    [post] = graph_sandbox.posts(page_id=sandbox_page.page_id)
    assert publication.platform_post_id == post["id"]
    assert publication.permalink == ""  # the publish answer is a receipt, not evidence

    publication = publication_reconcile(publication_id=publication.pk)

    assert publication.status == Status.LANDED
    assert publication.permalink == post["permalink_url"]
    assert publication.landed_at is not None
    reads = [entry for entry in graph_sandbox.requests_log() if entry["method"] == "GET"]
    assert any(entry["path"].endswith(post["id"]) for entry in reads)


def test_an_instagram_post_lands_through_a_saved_container(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    publication = publication_make(channel=sandbox_page.instagram)

    publication = publication_publish(publication_id=publication.pk)

    assert publication.status == Status.PUBLISHED
    [media] = graph_sandbox.media(ig_id=sandbox_page.instagram_id)
    assert publication.platform_post_id == media["id"]
    assert publication.container_id
    kinds = list(publication.attempts.values_list("request_kind", flat=True))
    assert kinds.index("ig_container_create") < kinds.index("ig_media_publish")

    publication = publication_reconcile(publication_id=publication.pk)

    assert publication.status == Status.LANDED
    assert publication.permalink == media["permalink"]


def test_a_facebook_photo_without_a_link_lands_under_its_post_id(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    publication = publication_make(channel=sandbox_page.facebook)
    Publication.objects.filter(pk=publication.pk).update(link_url="", image_url="https://news.example/lead.jpg")

    publication = publication_publish(publication_id=publication.pk)
    publication = publication_reconcile(publication_id=publication.pk)

    [post] = graph_sandbox.posts(page_id=sandbox_page.page_id)
    assert publication.attempts.get().request_kind == "fb_photo"
    assert publication.platform_post_id == post["id"]
    assert publication.status == Status.LANDED


def test_each_request_is_recorded_with_what_was_sent_and_never_the_token(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    publication = publication_make(channel=sandbox_page.facebook)

    publication = publication_publish(publication_id=publication.pk, task_id="celery-task-7")

    [attempt] = PublishAttempt.objects.filter(publication=publication)
    assert attempt.request_kind == "fb_feed"
    assert attempt.task_id == "celery-task-7"
    assert attempt.http_status == 200
    assert attempt.outcome == "ok"
    assert attempt.request_summary["params"]["message"] == publication.message
    assert attempt.response_summary["body"]["id"] == publication.platform_post_id
    recorded = json.dumps([attempt.request_summary, attempt.response_summary])
    assert sandbox_page.token not in recorded
    assert "appsecret_proof" not in recorded
    assert not any(entry["token_in_query"] for entry in graph_sandbox.requests_log())


# --- unknown outcomes: never a second post ---------------------------------------------


@pytest.mark.parametrize("kind", ["500_after_create", "drop_after_create", "hang_after_create"])
def test_a_write_that_took_effect_without_an_answer_lands_once(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox, kind: str
) -> None:
    # given: the platform creates the post, then answers 500, drops the connection, or hangs
    graph_sandbox.inject(method="POST", path_regex=FEED, kind=kind, seconds=5)
    publication = publication_make(channel=sandbox_page.facebook)

    # when: we publish, then reconcile, then the publish task is delivered again
    publication = publication_publish(publication_id=publication.pk)
    assert publication.status == Status.UNKNOWN
    assert publication.platform_post_id == ""
    publication = _reconcile_until_settled(publication)
    publication_publish(publication_id=publication.pk)

    # then: exactly one post exists, and it is ours, landed
    [post] = graph_sandbox.posts(page_id=sandbox_page.page_id)
    publication.refresh_from_db()
    assert publication.status == Status.LANDED
    assert publication.platform_post_id == post["id"]
    assert publication.permalink == post["permalink_url"]
    assert PublishAttempt.objects.filter(publication=publication, request_kind="fb_feed").count() == 1


@pytest.mark.parametrize("kind", ["html_502", "non_json", "ok_without_id"])
def test_a_garbage_answer_to_a_write_is_an_unknown_outcome(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox, kind: str
) -> None:
    graph_sandbox.inject(method="POST", path_regex=FEED, kind=kind)
    publication = publication_make(channel=sandbox_page.facebook)

    publication = publication_publish(publication_id=publication.pk)

    assert publication.status == Status.UNKNOWN
    assert publication.failure_kind == "unknown_outcome"
    assert publication.failure_reason


def test_an_unknown_write_that_did_not_land_is_retried_only_after_several_empty_reads(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    # given: a 200 without an id, and nothing created
    graph_sandbox.inject(method="POST", path_regex=FEED, kind="ok_without_id")
    publication = publication_make(channel=sandbox_page.facebook)
    publication = publication_publish(publication_id=publication.pk)

    # when: reconcile lists the page twice and finds nothing
    for _ in range(2):
        publication = publication_reconcile(publication_id=publication.pk)
    # then: still unknown (no retry yet)
    assert publication.status == Status.UNKNOWN

    # when: the third empty listing
    publication = publication_reconcile(publication_id=publication.pk)
    # then: safe to retry, and the retry lands exactly one post
    assert publication.status == Status.SCHEDULED
    publication = publication_publish(publication_id=publication.pk)
    publication = publication_reconcile(publication_id=publication.pk)
    assert publication.status == Status.LANDED
    assert len(graph_sandbox.posts(page_id=sandbox_page.page_id)) == 1


@pytest.mark.django_db(transaction=True)
def test_two_workers_publishing_one_publication_at_once_make_one_post(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    # given: two deliveries of the publish task, run by two workers released at the same
    # instant on separate database connections (in-process: the broker is not the subject)
    publication = publication_make(channel=sandbox_page.facebook)
    barrier = threading.Barrier(2)
    results: list[str] = []

    def worker() -> None:
        try:
            barrier.wait()
            results.append(publication_publish_task.apply(args=(publication.pk,)).state)
        finally:
            connection.close()

    # when
    celery_app.conf.task_always_eager = True
    try:
        threads = [threading.Thread(target=worker) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
    finally:
        celery_app.conf.task_always_eager = False

    # then: one post, one write, both tasks succeeded, and the chained read-back landed it
    assert len(graph_sandbox.posts(page_id=sandbox_page.page_id)) == 1
    assert PublishAttempt.objects.filter(publication=publication, request_kind="fb_feed").count() == 1
    publication.refresh_from_db()
    assert publication.status == Status.LANDED
    assert results == ["SUCCESS", "SUCCESS"]


# --- throttles, dead tokens, permanent errors -------------------------------------------


def test_a_throttled_publication_waits_past_the_regain_time_with_its_channel(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    graph_sandbox.inject(method="POST", path_regex=FEED, kind="throttle", code=80001, minutes=7)
    publication = publication_make(channel=sandbox_page.facebook, n=1)
    neighbour = publication_make(channel=sandbox_page.facebook, n=2)
    before = timezone.now()

    publication = publication_publish(publication_id=publication.pk)

    assert publication.status == Status.SCHEDULED
    assert publication.failure_kind == "throttled"
    assert publication.scheduled_for >= before + timedelta(minutes=7)
    neighbour.refresh_from_db()
    assert neighbour.scheduled_for >= before + timedelta(minutes=7)
    assert graph_sandbox.posts(page_id=sandbox_page.page_id) == []
    # Not due yet: publishing it again now does nothing.
    assert publication_publish(publication_id=publication.pk).status == Status.SCHEDULED
    assert PublishAttempt.objects.filter(publication=publication).count() == 1


def test_work_scheduled_while_the_channel_is_throttled_waits_for_the_regain_time(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox, account
) -> None:
    # given: the Page was throttled for 7 minutes by an earlier publish
    graph_sandbox.inject(method="POST", path_regex=FEED, kind="throttle", code=80001, minutes=7)
    before = timezone.now()
    publication_publish(publication_id=publication_make(channel=sandbox_page.facebook, n=1).pk)
    requests_before = len(graph_sandbox.requests_log())

    # when: a draft is approved during the pause, and a publication already due is delivered
    draft = factories.draft_create(account=account, platform=Platform.FACEBOOK_PAGE, status="approved")
    scheduled = publication_schedule(draft=draft)
    due_now = publication_publish(publication_id=publication_make(channel=sandbox_page.facebook, n=2).pk)

    # then: neither sends a request; both wait past the regain time
    assert scheduled.scheduled_for >= before + timedelta(minutes=7)
    assert due_now.status == Status.SCHEDULED
    assert due_now.scheduled_for >= before + timedelta(minutes=7)
    assert len(graph_sandbox.requests_log()) == requests_before
    assert not PublishAttempt.objects.filter(publication=due_now).exists()


def test_usage_near_the_limit_pauses_the_channels_other_work(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    # given: the platform reports 95% of the Page's business-use-case budget used
    graph_sandbox.set_usage(business_call_count=95)
    publication = publication_make(channel=sandbox_page.facebook, n=1)
    neighbour = publication_make(channel=sandbox_page.facebook, n=2)

    # when: one publication goes out
    assert publication_publish(publication_id=publication.pk).status == Status.PUBLISHED

    # then: the next one waits instead of pushing the Page into a throttle
    neighbour.refresh_from_db()
    assert neighbour.scheduled_for >= timezone.now() + timedelta(minutes=14)
    assert publication_publish(publication_id=neighbour.pk).status == Status.SCHEDULED
    assert len(graph_sandbox.posts(page_id=sandbox_page.page_id)) == 1


def test_an_expired_token_marks_the_channel_and_the_publication_waits(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox, account
) -> None:
    # given: the platform answers 190/463
    graph_sandbox.inject(method="POST", path_regex=FEED, kind="token_expired")
    publication = publication_make(channel=sandbox_page.facebook)

    # when
    publication = publication_publish(publication_id=publication.pk)

    # then: the channel needs reconnecting and the publication waits (not failed)
    channel = Channel.objects.get(pk=sandbox_page.facebook.pk)
    assert channel.status == Channel.Status.NEEDS_RECONNECT
    assert "190" in channel.status_reason
    assert publication.status == Status.SCHEDULED
    assert publication.failure_kind == "needs_reconnect"
    assert publications_publish_due()["due"] == 0

    # when: the customer reconnects
    channel_bind(
        account=account,
        platform=Platform.FACEBOOK_PAGE,
        external_id=sandbox_page.page_id,
        name="Harbour Bikes",
        token=sandbox_page.token,
    )

    # then: it is due again and publishes
    assert publication_publish(publication_id=publication.pk).status == Status.PUBLISHED


def test_a_permanent_error_fails_the_publication_with_its_reason(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    graph_sandbox.inject(method="POST", path_regex=FEED, kind="error", code=100, message="(#100) Invalid link")
    publication = publication_make(channel=sandbox_page.facebook)

    publication = publication_publish(publication_id=publication.pk)

    assert publication.status == Status.FAILED
    assert publication.failure_kind == "permanent"
    assert "Invalid link" in publication.failure_reason
    attempt = publication.attempts.get()
    assert (attempt.http_status, attempt.error_code, attempt.outcome) == (400, 100, "permanent")


def test_a_refused_connection_is_retried_later_not_unknown(sandbox_page: SandboxPage, settings) -> None:
    # Nothing listens on port 9 of localhost: the request was never sent.
    settings.GRAPH_API_BASE_URL = "http://127.0.0.1:9"
    publication = publication_make(channel=sandbox_page.facebook)

    publication = publication_publish(publication_id=publication.pk)

    assert publication.status == Status.SCHEDULED
    assert publication.failure_kind == "transient"
    assert publication.scheduled_for > timezone.now()


# --- Instagram containers ---------------------------------------------------------------


def test_a_slow_container_is_left_for_the_poller_and_then_published(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    graph_sandbox.set_container_plan(in_progress_polls=2)
    publication = publication_make(channel=sandbox_page.instagram)

    publication = publication_publish(publication_id=publication.pk)

    assert publication.status == Status.SCHEDULED
    assert publication.container_id
    assert publication.scheduled_for > timezone.now()
    assert graph_sandbox.media(ig_id=sandbox_page.instagram_id) == []

    polls = []
    for _ in range(3):
        Publication.objects.filter(pk=publication.pk).update(scheduled_for=timezone.now())
        polls.append(containers_poll())
    publication.refresh_from_db()
    assert publication.status == Status.PUBLISHED
    assert [poll["published"] for poll in polls] == [0, 1, 0]
    assert len(graph_sandbox.media(ig_id=sandbox_page.instagram_id)) == 1
    assert PublishAttempt.objects.filter(publication=publication, request_kind="ig_container_create").count() == 1


@pytest.mark.parametrize("outcome", ["ERROR", "EXPIRED"])
def test_an_unusable_container_is_recreated_a_few_times_then_failed(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox, outcome: str
) -> None:
    graph_sandbox.set_container_plan(outcome=outcome, error_subcode=2207003)
    publication = publication_make(channel=sandbox_page.instagram)

    publication = publication_publish(publication_id=publication.pk)
    assert publication.status == Status.SCHEDULED
    assert publication.container_id == ""
    for _ in range(2):
        publication = publication_publish(publication_id=publication.pk)

    assert publication.status == Status.FAILED
    assert publication.failure_kind == "container_unusable"
    assert graph_sandbox.media(ig_id=sandbox_page.instagram_id) == []


def test_a_lost_media_publish_answer_is_found_through_the_container(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    graph_sandbox.inject(method="POST", path_regex=MEDIA_PUBLISH, kind="drop_after_create")
    publication = publication_make(channel=sandbox_page.instagram)

    publication = publication_publish(publication_id=publication.pk)
    assert publication.status == Status.UNKNOWN
    publication = _reconcile_until_settled(publication)

    [media] = graph_sandbox.media(ig_id=sandbox_page.instagram_id)
    assert publication.status == Status.LANDED
    assert publication.platform_post_id == media["id"]


def test_a_phantom_failure_on_media_publish_lands_without_a_second_post(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    # given: media_publish makes the media live, then answers 4/2207051 ("restrict activity")
    graph_sandbox.inject(
        method="POST", path_regex=MEDIA_PUBLISH, kind="error", code=4, subcode=2207051, after_create=True
    )
    publication = publication_make(channel=sandbox_page.instagram)

    # when
    publication = publication_publish(publication_id=publication.pk)
    assert publication.status == Status.UNKNOWN
    publication = _reconcile_until_settled(publication)
    publication_publish(publication_id=publication.pk)

    # then
    [media] = graph_sandbox.media(ig_id=sandbox_page.instagram_id)
    publication.refresh_from_db()
    assert publication.status == Status.LANDED
    assert publication.platform_post_id == media["id"]


def test_a_container_the_platform_keeps_not_finding_is_replaced(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    graph_sandbox.inject(method="POST", path_regex=MEDIA_PUBLISH, kind="error", code=24, subcode=2207008, times=2)
    publication = publication_make(channel=sandbox_page.instagram)

    publication = publication_publish(publication_id=publication.pk)
    first_container = publication.container_id
    assert (publication.status, publication.failure_kind) == (Status.SCHEDULED, "transient")
    Publication.objects.filter(pk=publication.pk).update(scheduled_for=timezone.now())
    publication = publication_publish(publication_id=publication.pk)
    assert (publication.status, publication.container_id) == (Status.SCHEDULED, "")
    publication = publication_publish(publication_id=publication.pk)

    assert publication.status == Status.PUBLISHED
    assert publication.container_id != first_container
    assert len(graph_sandbox.media(ig_id=sandbox_page.instagram_id)) == 1


def test_an_exhausted_instagram_quota_waits_before_making_a_container(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    graph_sandbox.set_quota(total=25, used=25)
    publication = publication_make(channel=sandbox_page.instagram)

    publication = publication_publish(publication_id=publication.pk)

    assert publication.status == Status.SCHEDULED
    assert publication.failure_kind == "throttled"
    assert publication.scheduled_for > timezone.now() + timedelta(minutes=30)
    assert graph_sandbox.containers(ig_id=sandbox_page.instagram_id) == []
    # The quota limits publishing only: reading the account back is not held.
    sandbox_page.instagram.refresh_from_db()
    assert sandbox_page.instagram.throttled_until is None


def test_a_throttled_media_publish_does_not_lose_its_container(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    graph_sandbox.inject(method="POST", path_regex=MEDIA_PUBLISH, kind="error", code=9, subcode=2207042)
    publication = publication_make(channel=sandbox_page.instagram)

    publication = publication_publish(publication_id=publication.pk)

    assert publication.status == Status.SCHEDULED
    assert publication.failure_kind == "throttled"
    assert publication.container_id
    assert publication.scheduled_for > timezone.now() + timedelta(minutes=30)


# --- sweeps -----------------------------------------------------------------------------


def test_a_claim_abandoned_by_a_dead_worker_becomes_unknown(sandbox_page: SandboxPage) -> None:
    publication = publication_make(channel=sandbox_page.facebook)
    Publication.objects.filter(pk=publication.pk).update(
        status=Status.PUBLISHING, publishing_started_at=timezone.now() - timedelta(hours=1)
    )

    counts = publications_publish_due()

    publication.refresh_from_db()
    assert counts["stale_to_unknown"] == 1
    assert publication.status == Status.UNKNOWN
    assert publication.failure_kind == "worker_lost"


def test_the_due_sweep_skips_future_paused_and_disconnected_work(sandbox_page: SandboxPage, account) -> None:
    due = publication_make(channel=sandbox_page.facebook, n=1)
    future = publication_make(channel=sandbox_page.facebook, n=2)
    Publication.objects.filter(pk=future.pk).update(scheduled_for=timezone.now() + timedelta(hours=1))
    waiting = publication_make(channel=sandbox_page.instagram, n=3)
    Channel.objects.filter(pk=sandbox_page.instagram.pk).update(status=Channel.Status.NEEDS_RECONNECT)

    from publish import selectors

    due_ids = set(selectors.publications_due(now=timezone.now(), with_container=False).values_list("pk", flat=True))
    assert due_ids == {due.pk}
    assert waiting.pk not in due_ids
    account.paused = True
    account.save()
    assert not selectors.publications_due(now=timezone.now(), with_container=False).exists()


def test_the_due_sweep_publishes_and_reads_back_through_the_tasks(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox, django_capture_on_commit_callbacks
) -> None:
    # given: tasks run in-process, as in the embedded default
    publication = publication_make(channel=sandbox_page.facebook)
    celery_app.conf.task_always_eager = True
    try:
        # when: the cron sweep runs and its enqueued tasks execute after commit
        with django_capture_on_commit_callbacks(execute=True):
            counts = publications_publish_due()
    finally:
        celery_app.conf.task_always_eager = False

    # then: the publish task published it and chained the reconcile task, which landed it
    publication.refresh_from_db()
    assert counts == {"due": 1, "enqueued": 1, "stale_to_unknown": 0}
    assert publication.status == Status.LANDED
    assert len(graph_sandbox.posts(page_id=sandbox_page.page_id)) == 1
