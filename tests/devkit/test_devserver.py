"""The small static site server behind the demo feeds and these tests."""

from __future__ import annotations

import http.client
import urllib.request
from urllib.error import HTTPError

import pytest

from devkit.demo_feeds import ATOM_PATH, RSS_PATH, STORIES, demo_feed_site
from devkit.devserver import StaticSiteServer


@pytest.fixture
def directory_site(tmp_path):
    (tmp_path / "feed.xml").write_bytes(b"<rss/>")
    (tmp_path.parent / "secret.txt").write_bytes(b"outside")
    server = StaticSiteServer(tmp_path).start()
    yield server
    server.stop()


def test_it_serves_a_directory_with_etags_and_304s(directory_site) -> None:
    with urllib.request.urlopen(f"{directory_site.base_url}/feed.xml") as response:
        etag = response.headers["ETag"]
        assert response.read() == b"<rss/>"

    conn = http.client.HTTPConnection("127.0.0.1", directory_site.port, timeout=5)
    conn.request("GET", "/feed.xml", headers={"If-None-Match": etag})
    assert conn.getresponse().status == 304
    conn.close()


def test_it_never_serves_outside_its_directory(directory_site) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", directory_site.port, timeout=5)
    conn.request("GET", "/../secret.txt")
    response = conn.getresponse()
    assert response.status == 404
    conn.close()
    with pytest.raises(HTTPError):
        urllib.request.urlopen(f"{directory_site.base_url}/missing.xml")


def test_the_demo_site_has_both_feeds_and_all_twelve_pages() -> None:
    routes = demo_feed_site("http://127.0.0.1:9999/")

    assert {RSS_PATH, ATOM_PATH} <= set(routes)
    assert len([path for path in routes if path.startswith("/articles/")]) == len(STORIES) == 12
    assert routes[RSS_PATH][0].count(b"<item>") == 12
    assert b"http://127.0.0.1:9999/articles/nature.com.telescope.html" in routes[RSS_PATH][0]
