"""Extraction on the real pages bundled in demo/articles: body in, menus and comments out."""

from __future__ import annotations

from pathlib import Path

import pytest

from research.extract import MIN_TEXT_CHARS, article_extract_bytes
from research.models import Article
from tests.research import servers

ARTICLES = Path(__file__).resolve().parents[2] / "demo" / "articles"


def extract(name: str):
    return article_extract_bytes((ARTICLES / name).read_bytes(), url=f"https://example.org/{name}")


@pytest.mark.parametrize("name", sorted(p.name for p in ARTICLES.glob("*.html")))
def test_every_bundled_page_extracts_as_a_usable_article(name: str) -> None:
    extraction = extract(name)

    assert extraction.status == Article.Extraction.OK
    assert len(extraction.text) >= MIN_TEXT_CHARS
    assert extraction.title


def test_the_text_is_the_article_body_not_the_comments_or_sidebar() -> None:
    extraction = extract("lemire.me.json.html")

    assert "JSON is the ubiquitous data format on the Internet" in extraction.text
    assert "simdjson can parse, validate a JSON document" in extraction.text
    assert "Thanks, for posting this" not in extraction.text  # a reader's comment
    assert "Leave a Reply" not in extraction.text
    assert "Recent Posts" not in extraction.text
    assert extraction.author and "Lemire" in extraction.author


def test_newsletter_boxes_and_related_links_stay_out_of_the_science_article() -> None:
    extraction = extract("nature.com.telescope.html")

    assert "single-dish radio observatory" in extraction.text
    assert "Sign up for Nature Briefing" not in extraction.text  # the newsletter box
    assert "Related Articles" not in extraction.text
    assert extraction.lead_image_url.startswith("https://media.nature.com/")


def test_the_lead_image_falls_back_to_og_image() -> None:
    page = (
        (ARTICLES / "blog.python.org.html")
        .read_bytes()
        .replace(b"</head>", b'<meta property="og:image" content="/static/release.png"></head>', 1)
    )

    extraction = article_extract_bytes(page, url="https://blog.python.org/2016/12/python-360.html")

    assert extraction.lead_image_url == "https://blog.python.org/static/release.png"


@pytest.mark.parametrize("page", [servers.BLOCK_PAGE, servers.CONSENT_WALL])
def test_block_pages_and_consent_walls_are_blocked_not_ok(page: bytes) -> None:
    assert article_extract_bytes(page, url="https://example.org/a").status == Article.Extraction.BLOCKED


def test_a_teaser_is_insufficient() -> None:
    page = (
        b"<html><head><title>Short</title></head><body><article><p>Just one sentence here.</p></article></body></html>"
    )

    extraction = article_extract_bytes(page, url="https://example.org/a")

    assert extraction.status == Article.Extraction.INSUFFICIENT


def test_an_article_about_consent_is_not_a_consent_wall() -> None:
    page = (ARTICLES / "salon.com.emissions.html").read_bytes()
    page = page.replace(b"<title>", b"<title>Consent decree: ", 1)

    assert article_extract_bytes(page, url="https://example.org/a").status == Article.Extraction.OK


@pytest.mark.parametrize("image", [b"http://[broken/lead.png", b"javascript:alert(1)", b"data:image/png;base64,AAAA"])
def test_a_lead_image_that_is_not_a_usable_http_url_is_dropped(image: bytes) -> None:
    page = (
        (ARTICLES / "blog.python.org.html")
        .read_bytes()
        .replace(b"</head>", b'<meta property="og:image" content="' + image + b'"></head>', 1)
    )

    extraction = article_extract_bytes(page, url="https://blog.python.org/2016/12/python-360.html")

    assert (extraction.status, extraction.lead_image_url) == (Article.Extraction.OK, "")


def test_the_stage_extracts_exactly_what_trafilatura_extract_would() -> None:
    # The stage calls bare_extraction to skip JSON serialisation; a trafilatura upgrade
    # that made the two disagree would silently change what the gate reads.
    import json
    from pathlib import Path

    import trafilatura

    from research.extract import article_extract_bytes

    for page in sorted((Path(__file__).resolve().parents[2] / "demo" / "articles").glob("*.html")):
        body = page.read_bytes()
        url = f"https://news.example/{page.name}"
        reference = json.loads(
            trafilatura.extract(
                body, url=url, favor_precision=True, with_metadata=True, include_comments=False, output_format="json"
            )
        )
        ours = article_extract_bytes(body, url=url)
        assert ours.text == (reference["text"] or "").strip(), page.name
        assert ours.title == (reference["title"] or "")[:1000], page.name
        assert ours.author == (reference["author"] or "")[:300], page.name
