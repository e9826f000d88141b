"""Previews (issue 11, item 3) and a History that answers (item 4): each draft as its platform
shows it with counts against publish/limits.py and the source's outlet, title, date and link;
landed posts with permalink and latest engagement; refusals in plain words with the next step.
The platform is the real Graph sandbox over HTTP; its refusals are the sandbox's injections."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.content_version import account_content_changed
from accounts.models import Account, Platform
from devkit.sandbox import GraphSandbox
from posting.selectors import PAGE_SIZE
from publish.limits import MAX_CHARS, MAX_HASHTAGS
from publish.models import Channel, Publication
from publish.services import publication_publish
from reconcile.models import EngagementSnapshot
from reconcile.services import publication_reconcile
from research.models import Source
from tests import factories
from tests.content_version import without_version_bumps
from tests.reconcile import fixtures
from tests.reconcile.fixtures import SandboxPage, publication_make

graph_sandbox = fixtures.graph_sandbox
sandbox_page = fixtures.sandbox_page

pytestmark = pytest.mark.django_db
FEED = r"/\d+/feed$"
LONG_CAPTION = (
    "Harbour Bikes opened a second shop in Leith on Monday, with twelve mechanics and four hundred "
    "bicycles on the floor, and a workshop open late on Thursdays. #leith #bikes"
)


def _sourced_draft(account: Account, platform: str, text: str, n: int):
    source = Source.objects.create(url=f"https://news.example/feed-{n}.xml", title="Leith Gazette")
    article = factories.article_create(
        url=f"https://news.example/preview/{n}",
        title="Harbour Bikes opens a second shop",
        source=source,
        published_at=datetime(2026, 11, 30, 9, 0, tzinfo=UTC),
    )
    return factories.draft_create(account=account, platform=platform, article=article, text=text)


def test_drafts_show_as_their_platform_shows_them_with_counts_and_their_source(
    member_client: Client, account: Account
) -> None:
    facebook = _sourced_draft(account, Platform.FACEBOOK_PAGE, "Harbour Bikes opened a second shop in Leith.", 1)
    instagram = _sourced_draft(account, Platform.INSTAGRAM, LONG_CAPTION, 2)

    page = member_client.get(f"/a/{account.slug}/drafts/").content.decode()

    fb = page.split(f'id="draft-{facebook.pk}"', 1)[1].split("</article>", 1)[0]
    assert 'aria-label="Facebook preview"' in fb
    # The link card: domain, the article's title, the image as a real thumbnail.
    assert '<span class="link-domain">NEWS.EXAMPLE</span>' in fb
    assert '<strong class="link-title">Harbour Bikes opens a second shop</strong>' in fb
    assert '<img src="https://news.example/lead.jpg"' in fb
    assert f"{len(facebook.text)} / {MAX_CHARS['facebook_page']} characters" in fb
    assert "From <strong>Leith Gazette</strong>" in fb
    assert 'href="https://news.example/preview/1"' in fb
    assert "30 Nov 2026" in fb

    ig = page.split(f'id="draft-{instagram.pk}"', 1)[1].split("</article>", 1)[0]
    assert 'aria-label="Instagram preview"' in ig
    assert 'class="square"' in ig
    # The caption folds after its first words behind "more", as Instagram does.
    assert "<summary>… more</summary>" in ig
    head = ig.split('<figcaption class="draft-text">', 1)[1].split("<details", 1)[0]
    assert LONG_CAPTION.startswith(head) and 0 < len(head) <= 125
    assert f"{len(LONG_CAPTION)} / {MAX_CHARS['instagram']} characters · 2 / {MAX_HASHTAGS['instagram']} hashtags" in ig


def test_a_landed_post_shows_its_permalink_and_latest_engagement(
    sandbox_page: SandboxPage, member_client: Client, account: Account
) -> None:
    publication = publication_make(channel=sandbox_page.facebook)
    publication_publish(publication_id=publication.pk)
    publication = publication_reconcile(publication_id=publication.pk)
    assert publication.status == Publication.Status.LANDED
    now = timezone.now()
    EngagementSnapshot.objects.create(publication=publication, fetched_at=now - timedelta(hours=6), reactions=1)
    EngagementSnapshot.objects.create(publication=publication, fetched_at=now, reactions=14, comments=3)

    page = member_client.get(f"/a/{account.slug}/history/").content.decode()

    card = page.split(f'id="publication-{publication.pk}"', 1)[1].split("</article>", 1)[0]
    assert f'href="{publication.permalink}"' in card
    assert "14 likes and reactions · 3 comments" in card
    assert "Live on Facebook." in card


def test_a_temporary_block_reads_in_plain_words_with_when_we_retry(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox, member_client: Client, account: Account
) -> None:
    account.timezone = "Europe/London"
    account.save()
    graph_sandbox.inject(method="POST", path_regex=FEED, kind="error", code=368, message="Temporarily blocked")
    publication = publication_make(channel=sandbox_page.facebook)
    publication = publication_publish(publication_id=publication.pk)
    # A 368 may accompany a post that went live: reconcile looks before any retry.
    assert publication.status == Publication.Status.UNKNOWN

    page = member_client.get(f"/a/{account.slug}/history/").content.decode()
    assert "Facebook has temporarily blocked posting from this Page (#368)." in page
    assert "before we try again, so it is never posted twice" in page
    assert "Outcome unknown." not in page

    # Reconcile proves nothing landed and schedules the one safe retry: the page says when.
    retry_at = timezone.now() + timedelta(hours=2)
    Publication.objects.filter(pk=publication.pk).update(status=Publication.Status.SCHEDULED, scheduled_for=retry_at)
    page = member_client.get(f"/a/{account.slug}/history/").content.decode()
    local = retry_at.astimezone(__import__("zoneinfo").ZoneInfo("Europe/London"))
    assert f"We will retry at {local:%H:%M} on" in page
    assert "(Europe/London)" in page


def test_a_lost_connection_says_reconnect_and_links_to_channels(
    sandbox_page: SandboxPage, member_client: Client, account: Account
) -> None:
    publication = publication_make(channel=sandbox_page.instagram)
    Channel.objects.filter(pk=sandbox_page.instagram.pk).update(status=Channel.Status.NEEDS_RECONNECT)
    page = member_client.get(f"/a/{account.slug}/history/").content.decode()
    card = page.split(f'id="publication-{publication.pk}"', 1)[1].split("</article>", 1)[0]
    assert f'<a href="/a/{account.slug}/channels/">Reconnect Instagram; it goes out as soon as you do.</a>' in card


@pytest.mark.parametrize("count", [5, 50])
def test_the_history_page_makes_the_same_queries_for_5_or_50_posts(
    count: int, sandbox_page: SandboxPage, member_client: Client, account: Account
) -> None:
    for n in range(count):
        publication = publication_make(channel=sandbox_page.facebook, n=n)
        EngagementSnapshot.objects.create(publication=publication, fetched_at=timezone.now(), reactions=n)
    member_client.get(f"/a/{account.slug}/history/")
    account_content_changed([account.pk])  # rendered, not the cached page
    with CaptureQueriesContext(connection) as queries:
        response = member_client.get(f"/a/{account.slug}/history/")
    # One page at most (posting.selectors.PAGE_SIZE); one query more for the count of pages.
    assert response.content.decode().count('class="card" id="publication-') == min(count, PAGE_SIZE)
    assert len(queries) == HISTORY_PAGE_QUERIES, [q["sql"][:100] for q in queries]
    # Unchanged, from the cache (posting/page_cache.py; the user and memberships too): no query.
    with CaptureQueriesContext(connection) as cached:
        member_client.get(f"/a/{account.slug}/history/")
    assert len(cached) == 0, [q["sql"][:100] for q in cached]


# Was 11: the session now comes from the cache (cached_db), and the memberships are read once
# per request by member_required, not again by the view (the role) or the navigation.
# Was 8: the user and the memberships now come from the cache (accounts/principal.py).
HISTORY_PAGE_QUERIES = 6


def test_retry_is_offered_and_allowed_only_where_reconcile_saw_nothing_land(
    sandbox_page: SandboxPage, member_client: Client, account: Account, django_capture_on_commit_callbacks
) -> None:
    never_seen = publication_make(channel=sandbox_page.facebook, n=1)
    refused = publication_make(channel=sandbox_page.facebook, n=2)
    Publication.objects.filter(pk=never_seen.pk).update(status="failed", failure_kind="never_seen")
    Publication.objects.filter(pk=refused.pk).update(status="failed", failure_kind="permanent")

    page = member_client.get(f"/a/{account.slug}/history/").content.decode()
    assert f'action="/a/{account.slug}/history/{never_seen.pk}/retry/"' in page
    assert f'action="/a/{account.slug}/history/{refused.pk}/retry/"' not in page

    member_client.get("/login/")
    token = member_client.cookies["csrftoken"].value
    with django_capture_on_commit_callbacks() as callbacks:
        member_client.post(f"/a/{account.slug}/history/{never_seen.pk}/retry/", HTTP_X_CSRFTOKEN=token)
    never_seen.refresh_from_db()
    assert (never_seen.status, never_seen.failure_kind) == ("scheduled", "")
    assert never_seen.scheduled_for <= timezone.now()
    assert len(without_version_bumps(callbacks)) == 1

    # A refusal the platform gave is not retried from the page, even when asked directly.
    response = member_client.post(f"/a/{account.slug}/history/{refused.pk}/retry/", HTTP_X_CSRFTOKEN=token)
    assert "cannot be sent again from here" in member_client.get(response["Location"]).content.decode()
    refused.refresh_from_db()
    assert refused.status == "failed"
