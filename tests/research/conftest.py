"""Research fixtures: the demo site and hostile servers on 127.0.0.1, short deadlines."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from devkit.demo_feeds import demo_feed_site
from devkit.devserver import StaticSiteServer
from tests.research.servers import HostileServer


@pytest.fixture(autouse=True)
def research_settings(settings):
    # Short deadlines and small caps keep hostile cases fast; no politeness delay locally.
    settings.RESEARCH_TIMEOUT_S = 2.0
    settings.RESEARCH_HOST_DELAY_S = 0.0
    settings.RESEARCH_FEED_MAX_BYTES = 1024 * 1024
    settings.RESEARCH_PAGE_MAX_BYTES = 1024 * 1024
    settings.RESEARCH_ALLOW_HOSTS = []
    settings.RESEARCH_PROXY_URL = ""
    settings.RESEARCH_CA_FILE = ""
    # The demo RSS feed has 12 stories; the production default takes the newest 10.
    settings.RESEARCH_MAX_ARTICLES_PER_FEED = 20
    return settings


def allow(settings, port: int) -> None:
    settings.RESEARCH_ALLOW_HOSTS = [*settings.RESEARCH_ALLOW_HOSTS, f"127.0.0.1:{port}"]


@pytest.fixture(scope="session")
def demo_server() -> Iterator[StaticSiteServer]:
    server = StaticSiteServer({})
    server.update(demo_feed_site(server.base_url))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def demo_site(demo_server: StaticSiteServer, research_settings) -> StaticSiteServer:
    allow(research_settings, demo_server.port)
    # A fresh routes table and request log for each test; the session server stays up.
    demo_server.requests.clear()
    demo_server.update(demo_feed_site(demo_server.base_url))
    return demo_server


@pytest.fixture
def site(research_settings) -> Iterator[StaticSiteServer]:
    """An empty static site a test fills with its own feeds and pages."""
    server = StaticSiteServer({}).start()
    allow(research_settings, server.port)
    yield server
    server.stop()


@pytest.fixture
def hostile(research_settings) -> Iterator[HostileServer]:
    server = HostileServer().start()
    allow(research_settings, server.port)
    yield server
    server.stop()
