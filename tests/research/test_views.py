"""The account's sources page: health shown, feeds added with CSRF, tenancy kept."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from accounts.models import Role
from research import services
from research.models import Article, ErrorKind, Source, Subscription
from tests import factories

pytestmark = pytest.mark.django_db


def csrf_post(client: Client, url: str, data: dict) -> object:
    client.get(reverse("research:sources", kwargs={"slug": "harbour-bikes"}))
    data = {**data, "csrfmiddlewaretoken": client.cookies["csrftoken"].value}
    return client.post(url, data, follow=True)


def test_the_sources_page_shows_each_sources_health(account, member_client) -> None:
    healthy = services.source_subscribe(account=account, url="https://ok.example/feed", title="Good News")
    broken = services.source_subscribe(account=account, url="https://down.example/feed")
    Source.objects.filter(pk=broken.pk).update(
        last_error_kind=ErrorKind.TIMEOUT, consecutive_failures=4, last_error_detail="no answer in time"
    )
    Source.objects.filter(pk=healthy.pk).update(items_last_run=9, new_articles_last_run=2)
    for n, status in enumerate(["ok", "ok", "blocked"]):
        article = Article.objects.create(
            source=broken, canonical_url=f"https://down.example/{n}", extraction_status=status
        )
        article.sources.add(broken)

    response = member_client.get(reverse("research:sources", kwargs={"slug": account.slug}))

    page = response.content.decode()
    assert response.status_code == 200
    assert "Good News" in page and "9 / 2" in page
    assert "Timed out" in page and "no answer in time" in page and ">4<" in page
    assert "1 blocked, 2 ok" in page


def test_a_member_adds_a_feed_with_a_csrf_protected_post(account, member_client) -> None:
    url = reverse("research:source-add", kwargs={"slug": account.slug})

    assert member_client.post(url, {"url": "https://new.example/rss"}).status_code == 403  # no CSRF token
    response = csrf_post(member_client, url, {"url": "https://new.example/rss", "title": "New"})

    assert response.status_code == 200
    assert Subscription.objects.filter(account=account, source__url="https://new.example/rss").exists()
    assert "Subscribed to New" in response.content.decode()


def test_an_unusable_feed_url_is_explained_not_stored(account, member_client) -> None:
    response = csrf_post(
        member_client, reverse("research:source-add", kwargs={"slug": account.slug}), {"url": "file:///etc/passwd"}
    )

    assert "cannot be used" in response.content.decode()
    assert not Source.objects.exists()


def test_an_opml_upload_subscribes_to_its_feeds(account, member_client) -> None:
    opml = b'<opml version="2.0"><body><outline text="A" xmlUrl="https://a.example/feed"/></body></opml>'
    upload = SimpleUploadedFile("feeds.opml", opml, content_type="text/x-opml")

    response = csrf_post(
        member_client, reverse("research:opml-import", kwargs={"slug": account.slug}), {"opml": upload}
    )

    assert "Subscribed to 1 feeds" in response.content.decode()
    assert Subscription.objects.filter(account=account, source__url="https://a.example/feed").exists()


def test_a_broken_opml_upload_is_a_message_not_a_500(account, member_client) -> None:
    upload = SimpleUploadedFile("feeds.opml", b"<<<", content_type="text/x-opml")

    response = csrf_post(
        member_client, reverse("research:opml-import", kwargs={"slug": account.slug}), {"opml": upload}
    )

    assert response.status_code == 200
    assert "could not be imported" in response.content.decode()


def test_another_accounts_sources_are_invisible_and_untouchable(account, member_client, other_account) -> None:
    theirs = services.source_subscribe(account=other_account, url="https://secret.example/feed")

    page = member_client.get(reverse("research:sources", kwargs={"slug": account.slug})).content.decode()
    assert "secret.example" not in page
    assert member_client.get(reverse("research:sources", kwargs={"slug": other_account.slug})).status_code == 404
    remove = reverse("research:source-remove", kwargs={"slug": account.slug, "source_id": theirs.pk})
    csrf_post(member_client, remove, {})
    assert Subscription.objects.filter(account=other_account, source=theirs).exists()


def test_a_viewer_cannot_change_sources(account) -> None:
    viewer = factories.member_create(account=account, username="viewer", role=Role.VIEWER)
    client = Client()
    client.force_login(viewer)

    response = client.post(
        reverse("research:source-add", kwargs={"slug": account.slug}), {"url": "https://x.example/feed"}
    )

    assert response.status_code == 403
    assert not Source.objects.exists()


def test_anonymous_visitors_are_sent_to_log_in(account) -> None:
    response = Client().get(reverse("research:sources", kwargs={"slug": account.slug}))

    assert response.status_code == 302 and "/login/" in response["Location"]
