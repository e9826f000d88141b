"""The research stage end to end: real feeds and pages over HTTP, real PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from devkit.demo_feeds import ATOM_PATH, RSS_PATH
from research import services
from research.errors import InvalidSourceUrl, OpmlError
from research.models import Article, ErrorKind, ResearchRun, Source, Subscription
from research.selectors import articles_usable_for_account
from tests import factories
from tests.research import servers

ARTICLES = Path(__file__).resolve().parents[2] / "demo" / "articles"
pytestmark = pytest.mark.django_db


def subscribe_demo(account, site) -> tuple[Source, Source]:
    rss = services.source_subscribe(account=account, url=f"{site.base_url}{RSS_PATH}")
    atom = services.source_subscribe(account=account, url=f"{site.base_url}{ATOM_PATH}")
    return rss, atom


def test_a_run_stores_every_story_once_extracted_and_usable(account, demo_site) -> None:
    # given an account subscribed to the demo RSS feed (12 stories) and Atom feed (6 of them)
    rss, atom = subscribe_demo(account, demo_site)

    # when
    counts = services.research_run_all()

    # then each story is stored once, extracted from its page, and usable
    assert Article.objects.count() == 12
    assert set(Article.objects.values_list("extraction_status", flat=True)) == {Article.Extraction.OK}
    usable = list(articles_usable_for_account(account=account))
    assert len(usable) == 12
    assert usable[0].title == "Gigantic Chinese telescope opens to astronomers worldwide"
    assert [a.delivered_at for a in usable] == sorted((a.delivered_at for a in usable), reverse=True)
    assert "single-dish radio observatory" in usable[0].text
    # and what was stored is the article body, without comments, menus or newsletter boxes
    json_story = Article.objects.get(canonical_url__endswith="/articles/lemire.me.json.html")
    assert "simdjson can parse, validate a JSON document" in json_story.text
    assert "Leave a Reply" not in json_story.text and "Recent Posts" not in json_story.text
    assert "Sign up for Nature Briefing" not in usable[0].text and "Related Articles" not in usable[0].text
    # and the Atom feed's tracking-tagged links found the RSS stories, not new ones
    assert Article.objects.filter(sources=atom).count() == 6
    rss.refresh_from_db()
    atom.refresh_from_db()
    assert (rss.items_last_run, atom.items_last_run) == (12, 6)
    # (whichever feed was recorded first brought the shared stories)
    assert rss.new_articles_last_run + atom.new_articles_last_run == 12
    assert rss.last_success_at and rss.consecutive_failures == 0 and rss.etag
    # and every page was fetched once
    assert all(demo_site.count(f"/articles/{a.canonical_url.rsplit('/', 1)[1]}") == 1 for a in usable)
    run = ResearchRun.objects.get(account=account)
    assert (run.feeds_subscribed, run.feeds_fetched, run.feeds_failed) == (2, 2, 0)
    assert (run.new_articles, run.usable_articles) == (12, 12)
    assert run.finished_at and not run.starved
    assert counts["feeds_fetched"] == 2 and counts["articles_ok"] == 12 and counts["accounts_starved"] == 0


def test_each_feed_is_fetched_once_however_many_accounts_subscribe(demo_site) -> None:
    accounts = [factories.account_create(name=f"Shop {i}", slug=f"shop-{i}") for i in range(6)]
    for account in accounts:
        subscribe_demo(account, demo_site)

    counts = services.research_run_all()

    assert demo_site.count(RSS_PATH) == 1
    assert demo_site.count(ATOM_PATH) == 1
    assert counts["sources"] == 2 and counts["accounts"] == 6
    assert all(run.usable_articles == 12 for run in ResearchRun.objects.all())


def test_an_unchanged_feed_costs_a_304_and_the_empty_run_is_flagged(account, demo_site) -> None:
    subscribe_demo(account, demo_site)
    services.research_run_all()

    run = services.research_run_for_account(account=account)

    assert (run.feeds_not_modified, run.feeds_fetched, run.new_articles, run.usable_articles) == (2, 0, 0, 0)
    assert run.starved
    # no page was fetched again
    assert demo_site.count("/articles/nature.com.telescope.html") == 1


def test_a_broken_source_is_recorded_and_the_rest_of_the_run_goes_on(account, demo_site, hostile, settings) -> None:
    # given the demo feeds plus one hostile source of each kind
    settings.RESEARCH_TIMEOUT_S = 1.0
    subscribe_demo(account, demo_site)
    hostile.behaviours.update(
        {
            "/500": servers.static(500, b"oops", "text/html"),
            "/403": servers.static(403, servers.BLOCK_PAGE, "text/html"),
            "/drip": servers.drip(),
            "/garbage": servers.static(200, b"<<<not a feed>>>", "application/rss+xml"),
            "/laughs": servers.static(200, servers.BILLION_LAUGHS, "application/rss+xml"),
            "/png": servers.static(200, b"\x89PNG", "image/png"),
            "/metadata": servers.redirect("http://169.254.169.254/latest/meta-data/"),
            "/huge": servers.endless("application/rss+xml", 50 * 1024 * 1024),
            "/bomb": servers.gzip_bomb(32 * 1024 * 1024),
            "/empty": servers.static(200, servers.rss([]), "application/rss+xml"),
            "/truncated": servers.static(200, servers.rss([("a", "http://x/a")])[:80], "application/rss+xml"),
            "/challenge": servers.static(200, servers.BLOCK_PAGE, "text/html"),
        }
    )
    expected = {
        "/500": ErrorKind.HTTP_5XX,
        "/403": ErrorKind.BLOCKED,
        "/drip": ErrorKind.TIMEOUT,
        "/garbage": ErrorKind.PARSE,
        "/laughs": ErrorKind.PARSE,
        "/png": ErrorKind.CONTENT_TYPE,
        "/metadata": ErrorKind.REFUSED_ADDRESS,
        "/huge": ErrorKind.TOO_LARGE,
        "/bomb": ErrorKind.TOO_LARGE,
        "/empty": ErrorKind.EMPTY,
        "/truncated": ErrorKind.PARSE,
        "/challenge": ErrorKind.BLOCKED,
    }
    for path in expected:
        services.source_subscribe(account=account, url=f"{hostile.base_url}{path}")
    services.source_subscribe(account=account, url="http://10.0.0.1/feed")

    # when
    services.research_run_all()

    # then every bad source says why, and the good ones still delivered
    for path, kind in expected.items():
        source = Source.objects.get(url=f"{hostile.base_url}{path}")
        assert (path, source.last_error_kind, source.consecutive_failures) == (path, kind, 1)
        assert source.last_success_at is None
    assert Source.objects.get(url="http://10.0.0.1/feed").last_error_kind == ErrorKind.REFUSED_ADDRESS
    run = ResearchRun.objects.get(account=account)
    assert (run.feeds_fetched, run.feeds_failed, run.usable_articles) == (2, 13, 12)
    assert run.error_kinds[ErrorKind.TOO_LARGE] == 2
    # and failures keep counting until the source recovers
    hostile.behaviours["/500"] = servers.static(200, servers.rss([("x", f"{demo_site.base_url}/x")]), "text/xml")
    hostile.behaviours["/403"] = servers.static(500, b"still down", "text/html")
    services.research_run_all()
    assert Source.objects.get(url=f"{hostile.base_url}/403").consecutive_failures == 2
    recovered = Source.objects.get(url=f"{hostile.base_url}/500")
    assert (recovered.consecutive_failures, recovered.last_error_kind) == (0, "")


def test_block_pages_and_teasers_are_stored_but_never_usable(account, site, hostile) -> None:
    hostile.behaviours["/denied"] = servers.static(403, b"Forbidden", "text/html")
    hostile.behaviours["/challenge"] = servers.static(200, servers.BLOCK_PAGE, "text/html")
    hostile.behaviours["/consent"] = servers.static(200, servers.CONSENT_WALL, "text/html")
    hostile.behaviours["/teaser"] = servers.static(
        200, b"<html><body><article><p>Read the full story in print.</p></article></body></html>", "text/html"
    )
    site.set(
        "/feed",
        servers.rss([(name, f"{hostile.base_url}/{name}") for name in ("denied", "challenge", "consent", "teaser")]),
        "application/rss+xml",
    )
    services.source_subscribe(account=account, url=f"{site.base_url}/feed")

    run = services.research_run_for_account(account=account)

    statuses = dict(Article.objects.values_list("canonical_url", "extraction_status"))
    assert statuses == {
        f"{hostile.base_url}/denied": Article.Extraction.BLOCKED,
        f"{hostile.base_url}/challenge": Article.Extraction.BLOCKED,
        f"{hostile.base_url}/consent": Article.Extraction.BLOCKED,
        f"{hostile.base_url}/teaser": Article.Extraction.INSUFFICIENT,
    }
    assert (run.new_articles, run.usable_articles, run.starved) == (4, 0, True)


def test_one_story_from_two_outlets_reaches_each_audience_through_its_own_outlet(site) -> None:
    # given two outlets publishing the same story with different page furniture, and two
    # accounts that each follow only one of the outlets
    original = (ARTICLES / "salon.com.emissions.html").read_bytes()
    syndicated = original.replace(b"<title>", b"<title>Grist | ", 1).replace(
        b"</body>", b"<footer><p>Republished from Salon with permission.</p></footer></body>", 1
    )
    site.set("/salon/emissions", original, "text/html")
    site.set("/grist/emissions", syndicated, "text/html")
    site.set("/salon.rss", servers.rss([("Emissions dipped", f"{site.base_url}/salon/emissions")]), "text/xml")
    site.set("/grist.rss", servers.rss([("Emissions dip", f"{site.base_url}/grist/emissions")]), "text/xml")
    salon_reader = factories.account_create(name="Salon reader", slug="salon-reader")
    grist_reader = factories.account_create(name="Grist reader", slug="grist-reader")
    services.source_subscribe(account=salon_reader, url=f"{site.base_url}/salon.rss")
    services.source_subscribe(account=grist_reader, url=f"{site.base_url}/grist.rss")

    # when
    services.research_run_all()

    # then each page is stored, and each audience reaches the story through its own outlet
    # (near-duplicates are folded inside one account's sources, never across customers)
    assert Article.objects.count() == 2
    (salon_story,) = articles_usable_for_account(account=salon_reader)
    (grist_story,) = articles_usable_for_account(account=grist_reader)
    assert salon_story.canonical_url == f"{site.base_url}/salon/emissions"
    assert grist_story.canonical_url == f"{site.base_url}/grist/emissions"


def test_a_known_entry_id_with_a_new_link_is_not_a_new_story(account, site) -> None:
    page = (ARTICLES / "phys.org.tool.html").read_bytes()
    site.set("/tool", page, "text/html")
    site.set("/tool-moved", page, "text/html")
    feed = (
        '<rss version="2.0"><channel><title>t</title>'
        "<item><title>Tool</title><link>{}</link><guid>urn:tool</guid></item></channel></rss>"
    )
    site.set("/feed", feed.format(f"{site.base_url}/tool").encode(), "text/xml")
    services.source_subscribe(account=account, url=f"{site.base_url}/feed")
    services.research_run_all()

    site.set("/feed", feed.format(f"{site.base_url}/tool-moved?utm_campaign=x").encode(), "text/xml")
    run = services.research_run_for_account(account=account)

    assert Article.objects.count() == 1
    assert run.new_articles == 0


def test_paused_accounts_are_not_researched(demo_site) -> None:
    paused = factories.account_create(name="Paused", slug="paused", paused=True)
    subscribe_demo(paused, demo_site)

    counts = services.research_run_all()

    assert counts["sources"] == 0
    assert not ResearchRun.objects.exists()
    assert demo_site.count(RSS_PATH) == 0


def test_a_run_for_one_account_fetches_only_its_sources(account, other_account, demo_site) -> None:
    services.source_subscribe(account=account, url=f"{demo_site.base_url}{RSS_PATH}")
    services.source_subscribe(account=other_account, url=f"{demo_site.base_url}{ATOM_PATH}")

    run = services.research_run_for_account(account=account)

    assert demo_site.count(RSS_PATH) == 1 and demo_site.count(ATOM_PATH) == 0
    assert run.account == account and run.usable_articles == 12
    assert not ResearchRun.objects.filter(account=other_account).exists()


def test_pending_articles_left_by_an_interrupted_run_are_extracted_later(account, demo_site) -> None:
    rss, _atom = subscribe_demo(account, demo_site)
    article = Article.objects.create(source=rss, canonical_url=f"{demo_site.base_url}/articles/lemire.me.json.html")
    article.sources.add(rss)

    counts = services.articles_extract_pending()

    article.refresh_from_db()
    assert counts == {Article.Extraction.OK: 1, "research_runs_closed_overdue": 0}
    assert article.extraction_status == Article.Extraction.OK and article.fetched_at
    assert "simdjson" in article.text


def test_subscribing_validates_the_url_and_is_idempotent(account) -> None:
    for bad in ["ftp://example.org/feed", "javascript:alert(1)", "not a url", "http://u:p@example.org/"]:
        with pytest.raises(InvalidSourceUrl):
            services.source_subscribe(account=account, url=bad)

    first = services.source_subscribe(account=account, url="https://example.org/feed", title="Example")
    again = services.source_subscribe(account=account, url=" https://example.org/feed ")

    assert first == again
    (subscription,) = Subscription.objects.filter(account=account)
    assert subscription.title == "Example"


def test_opml_import_subscribes_to_every_usable_feed(account) -> None:
    opml = b"""<opml version="2.0"><body><outline text="Tech">
    <outline text="One" xmlUrl="https://one.example/feed"/><outline text="Bad" xmlUrl="ftp://two.example/feed"/>
    </outline></body></opml>"""

    result = services.sources_import_opml(account=account, opml=opml)

    assert [s.url for s in result.subscribed] == ["https://one.example/feed"]
    assert result.rejected[0][0] == "ftp://two.example/feed"
    with pytest.raises(OpmlError):
        services.sources_import_opml(account=account, opml=b"<html/>")


def test_industry_presets_subscribe_the_account(account) -> None:
    sources = services.sources_subscribe_industry(account=account)

    assert sources and all(s.industry == "cycling" for s in Source.objects.filter(pk__in=[s.pk for s in sources]))
    assert Subscription.objects.filter(account=account).count() == len(sources)


def test_only_the_newest_entries_of_a_long_feed_are_taken(account, demo_site, settings) -> None:
    settings.RESEARCH_MAX_ARTICLES_PER_FEED = 3
    services.source_subscribe(account=account, url=f"{demo_site.base_url}{RSS_PATH}")

    run = services.research_run_for_account(account=account)

    titles = [a.title for a in articles_usable_for_account(account=account)]
    assert run.new_articles == 3
    assert titles[0] == "Gigantic Chinese telescope opens to astronomers worldwide"


def test_hostile_feed_contents_cost_at_most_their_own_entries(account, demo_site, hostile) -> None:
    # given, next to the demo feeds, a feed whose entries carry what the lenient parser
    # lets through and the database or datetime refuse: NUL characters, a link longer than
    # we store once canonicalised, a year-0 date, and a page with a broken og:image URL
    subscribe_demo(account, demo_site)
    page = (ARTICLES / "blog.python.org.html").read_bytes()
    page = page.replace(b"</head>", b'<meta property="og:image" content="http://[broken/lead.png"></head>', 1)
    hostile.behaviours["/story"] = servers.static(200, page, "text/html")
    long_link = f"{hostile.base_url}/long?q=" + "é" * 990
    feed = (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Hostile&#0;</title>'
        f"<item><title>Story&#0;</title><link>{hostile.base_url}/story</link>"
        "<description>nul&#0;here</description><pubDate>0000-01-01T00:00:00Z</pubDate></item>"
        f"<item><title>Too long</title><link>{long_link}</link></item>"
        "</channel></rss>"
    )
    hostile.behaviours["/feed"] = servers.static(200, feed.encode(), "application/rss+xml")
    hostile_source = services.source_subscribe(account=account, url=f"{hostile.base_url}/feed")

    # when
    services.research_run_all()

    # then the run finished for everyone, and the hostile feed's one storable story was
    # stored clean and extracted (a copy of a demo story: the account drafts from one of the two)
    run = ResearchRun.objects.get(account=account)
    assert (run.feeds_fetched, run.feeds_failed, run.new_articles, run.usable_articles) == (3, 0, 13, 12)
    story = Article.objects.get(canonical_url=f"{hostile.base_url}/story")
    delivery = story.deliveries.get()
    assert (delivery.title, delivery.summary) == ("Story", "nulhere")
    assert story.published_at.year == 2016  # the page's date, the feed's year 0 dropped
    assert story.extraction_status == Article.Extraction.OK and story.lead_image_url == ""
    assert len(articles_usable_for_account(account=account)) == 12
    # and the feed listed two items, of which the over-long link was not stored
    hostile_source.refresh_from_db()
    assert (hostile_source.title, hostile_source.last_error_kind) == ("Hostile", "")
    assert (hostile_source.items_last_run, hostile_source.new_articles_last_run) == (2, 1)


def test_a_feed_whose_health_cannot_be_stored_fails_alone(account, demo_site, hostile) -> None:
    # given a server whose ETag carries a NUL (PostgreSQL refuses it in a text column), so
    # recording that source's success fails inside the database
    subscribe_demo(account, demo_site)
    hostile.behaviours["/feed"] = servers.static(
        200, servers.rss([("a", f"{hostile.base_url}/a")]), "application/rss+xml", ETag='"a\x00b"'
    )
    source = services.source_subscribe(account=account, url=f"{hostile.base_url}/feed")

    # when
    services.research_run_all()

    # then that source records an internal error (its entries rolled back with it), and the
    # rest of the run, ResearchRun included, went on
    source.refresh_from_db()
    assert (source.last_error_kind, source.consecutive_failures, source.last_success_at) == (
        ErrorKind.INTERNAL,
        1,
        None,
    )
    assert not Article.objects.filter(canonical_url=f"{hostile.base_url}/a").exists()
    run = ResearchRun.objects.get(account=account)
    assert (run.feeds_fetched, run.feeds_failed, run.usable_articles) == (2, 1, 12)
