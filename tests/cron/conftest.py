"""Fixtures for the cron tests: a real local HTTP server that records what it receives,
and the Redis broker queue the cron routes enqueue into."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import redis
from django.conf import settings


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class RecordingServer:
    """Answers each request with the next scripted status (the last one repeats)."""

    url: str
    statuses: list[int] = field(default_factory=lambda: [200])
    received: list[Received] = field(default_factory=list)


@pytest.fixture
def recording_server() -> Iterator[RecordingServer]:
    state = RecordingServer(url="")

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            index = min(len(state.received), len(state.statuses) - 1)
            state.received.append(Received(self.command, self.path, dict(self.headers.items()), body))
            self.send_response(state.statuses[index])
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        do_GET = do_POST = _answer

        def log_message(self, format: str, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hook/secret-path"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


@pytest.fixture
def broker() -> Iterator[redis.Redis]:
    """The Redis database Celery enqueues into, emptied before and after the test."""
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    client.flushdb()
    yield client
    client.flushdb()
    client.close()


def queued_messages(broker: redis.Redis) -> int:
    """Messages waiting in Celery's default queue (a Redis list named after the queue)."""
    return int(broker.llen("celery"))
