"""Reading feeds and OPML from bytes we fetched ourselves (never from a URL)."""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urljoin, urlsplit
from xml.etree.ElementTree import ParseError
from xml.sax import SAXException
from xml.sax.handler import ContentHandler

import defusedxml.ElementTree
import defusedxml.sax
import feedparser
from defusedxml import DefusedXmlException
from django.conf import settings

from research.errors import FeedParseError, OpmlError
from research.extract import page_looks_blocked
from research.models import ErrorKind

_OPML_MAX_BYTES = 1024 * 1024
_OPML_MAX_FEEDS = 500
# Longest link we store (Article.canonical_url); a longer one is skipped, never cut, as a
# cut URL would be a different page.
MAX_URL_CHARS = 2000
# The lenient parser passes character references XML forbids (``&#0;``) through as text;
# PostgreSQL refuses NUL in text, and no title or link needs C0 controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@dataclass(frozen=True)
class FeedEntry:
    entry_id: str
    url: str
    title: str
    summary: str
    author: str
    published_at: datetime | None


@dataclass(frozen=True)
class ParsedFeed:
    title: str
    version: str
    entries: list[FeedEntry]
    # True when the feed was not well-formed and the entries come from the lenient parser.
    recovered: bool


def feed_parse(body: bytes, *, base_url: str) -> ParsedFeed:
    """Parse RSS 0.9x/1.0/2.0 or Atom; ``FeedParseError`` (parse / empty) otherwise."""
    if not isinstance(body, bytes):
        # feedparser fetches when given a string that looks like a URL: bytes only.
        raise TypeError("feed_parse takes the bytes we fetched")
    limit = settings.RESEARCH_FEED_PARSE_MAX_BYTES
    if len(body) > limit:
        raise FeedParseError(ErrorKind.TOO_LARGE, f"feed larger than {limit // 1024} KiB (refused before parsing)")
    _refuse_entities(body, error=lambda detail: FeedParseError(ErrorKind.PARSE, f"feed {detail} (refused)"))
    # The headers give relative links their base and tell feedparser to read XML whatever
    # content type the server claimed (we checked that at fetch time).
    headers = {"content-location": base_url, "content-type": "application/xml"}
    try:
        parsed = feedparser.parse(body, response_headers=headers, sanitize_html=True)
    except Exception as exc:  # a third-party parser on hostile input: classify, never raise
        raise FeedParseError(ErrorKind.PARSE, f"feed parser failed ({type(exc).__name__})") from exc
    version = parsed.get("version") or ""
    entries = [entry for entry in (_entry(raw, base_url=base_url) for raw in parsed.entries) if entry is not None]
    malformed = bool(parsed.get("bozo")) and _is_xml_error(parsed.get("bozo_exception"))
    if not entries:
        if page_looks_blocked(body):
            raise FeedParseError(ErrorKind.BLOCKED, "a block page, captcha or consent wall instead of the feed")
        if not version or malformed:
            problem = type(parsed.get("bozo_exception")).__name__ if malformed else "no feed elements"
            raise FeedParseError(ErrorKind.PARSE, f"not a readable RSS or Atom feed ({problem})")
        raise FeedParseError(ErrorKind.EMPTY, "feed has no entries with links")
    return ParsedFeed(
        title=_text(parsed.feed.get("title"))[:300], version=version, entries=entries, recovered=malformed
    )


def _refuse_entities(body: bytes, *, error: Callable[[str], Exception]) -> None:
    """Raise ``error(detail)`` if the document declares entities or refers to external ones.

    Entity declarations are how XML bombs (billion laughs) and external entities work; no
    real feed needs them. defusedxml's streaming (SAX) parser reads the whole document in
    whatever encoding it declares (UTF-16 included) in constant memory, and stops at the
    first declaration, before anything is expanded. An external DTD (RSS 0.91's DOCTYPE)
    is allowed: it is never fetched, and any external entity needs a declaration. A document that is not well-formed is
    left to the lenient parser, which expands no declared entities.
    """
    try:
        defusedxml.sax.parseString(body, ContentHandler(), forbid_external=False)
    except DefusedXmlException as exc:
        raise error(f"declares XML entities ({type(exc).__name__})") from exc
    except (SAXException, ValueError, UnicodeError):
        return


def _is_xml_error(exc: object) -> bool:
    # feedparser flags encoding and content-type quirks as "bozo" too; only syntax errors count.
    name = type(exc).__name__.lower()
    return exc is not None and "encoding" not in name and "contenttype" not in name


def _entry(raw: feedparser.FeedParserDict, *, base_url: str) -> FeedEntry | None:
    link = str(raw.get("link") or "").strip()
    if not link or _CONTROL.search(link):
        return None
    try:
        url = urljoin(base_url, link)
        if not urlsplit(url).hostname:
            return None
    except ValueError:
        return None  # e.g. a malformed IPv6 literal: not a link we could ever fetch
    if not url.startswith(("http://", "https://")) or len(url) > MAX_URL_CHARS:
        return None
    published = raw.get("published_parsed") or raw.get("updated_parsed")
    try:
        published_at = datetime.fromtimestamp(calendar.timegm(published), tz=UTC) if published else None
    except (ValueError, OverflowError, OSError):
        published_at = None  # a date outside what datetime holds ("0000-01-01"): no date
    return FeedEntry(
        entry_id=_text(raw.get("id"))[:1000],
        url=url,
        title=_text(raw.get("title"))[:1000],
        summary=_text(raw.get("summary"))[:5000],
        author=_text(raw.get("author"))[:300],
        published_at=published_at,
    )


def _text(value: object) -> str:
    return _CONTROL.sub("", str(value or ""))


@dataclass(frozen=True)
class OpmlFeed:
    url: str
    title: str


def opml_parse(body: bytes) -> list[OpmlFeed]:
    """The feed outlines (``xmlUrl``) of an OPML document, nested folders included."""
    if len(body) > _OPML_MAX_BYTES:
        raise OpmlError(f"OPML file larger than {_OPML_MAX_BYTES // 1024} KB")
    try:
        root = defusedxml.ElementTree.fromstring(body)
    except DefusedXmlException as exc:
        raise OpmlError(f"OPML declares XML entities ({type(exc).__name__}, refused)") from exc
    except ParseError as exc:
        raise OpmlError(f"not an OPML file: {exc}") from exc
    if root.tag.lower() != "opml":
        raise OpmlError("not an OPML file: the root element is not <opml>")
    feeds: dict[str, OpmlFeed] = {}
    for outline in root.iter("outline"):
        url = (outline.get("xmlUrl") or outline.get("xmlurl") or "").strip()
        if url and url not in feeds:
            title = (outline.get("title") or outline.get("text") or "").strip()[:300]
            feeds[url] = OpmlFeed(url=url, title=title)
    if not feeds:
        raise OpmlError("the OPML file lists no feeds (no outline with an xmlUrl)")
    if len(feeds) > _OPML_MAX_FEEDS:
        raise OpmlError(f"the OPML file lists more than {_OPML_MAX_FEEDS} feeds")
    return list(feeds.values())
