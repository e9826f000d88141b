"""The demo business's feeds: audio-trade pages with their own images, and a mixed digest."""

from __future__ import annotations

import re

import pytest
import requests

from devkit.demo_feeds import AUDIO_FEED_PATH, AUDIO_STORIES, DIGEST_FEED_PATH, DIGEST_STORIES, demo_feed_site
from research import services
from research.models import Article

pytestmark = pytest.mark.django_db

JPEG_START = b"\xff\xd8\xff"


def test_every_audio_page_has_its_lead_image_served_as_a_small_jpeg(demo_site) -> None:
    for story in AUDIO_STORIES:
        response = requests.get(f"{demo_site.base_url}/audio/images/{story.image}", timeout=5)

        assert response.status_code == 200, story.image
        assert response.headers["Content-Type"] == "image/jpeg"
        assert response.content.startswith(JPEG_START), story.image
        # A demo image is a few KB, not a photograph's megabytes.
        assert 1_000 < len(response.content) < 20_000, story.image


def test_audio_pages_point_at_this_server_and_carry_the_feed_date() -> None:
    routes = demo_feed_site("http://127.0.0.1:9999/")
    feed = routes[AUDIO_FEED_PATH][0].decode()

    for story in AUDIO_STORIES:
        page = routes[story.path][0].decode()
        assert "{{" not in page, story.path
        og_image = re.search(r'<meta property="og:image" content="([^"]+)"', page)
        assert og_image and og_image.group(1) == f"http://127.0.0.1:9999/audio/images/{story.image}"
        published = re.search(r'<meta property="article:published_time" content="([^"]+)"', page)
        assert published, story.path
        assert f"<link>http://127.0.0.1:9999{story.path}</link>" in feed


def test_each_audio_page_extracts_to_an_article_of_at_least_200_words(account, demo_site) -> None:
    # given the demo business's trade feed
    services.source_subscribe(account=account, url=f"{demo_site.base_url}{AUDIO_FEED_PATH}")

    # when research runs over it
    services.research_run_for_account(account=account)

    # then every page became a usable article: its body, its author, its own image
    articles = {article.canonical_url: article for article in Article.objects.all()}
    assert len(articles) == len(AUDIO_STORIES) == 8
    for story in AUDIO_STORIES:
        article = articles[f"{demo_site.base_url}{story.path}"]
        assert article.extraction_status == Article.Extraction.OK, (story.path, article.extraction_error)
        words = len(article.text.split())
        assert 200 <= words <= 600, (story.path, words)
        assert article.author == story.author
        assert article.lead_image_url == f"{demo_site.base_url}/audio/images/{story.image}"
        # the page's chrome and its readers' comments are not the article
        for chrome in ("Leave a Reply", "Most read", "Have your say", "Reader comments", "Comments (", "Sign up"):
            assert chrome not in article.text, (story.path, chrome)


def test_the_digest_mixes_other_trades_with_two_audio_stories_stored_once(account, demo_site) -> None:
    services.source_subscribe(account=account, url=f"{demo_site.base_url}{AUDIO_FEED_PATH}")
    services.source_subscribe(account=account, url=f"{demo_site.base_url}{DIGEST_FEED_PATH}")

    services.research_run_for_account(account=account)

    audio_in_digest = [story for story in DIGEST_STORIES if story.path.startswith("/audio/")]
    off_topic = [story for story in DIGEST_STORIES if story.path.startswith("/articles/")]
    assert len(audio_in_digest) == 2 and len(off_topic) == 4
    # The digest's tracking-tagged links found the trade feed's stories, not new ones.
    assert Article.objects.count() == len(AUDIO_STORIES) + len(off_topic)
    for story in off_topic:
        article = Article.objects.get(canonical_url=f"{demo_site.base_url}{story.path}")
        assert article.extraction_status == Article.Extraction.OK
