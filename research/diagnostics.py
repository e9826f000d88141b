"""The operator's diagnostic: fetch one feed exactly as the research stage would."""

from __future__ import annotations

import time
from typing import Any

from research.errors import FeedParseError, FetchError
from research.extract import article_extract_bytes
from research.feeds import feed_parse
from research.fetch import Purpose, fetch_url
from research.models import Article


def source_diagnose(*, url: str) -> dict[str, Any]:
    """Same fetcher, limits and parsing as a research run; nothing is written.

    ``ok`` means the feed parsed with entries and its newest article extracted usable text.
    Every fetch is bounded by the research deadline, so this never hangs past it.
    """
    report: dict[str, Any] = {
        "url": url,
        "ok": False,
        "error_kind": "",
        "error_detail": "",
        "status": None,
        "elapsed_s": 0.0,
        "bytes_read": 0,
        "entries": 0,
        "feed_title": "",
        "article": None,
    }
    started = time.monotonic()
    try:
        result = fetch_url(url, purpose=Purpose.FEED)
        report.update(status=result.status, bytes_read=result.bytes_read, final_url=result.url)
        feed = feed_parse(result.body, base_url=result.url)
    except (FetchError, FeedParseError) as exc:
        report.update(error_kind=str(exc.kind), error_detail=exc.detail)
        if isinstance(exc, FetchError):
            report.update(status=exc.status, bytes_read=exc.bytes_read)
        report["elapsed_s"] = round(time.monotonic() - started, 3)
        return report
    report.update(entries=len(feed.entries), feed_title=feed.title, feed_version=feed.version)
    report["elapsed_s"] = round(time.monotonic() - started, 3)

    newest = max(feed.entries, key=lambda e: e.published_at.timestamp() if e.published_at else 0.0)
    report["article"] = _article_report(newest.url)
    report["ok"] = report["article"]["extraction_status"] == Article.Extraction.OK
    if not report["ok"]:
        report["error_kind"] = report["article"]["error_kind"]
    return report


def _article_report(url: str) -> dict[str, Any]:
    started = time.monotonic()
    article: dict[str, Any] = {"url": url, "status": None, "error_kind": "", "error": ""}
    try:
        page = fetch_url(url, purpose=Purpose.PAGE)
    except FetchError as exc:
        article.update(
            status=exc.status,
            error_kind=str(exc.kind),
            error=exc.detail,
            extraction_status=Article.Extraction.BLOCKED if exc.kind == "blocked" else Article.Extraction.FAILED,
            text_chars=0,
        )
    else:
        extraction = article_extract_bytes(page.body, url=page.url)
        article.update(
            status=page.status,
            bytes_read=page.bytes_read,
            title=extraction.title,
            extraction_status=str(extraction.status),
            text_chars=len(extraction.text),
            error=extraction.error,
            error_kind="blocked" if extraction.status == Article.Extraction.BLOCKED else "",
        )
    article["elapsed_s"] = round(time.monotonic() - started, 3)
    return article
