"""Reconcile: landed only when the platform shows the post live, over real HTTP to the sandbox."""

from __future__ import annotations

from datetime import timedelta

import pytest
import requests
from django.utils import timezone

from devkit.sandbox import GraphSandbox
from publish.models import Channel, Publication
from publish.services import publication_publish
from reconcile.models import EngagementSnapshot
from reconcile.services import (
    engagement_fetch,
    landed_recheck,
    publication_reconcile,
    publications_reconcile_due,
)
from tests.reconcile import fixtures
from tests.reconcile.fixtures import SandboxPage, publication_make

# Shared fixtures, bound here so pytest finds them in this module.
graph_sandbox = fixtures.graph_sandbox
sandbox_page = fixtures.sandbox_page

Status = Publication.Status
FEED = r"/\d+/feed$"


def _published(sandbox_page: SandboxPage, *, instagram: bool = False, n: int = 1) -> Publication:
    channel = sandbox_page.instagram if instagram else sandbox_page.facebook
    publication = publication_publish(publication_id=publication_make(channel=channel, n=n).pk)
    assert publication.status == Status.PUBLISHED
    return publication


def test_a_post_that_reads_with_lag_lands_on_a_later_read(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    # given: the platform answers 100/33 to the first two reads of a fresh post
    graph_sandbox.set_read_lag(reads=2)
    publication = _published(sandbox_page)

    # when / then: two lagging reads leave it published, the third lands it
    assert publication_reconcile(publication_id=publication.pk).status == Status.PUBLISHED
    assert publication_reconcile(publication_id=publication.pk).status == Status.PUBLISHED
    publication = publication_reconcile(publication_id=publication.pk)
    assert publication.status == Status.LANDED
    assert publication.read_count == 3
    [post] = graph_sandbox.posts(page_id=sandbox_page.page_id)
    assert publication.permalink == post["permalink_url"]


def test_a_post_shown_unpublished_is_not_landed(sandbox_page: SandboxPage, graph_sandbox: GraphSandbox) -> None:
    graph_sandbox.set_read_lag(unpublished_reads=1)
    publication = _published(sandbox_page)

    publication = publication_reconcile(publication_id=publication.pk)

    assert publication.status == Status.PUBLISHED
    assert publication.permalink == ""
    assert publication_reconcile(publication_id=publication.pk).status == Status.LANDED


def test_a_post_never_seen_live_becomes_unconfirmed_after_the_maximum_reads(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox, settings
) -> None:
    settings.RECONCILE_MAX_READS = 3
    graph_sandbox.set_read_lag(reads=50)
    publication = _published(sandbox_page)

    statuses = [publication_reconcile(publication_id=publication.pk).status for _ in range(3)]

    assert statuses == [Status.PUBLISHED, Status.PUBLISHED, Status.UNCONFIRMED]
    publication.refresh_from_db()
    assert publication.failure_kind == "unconfirmed"
    assert "3 reads" in publication.failure_reason
    assert publication.permalink == ""


def test_reads_are_spaced_by_the_minimum_interval(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox, settings
) -> None:
    settings.RECONCILE_MIN_INTERVAL_S = 60
    graph_sandbox.set_read_lag(reads=5)
    publication = _published(sandbox_page)

    publication_reconcile(publication_id=publication.pk)
    publication = publication_reconcile(publication_id=publication.pk)

    assert publication.read_count == 1
    assert publications_reconcile_due()["read"] == 0
    Publication.objects.filter(pk=publication.pk).update(last_read_at=timezone.now() - timedelta(seconds=61))
    assert publications_reconcile_due()["read"] == 1


def test_the_sweep_lands_published_posts_and_counts_them(sandbox_page: SandboxPage) -> None:
    _published(sandbox_page, n=1)
    _published(sandbox_page, instagram=True, n=2)

    counts = publications_reconcile_due()

    assert counts["read"] == 2
    assert counts["landed"] == 2
    assert _landed(sandbox_page.facebook.account, since=timezone.now() - timedelta(hours=1)) == 2


def test_an_unknown_write_is_matched_on_its_text_never_on_the_newest_post(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    # given: our write was lost after the post was created, then the owner posted by hand
    graph_sandbox.inject(method="POST", path_regex=FEED, kind="drop_after_create")
    publication = publication_make(channel=sandbox_page.facebook)
    publication = publication_publish(publication_id=publication.pk)
    manual = publication_make(channel=sandbox_page.facebook, n=2, message="Posted by hand, newer than ours")
    publication_publish(publication_id=manual.pk)

    # when
    publication = publication_reconcile(publication_id=publication.pk)

    # then: the match is our post, not the newest one
    ours = next(
        post for post in graph_sandbox.posts(page_id=sandbox_page.page_id) if post["message"] == publication.message
    )
    assert publication.status == Status.LANDED
    assert publication.platform_post_id == ours["id"]


def test_an_instagram_unknown_with_a_finished_container_is_retried_safely(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    # given: media_publish answered code 2 before publishing anything
    graph_sandbox.inject(method="POST", path_regex=r"/\d+/media_publish$", kind="error", code=2)
    publication = publication_make(channel=sandbox_page.instagram)
    publication = publication_publish(publication_id=publication.pk)
    assert publication.status == Status.UNKNOWN

    # when: the container reads FINISHED and the media list stays empty for three reads
    statuses = [publication_reconcile(publication_id=publication.pk).status for _ in range(3)]

    # then: only then is it rescheduled, keeping its container, and the retry lands once
    assert statuses == [Status.UNKNOWN, Status.UNKNOWN, Status.SCHEDULED]
    publication.refresh_from_db()
    assert publication.container_id
    publication = publication_publish(publication_id=publication.pk)
    assert publication_reconcile(publication_id=publication.pk).status == Status.LANDED
    assert len(graph_sandbox.media(ig_id=sandbox_page.instagram_id)) == 1
    assert len(graph_sandbox.containers(ig_id=sandbox_page.instagram_id)) == 1


def test_an_unknown_instagram_container_still_in_progress_goes_back_to_the_poller(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    graph_sandbox.set_container_plan(in_progress_polls=5)
    publication = publication_make(channel=sandbox_page.instagram)
    publication = publication_publish(publication_id=publication.pk)
    Publication.objects.filter(pk=publication.pk).update(status=Status.UNKNOWN)

    publication = publication_reconcile(publication_id=publication.pk)

    assert publication.status == Status.SCHEDULED
    assert publication.container_id


def test_a_landed_post_deleted_later_is_vanished(sandbox_page: SandboxPage, graph_sandbox: GraphSandbox) -> None:
    # given: two posts that landed a day ago; one was deleted since
    kept = publication_reconcile(publication_id=_published(sandbox_page, n=1).pk)
    deleted = publication_reconcile(publication_id=_published(sandbox_page, n=2).pk)
    assert {kept.status, deleted.status} == {Status.LANDED}
    a_day_ago = timezone.now() - timedelta(hours=25)
    Publication.objects.filter(pk__in=[kept.pk, deleted.pk]).update(landed_at=a_day_ago, last_read_at=a_day_ago)
    graph_sandbox.delete_post(deleted.platform_post_id)

    # when
    counts = landed_recheck()

    # then
    kept.refresh_from_db()
    deleted.refresh_from_db()
    assert counts == {"checked": 2, "live": 1, "vanished": 1, "errors": 0}
    assert kept.status == Status.LANDED
    assert deleted.status == Status.VANISHED
    assert deleted.failure_kind == "vanished"
    # Checked once: the next run leaves them alone.
    assert landed_recheck()["checked"] == 0


def test_a_post_landed_less_than_a_day_ago_is_not_rechecked(sandbox_page: SandboxPage) -> None:
    publication_reconcile(publication_id=_published(sandbox_page).pk)

    assert landed_recheck()["checked"] == 0


def test_engagement_is_snapshotted_for_recently_landed_posts(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    facebook = publication_reconcile(publication_id=_published(sandbox_page, n=1).pk)
    instagram = publication_reconcile(publication_id=_published(sandbox_page, instagram=True, n=2).pk)
    graph_sandbox.set_engagement(facebook.platform_post_id, reactions=12, comments=3)
    graph_sandbox.set_engagement(instagram.platform_post_id, reactions=40, comments=5)

    counts = engagement_fetch()

    assert counts == {"fetched": 2, "errors": 0}
    snapshots = {snap.publication_id: (snap.reactions, snap.comments) for snap in EngagementSnapshot.objects.all()}
    assert snapshots == {facebook.pk: (12, 3), instagram.pk: (40, 5)}
    # Fetched recently: the next run waits.
    assert engagement_fetch()["fetched"] == 0


def test_landed_count_is_per_account_and_window(sandbox_page: SandboxPage, other_account) -> None:
    publication = publication_reconcile(publication_id=_published(sandbox_page).pk)
    assert publication.status == Status.LANDED

    assert _landed(publication.account, since=timezone.now() - timedelta(hours=24)) == 1
    assert _landed(publication.account, since=timezone.now() + timedelta(seconds=1)) == 0
    assert _landed(other_account, since=timezone.now() - timedelta(hours=24)) == 0


def _landed(account, *, since) -> int:
    return Publication.objects.filter(account=account).landed(start=since).count()


def test_a_read_refused_for_a_dead_token_marks_the_channel_and_costs_no_read(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    publication = _published(sandbox_page)
    graph_sandbox.expire_token(sandbox_page.token)

    publication = publication_reconcile(publication_id=publication.pk)

    assert publication.status == Status.PUBLISHED
    assert publication.read_count == 0
    publication.channel.refresh_from_db()
    assert publication.channel.status == Channel.Status.NEEDS_RECONNECT


def test_a_throttled_read_holds_the_channels_reads_and_costs_no_read(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    # given: a published post whose read-back is throttled for 5 minutes
    publication = _published(sandbox_page)
    graph_sandbox.inject(method="GET", path_regex=r"/\d+_\d+$", kind="throttle", code=80001, minutes=5)

    # when
    publication = publication_reconcile(publication_id=publication.pk)

    # then: no read is counted, the channel is held, and nothing reads it until then
    assert publication.status == Status.PUBLISHED
    assert publication.read_count == 0
    publication.channel.refresh_from_db()
    assert publication.channel.throttled_until >= timezone.now() + timedelta(minutes=4)
    requests_before = len(graph_sandbox.requests_log())
    assert publications_reconcile_due()["read"] == 0
    assert publication_reconcile(publication_id=publication.pk).read_count == 0
    assert len(graph_sandbox.requests_log()) == requests_before


def test_a_throttled_engagement_read_holds_the_channel_for_the_rest_of_the_sweep(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    # given: two landed posts on one Page, and the Page's next read is throttled
    landed = [_published(sandbox_page, n=n) for n in (1, 2)]
    for publication in landed:
        assert publication_reconcile(publication_id=publication.pk).status == Status.LANDED
    graph_sandbox.inject(method="GET", path_regex=r"/\d+_\d+$", kind="throttle", code=80001, minutes=5)
    requests_before = len(graph_sandbox.requests_log())

    # when: engagement is fetched, and fetched again
    first, second = engagement_fetch(), engagement_fetch()

    # then: one refused read, no second request, the channel held, nothing snapshotted
    assert first == {"fetched": 0, "errors": 1}
    assert second == {"fetched": 0, "errors": 0}
    assert len(graph_sandbox.requests_log()) == requests_before + 1
    sandbox_page.facebook.refresh_from_db()
    assert sandbox_page.facebook.throttled_until >= timezone.now() + timedelta(minutes=4)
    assert not EngagementSnapshot.objects.exists()


def _landed_a_day_ago(sandbox_page: SandboxPage) -> list[Publication]:
    landed = [publication_reconcile(publication_id=_published(sandbox_page, n=n).pk) for n in (1, 2)]
    assert {publication.status for publication in landed} == {Status.LANDED}
    a_day_ago = timezone.now() - timedelta(hours=25)
    Publication.objects.filter(pk__in=[p.pk for p in landed]).update(landed_at=a_day_ago, last_read_at=a_day_ago)
    return landed


def test_a_throttled_recheck_holds_the_channel_for_the_rest_of_the_sweep_and_vanishes_nothing(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    # given: two posts on one Page due a recheck, and the Page's next read is throttled
    landed = _landed_a_day_ago(sandbox_page)
    graph_sandbox.inject(method="GET", path_regex=r"/\d+_\d+$", kind="throttle", code=80001, minutes=5)
    requests_before = len(graph_sandbox.requests_log())

    # when
    counts = landed_recheck()

    # then: one refused read, the second post not even asked about, both still landed
    assert counts == {"checked": 1, "live": 0, "vanished": 0, "errors": 1}
    assert len(graph_sandbox.requests_log()) == requests_before + 1
    assert {p.status for p in Publication.objects.filter(pk__in=[p.pk for p in landed])} == {Status.LANDED}
    sandbox_page.facebook.refresh_from_db()
    assert sandbox_page.facebook.throttled_until >= timezone.now() + timedelta(minutes=4)


def test_a_failed_read_in_a_sweep_costs_only_its_own_post(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    # given: two posts on one Page; the platform fails one read with a server error
    landed = _landed_a_day_ago(sandbox_page)
    graph_sandbox.inject(method="GET", path_regex=r"/\d+_\d+$", kind="html_502")

    # when / then: the other post is still read, and the channel is not held
    assert landed_recheck() == {"checked": 2, "live": 1, "vanished": 0, "errors": 1}
    graph_sandbox.inject(method="GET", path_regex=r"/\d+_\d+$", kind="html_502")
    assert engagement_fetch() == {"fetched": 1, "errors": 1}
    assert {p.status for p in Publication.objects.filter(pk__in=[p.pk for p in landed])} == {Status.LANDED}
    sandbox_page.facebook.refresh_from_db()
    assert sandbox_page.facebook.throttled_until is None
    assert sandbox_page.facebook.status == Channel.Status.CONNECTED


def test_an_unknown_write_the_platform_stored_with_changed_text_is_still_found_not_reposted(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    # given: our write's answer was lost, and the platform kept our post with its trailing
    # link dropped and an apostrophe rewritten (the sandbox keeps text verbatim, so the
    # "platform's version" is posted directly and our own write fails before creating anything)
    text = "Harbour Bikes' second shop opens in Leith on Monday, with 12 mechanics on hand. https://news.example/x"
    graph_sandbox.inject(method="POST", path_regex=FEED, kind="error", code=2)
    publication = publication_publish(publication_id=publication_make(channel=sandbox_page.facebook, message=text).pk)
    assert publication.status == Status.UNKNOWN
    stored = "Harbour Bikes\u2019 second shop opens in Leith on Monday, with 12 mechanics on hand."
    response = requests.post(
        f"{graph_sandbox.base_url}/v26.0/{sandbox_page.page_id}/feed",
        data={"message": stored, "link": publication.link_url},
        headers={"Authorization": f"Bearer {sandbox_page.token}"},
        timeout=5,
    )
    assert response.status_code == 200

    # when: reconcile looks for it
    publication = publication_reconcile(publication_id=publication.pk)

    # then: it is recognised as ours and lands; nothing is posted again
    assert publication.status == Status.LANDED
    assert publication.platform_post_id == response.json()["id"]
    assert len(graph_sandbox.posts(page_id=sandbox_page.page_id)) == 1


def test_a_different_post_in_the_window_is_not_taken_for_ours(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    graph_sandbox.inject(method="POST", path_regex=FEED, kind="error", code=2)
    publication = publication_publish(publication_id=publication_make(channel=sandbox_page.facebook).pk)
    requests.post(
        f"{graph_sandbox.base_url}/v26.0/{sandbox_page.page_id}/feed",
        data={"message": "Closed on Sunday for the regional cycle race. See you Monday!"},
        headers={"Authorization": f"Bearer {sandbox_page.token}"},
        timeout=5,
    )

    publication = publication_reconcile(publication_id=publication.pk)

    assert publication.status == Status.UNKNOWN
    assert publication.platform_post_id == ""


def test_an_unreadable_channel_token_counts_as_a_missed_read_not_a_crash(sandbox_page: SandboxPage) -> None:
    publication = _published(sandbox_page)
    Channel.objects.filter(pk=sandbox_page.facebook.pk).update(token_ciphertext="not-a-fernet-token")

    publication = publication_reconcile(publication_id=publication.pk)

    assert publication.status == Status.PUBLISHED
    assert publication.read_count == 1
    assert publication.failure_reason == "channel token unreadable"


def test_a_bug_while_building_the_provider_is_not_mistaken_for_an_unreadable_token(
    sandbox_page: SandboxPage,
) -> None:
    publication = _published(sandbox_page)
    # A platform no provider serves: a programming error, which must surface.
    Channel.objects.filter(pk=sandbox_page.facebook.pk).update(platform="myspace")

    with pytest.raises(KeyError):
        publication_reconcile(publication_id=publication.pk)
