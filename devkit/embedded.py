"""The embedded default's companions: the Graph sandbox and the bundled demo feeds.

``make run`` (``landed_run``) and ``make pipeline`` (``landed_pipeline``) start both in threads of the Django process,
on the addresses the settings point at, so the whole product runs offline with one
command. Nothing here is used in production.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from devkit.demo_feeds import demo_feed_site
from devkit.devserver import StaticSiteServer
from devkit.sandbox import GraphSandbox


@dataclass
class EmbeddedServices:
    sandbox_url: str
    feeds_url: str


def _port_in_use(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def embedded_services_start() -> EmbeddedServices:
    """Start the sandbox at GRAPH_API_BASE_URL and the demo feeds, unless already serving."""

    graph = urlsplit(settings.GRAPH_API_BASE_URL)
    host, port = graph.hostname or "127.0.0.1", graph.port or 80
    if host not in {"127.0.0.1", "localhost"}:
        raise RuntimeError(
            f"GRAPH_API_BASE_URL is {settings.GRAPH_API_BASE_URL}: the embedded sandbox only runs on 127.0.0.1."
        )
    if not _port_in_use(host, port):
        sandbox = GraphSandbox(
            state_path=settings.VAR_DIR / "sandbox.sqlite3",
            host=host,
            port=port,
            app_id=settings.FACEBOOK_APP_ID,
            app_secret=settings.FACEBOOK_APP_SECRET,
        )
        sandbox.start()
    feeds_port = settings.DEMO_FEEDS_PORT
    feeds_url = f"http://127.0.0.1:{feeds_port}"
    if not _port_in_use("127.0.0.1", feeds_port):
        feeds = StaticSiteServer(demo_feed_site(feeds_url), port=feeds_port)
        feeds.start()
    return EmbeddedServices(sandbox_url=settings.GRAPH_API_BASE_URL, feeds_url=feeds_url)
