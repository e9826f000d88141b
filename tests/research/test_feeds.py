"""Feed and OPML parsing from bytes: formats, hostile XML, garbage."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from research.errors import FeedParseError, OpmlError
from research.feeds import feed_parse, opml_parse
from research.models import ErrorKind
from tests.research import servers

RSS_091 = b"""<?xml version="1.0"?>
<!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "http://my.netscape.com/publish/formats/rss-0.91.dtd">
<rss version="0.91"><channel><title>Old</title><link>http://example.org/</link><description>d</description>
<item><title>One</title><link>http://example.org/one</link></item></channel></rss>"""

RSS_10 = b"""<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
<channel rdf:about="http://example.org/"><title>RDF</title><link>http://example.org/</link><description>d</description></channel>
<item rdf:about="http://example.org/rdf-one"><title>RDF one</title><link>http://example.org/rdf-one</link></item>
</rdf:RDF>"""

ATOM = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Atom</title><id>urn:x</id><updated>2026-06-01T10:00:00Z</updated>
<entry><title>Relative</title><link href="/posts/relative"/><id>urn:1</id><updated>2026-06-01T10:00:00Z</updated>
<author><name>Ann</name></author></entry></feed>"""


@pytest.mark.parametrize(("body", "version"), [(RSS_091, "rss091u"), (RSS_10, "rss10"), (ATOM, "atom10")])
def test_it_reads_rss_0_9x_1_0_2_0_and_atom(body: bytes, version: str) -> None:
    feed = feed_parse(body, base_url="http://example.org/feed")

    assert feed.version.startswith(version[:5])
    assert len(feed.entries) == 1
    assert feed.entries[0].url.startswith("http://example.org/")


def test_relative_links_are_resolved_against_the_feed_url() -> None:
    entry = feed_parse(ATOM, base_url="https://blog.example.org/feed.atom").entries[0]

    assert entry.url == "https://blog.example.org/posts/relative"
    assert entry.author == "Ann"
    assert entry.published_at is not None and entry.published_at.year == 2026


def test_a_billion_laughs_feed_is_refused_quickly() -> None:
    started = time.monotonic()

    with pytest.raises(FeedParseError) as caught:
        feed_parse(servers.BILLION_LAUGHS, base_url="http://example.org/")

    assert caught.value.kind == ErrorKind.PARSE
    assert time.monotonic() - started < 1


def test_external_entities_are_refused_and_never_read() -> None:
    with pytest.raises(FeedParseError) as caught:
        feed_parse(servers.EXTERNAL_ENTITY, base_url="http://example.org/")

    assert "entities" in caught.value.detail


@pytest.mark.parametrize(
    "body",
    [b"", b"this is not xml at all", b"<html><body><p>Hello</p></body></html>", b"\x00\xff\xfe garbage"],
)
def test_garbage_is_a_parse_error(body: bytes) -> None:
    with pytest.raises(FeedParseError) as caught:
        feed_parse(body, base_url="http://example.org/")

    assert caught.value.kind == ErrorKind.PARSE


def test_a_feed_truncated_before_any_entry_is_a_parse_error() -> None:
    body = servers.rss([("a", "http://example.org/a")])

    with pytest.raises(FeedParseError) as caught:
        feed_parse(body[:60], base_url="http://example.org/")

    assert caught.value.kind == ErrorKind.PARSE


def test_a_feed_truncated_after_some_entries_keeps_them_and_says_so() -> None:
    body = servers.rss([("a", "http://example.org/a"), ("b", "http://example.org/b")])

    feed = feed_parse(body[: body.index(b"<item>", body.index(b"</item>"))], base_url="http://example.org/")

    assert [e.url for e in feed.entries] == ["http://example.org/a"]
    assert feed.recovered


def test_a_feed_without_entries_is_empty_not_broken() -> None:
    with pytest.raises(FeedParseError) as caught:
        feed_parse(servers.rss([]), base_url="http://example.org/")

    assert caught.value.kind == ErrorKind.EMPTY


def test_it_never_takes_a_url_string() -> None:
    with pytest.raises(TypeError):
        feed_parse("http://127.0.0.1/feed", base_url="http://example.org/")  # type: ignore[arg-type]


def test_opml_lists_feeds_in_nested_folders() -> None:
    opml = b"""<?xml version="1.0"?><opml version="2.0"><head><title>x</title></head><body>
    <outline text="News"><outline text="One" type="rss" xmlUrl="https://one.example/feed"/>
    <outline text="Two" title="Second" xmlUrl="https://two.example/rss"/></outline>
    <outline text="Dup" xmlUrl="https://one.example/feed"/></body></opml>"""

    feeds = opml_parse(opml)

    assert [(f.url, f.title) for f in feeds] == [
        ("https://one.example/feed", "One"),
        ("https://two.example/rss", "Second"),
    ]


@pytest.mark.parametrize(
    "body",
    [b"not xml", b"<html/>", b"<opml><body></body></opml>", servers.BILLION_LAUGHS.replace(b"rss", b"opml")],
)
def test_bad_opml_is_a_clear_error(body: bytes) -> None:
    with pytest.raises(OpmlError):
        opml_parse(body)


def test_entries_with_unusable_links_are_skipped_not_fatal() -> None:
    body = servers.rss([("bad", "http://[invalid/x"), ("js", "javascript:alert(1)"), ("ok", "https://example.org/ok")])

    feed = feed_parse(body, base_url="https://example.org/feed")

    assert [e.url for e in feed.entries] == ["https://example.org/ok"]


def test_a_block_page_served_instead_of_the_feed_is_blocked_not_garbage() -> None:
    with pytest.raises(FeedParseError) as caught:
        feed_parse(servers.BLOCK_PAGE, base_url="http://example.org/feed")

    assert caught.value.kind == ErrorKind.BLOCKED


def test_control_characters_are_dropped_and_links_too_long_to_store_are_skipped() -> None:
    long_link = "https://example.org/" + "a" * 2000
    body = (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Feed&#0;</title>'
        "<item><title>Nul&#0;title</title><link>https://example.org/ok</link><description>a&#1;b</description></item>"
        "<item><title>Nul link</title><link>https://example.org/x&#0;y</link></item>"
        f"<item><title>Long</title><link>{long_link}</link></item></channel></rss>"
    ).encode()

    feed = feed_parse(body, base_url="https://example.org/feed")

    assert feed.title == "Feed"
    assert [(e.title, e.url, e.summary) for e in feed.entries] == [("Nultitle", "https://example.org/ok", "ab")]


@pytest.mark.parametrize("date", ["0000-01-01T00:00:00Z", "9999-12-31T23:59:59-05:00"])
def test_a_date_outside_the_calendar_is_no_date_not_a_crash(date: str) -> None:
    body = (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>'
        f"<item><title>a</title><link>https://example.org/a</link><pubDate>{date}</pubDate></item></channel></rss>"
    ).encode()

    assert feed_parse(body, base_url="https://example.org/feed").entries[0].published_at is None


@pytest.mark.parametrize("body", [servers.BILLION_LAUGHS, servers.EXTERNAL_ENTITY])
def test_entities_declared_past_the_first_64_kib_are_refused(body: bytes) -> None:
    # A DOCTYPE pushed past any prefix check by a long comment is still found: the whole
    # document is read by a streaming parser that refuses every entity declaration.
    padded = body.replace(b'<?xml version="1.0"?>\n', b'<?xml version="1.0"?>\n<!--' + b"x" * 70_000 + b"-->\n", 1)

    with pytest.raises(FeedParseError) as caught:
        feed_parse(padded, base_url="http://example.org/")

    assert caught.value.kind == ErrorKind.PARSE and "entities" in caught.value.detail


def utf16(document: bytes) -> bytes:
    return (
        document.decode().replace('<?xml version="1.0"?>', '<?xml version="1.0" encoding="UTF-16"?>').encode("utf-16")
    )


def test_a_utf16_billion_laughs_feed_is_refused_in_little_memory() -> None:
    # UTF-16 hides "<!ENTITY" from a scan of the raw bytes: every other byte is a NUL.
    body = utf16(servers.BILLION_LAUGHS)
    assert b"<!ENTITY" not in body
    tracemalloc.start()
    try:
        with pytest.raises(FeedParseError) as caught:
            feed_parse(body, base_url="http://example.org/")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    assert caught.value.kind == ErrorKind.PARSE and "entities" in caught.value.detail
    assert peak < 2 * 1024 * 1024


def test_a_utf16_billion_laughs_opml_is_refused() -> None:
    with pytest.raises(OpmlError, match="entities"):
        opml_parse(utf16(servers.BILLION_LAUGHS.replace(b"rss", b"opml")))


def test_a_4_mib_feed_is_refused_before_parsing_in_little_memory(settings) -> None:
    settings.RESEARCH_FEED_PARSE_MAX_BYTES = 2 * 1024 * 1024
    item = "<item><title>Story {0}</title><link>https://e.example/{0}</link><description>{1}</description></item>"
    items = "".join(item.format(i, "word " * 400) for i in range(2000))
    body = f'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>{items}</channel></rss>'.encode()
    assert len(body) > 4 * 1024 * 1024
    tracemalloc.start()
    try:
        with pytest.raises(FeedParseError) as caught:
            feed_parse(body, base_url="http://example.org/")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    assert caught.value.kind == ErrorKind.TOO_LARGE and "refused before parsing" in caught.value.detail
    assert peak < 1024 * 1024
