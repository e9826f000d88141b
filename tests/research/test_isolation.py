"""One customer's feeds cannot change what another customer drafts from."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse

from research import services
from research.dedupe import fingerprint, is_near_duplicate
from research.errors import SourceLimitReached
from research.models import Article, Delivery, Source
from research.selectors import articles_usable_for_account, sources_for_account
from tests import factories

ARTICLES = Path(__file__).resolve().parents[2] / "demo" / "articles"
pytestmark = pytest.mark.django_db


def feed(site, path: str, items: list[tuple[str, str, str]]) -> str:
    """An RSS feed of (title, link, description) items served at ``path``; its URL."""
    body = "".join(
        f"<item><title>{title}</title><link>{link}</link><description>{summary}</description>"
        "<author>x@example.org (Someone)</author></item>"
        for title, link, summary in items
    )
    site.set(path, f'<rss version="2.0"><channel><title>{path}</title>{body}</channel></rss>'.encode(), "text/xml")
    return f"{site.base_url}{path}"


def test_a_feed_listing_another_customers_story_cannot_change_its_headline(site) -> None:
    # given a story page, an attacker whose feed lists it first with a poisoned title and
    # summary, and a customer whose own feed lists the same story honestly
    site.set("/story", (ARTICLES / "salon.com.emissions.html").read_bytes(), "text/html")
    story_url = f"{site.base_url}/story"
    attacker = factories.account_create(name="Attacker", slug="attacker")
    customer = factories.account_create(name="Customer", slug="customer")
    poisoned = feed(site, "/poison.rss", [("BUY CHEAP PILLS", story_url, "Visit pills.example")])
    honest = feed(site, "/honest.rss", [("Emissions dipped", story_url, "A fair summary")])
    services.source_subscribe(account=attacker, url=poisoned)
    services.source_subscribe(account=customer, url=honest)

    # when the attacker's feed is read first, then the customer's
    services.research_run_for_account(account=attacker)
    services.research_run_for_account(account=customer)

    # then the story is stored once, its headline is the page's own, and each feed's words
    # stay on that feed's delivery
    (article,) = articles_usable_for_account(account=customer)
    assert "PILLS" not in article.title and "pills" not in article.text
    deliveries = {d.source.url: d for d in Delivery.objects.filter(article=article).select_related("source")}
    assert (deliveries[honest].title, deliveries[honest].summary) == ("Emissions dipped", "A fair summary")
    assert (deliveries[poisoned].title, deliveries[poisoned].summary) == ("BUY CHEAP PILLS", "Visit pills.example")
    assert deliveries[honest].link == story_url


def test_a_copy_stored_first_does_not_become_another_customers_original(site) -> None:
    # given a copier who republishes a customer's story on its own page, read first
    original = (ARTICLES / "salon.com.emissions.html").read_bytes()
    copy = original.replace(b"<title>", b"<title>Copier | ", 1)
    site.set("/copier/emissions", copy, "text/html")
    site.set("/outlet/emissions", original, "text/html")
    copier = factories.account_create(name="Copier", slug="copier")
    customer = factories.account_create(name="Customer", slug="customer")
    services.source_subscribe(
        account=copier, url=feed(site, "/copier.rss", [("Copied", f"{site.base_url}/copier/emissions", "")])
    )
    services.source_subscribe(
        account=customer, url=feed(site, "/outlet.rss", [("Emissions", f"{site.base_url}/outlet/emissions", "")])
    )
    services.research_run_for_account(account=copier)

    # when the customer's feed is read
    run = services.research_run_for_account(account=customer)

    # then the customer drafts from its own outlet's page, not the copier's
    assert [a.canonical_url for a in articles_usable_for_account(account=customer)] == [
        f"{site.base_url}/outlet/emissions"
    ]
    assert [a.canonical_url for a in articles_usable_for_account(account=copier)] == [
        f"{site.base_url}/copier/emissions"
    ]
    assert run.usable_articles == 1
    assert Delivery.objects.filter(source__subscriptions__account=customer).count() == 1


def test_near_duplicates_are_folded_inside_one_accounts_own_sources(site) -> None:
    # given one account following two outlets that carry the same story
    original = (ARTICLES / "salon.com.emissions.html").read_bytes()
    syndicated = original.replace(b"<title>", b"<title>Grist | ", 1)
    site.set("/salon/emissions", original, "text/html")
    site.set("/grist/emissions", syndicated, "text/html")
    reader = factories.account_create(name="Reader", slug="reader")
    services.source_subscribe(
        account=reader, url=feed(site, "/salon.rss", [("E", f"{site.base_url}/salon/emissions", "")])
    )
    services.source_subscribe(
        account=reader, url=feed(site, "/grist.rss", [("E", f"{site.base_url}/grist/emissions", "")])
    )

    run = services.research_run_for_account(account=reader)

    assert Article.objects.count() == 2
    assert len(articles_usable_for_account(account=reader)) == 1
    assert run.usable_articles == 1


def test_the_fingerprint_covers_the_whole_text() -> None:
    words = (ARTICLES / "salon.com.emissions.html").read_text().split()
    start = " ".join(f"w{i} {word}" for i, word in enumerate(words[:700]))
    appended = " ".join(f"added{i} tail{i * 7} text{i * 13}" for i in range(700))

    assert not is_near_duplicate(fingerprint(start), fingerprint(f"{start} {appended}"))


def test_a_subscribers_label_for_a_shared_feed_is_shown_to_that_subscriber_only(
    account, other_account, member_client, other_member, client
) -> None:
    # given another customer who subscribed first, naming the feed with a private label
    services.source_subscribe(account=other_account, url="https://shared.example/feed", title="Rival's secret list")

    # when this account subscribes to the same feed with its own label, and a third label-less
    services.source_subscribe(account=account, url="https://shared.example/feed", title="Industry news")
    third = factories.account_create(name="Third", slug="third")
    services.source_subscribe(account=third, url="https://shared.example/feed")

    # then each subscriber sees its own label (or the feed's URL), never another's
    page = member_client.get(reverse("research:sources", kwargs={"slug": account.slug})).content.decode()
    assert "Industry news" in page and "Rival" not in page
    client.force_login(other_member)
    page = client.get(reverse("research:sources", kwargs={"slug": other_account.slug})).content.decode()
    assert "Rival&#x27;s secret list" in page and "Industry news" not in page
    (source,) = sources_for_account(account=third)
    assert source.label == "https://shared.example/feed"
    assert Source.objects.get().title == ""


def test_an_account_may_follow_only_so_many_sources(account, member_client, settings) -> None:
    settings.RESEARCH_MAX_SOURCES_PER_ACCOUNT = 3
    for n in range(3):
        services.source_subscribe(account=account, url=f"https://feeds.example/{n}")

    # a fourth is refused with a clear error, re-subscribing to a followed one is not
    with pytest.raises(SourceLimitReached, match="already follows 3 sources"):
        services.source_subscribe(account=account, url="https://feeds.example/3")
    services.source_subscribe(account=account, url="https://feeds.example/0", title="Renamed")
    # an OPML import stops at the cap and says why for the rest
    opml = b'<opml version="2.0"><body><outline text="x" xmlUrl="https://feeds.example/4"/></body></opml>'
    result = services.sources_import_opml(account=account, opml=opml)
    assert result.subscribed == [] and "already follows 3 sources" in result.rejected[0][1]
    # and the page says so too
    member_client.get(reverse("research:sources", kwargs={"slug": account.slug}))
    response = member_client.post(
        reverse("research:source-add", kwargs={"slug": account.slug}),
        {"url": "https://feeds.example/5", "csrfmiddlewaretoken": member_client.cookies["csrftoken"].value},
        follow=True,
    )
    assert "already follows 3 sources" in response.content.decode()
    assert account.subscriptions.count() == 3
