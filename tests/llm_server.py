"""A real local HTTP server speaking the OpenAI chat-completions protocol, for tests.

Tests script its replies one request at a time (``server.script(Reply.ok(...), Reply.throttled(...))``);
once the script runs out it repeats the last reply. Every request is recorded (path, headers,
parsed JSON body) so a test can assert on exactly what the real ``openai`` client sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ORGANIZATION = "org-landed-test"


@dataclass(frozen=True)
class Reply:
    """One scripted answer: an HTTP status, headers and a raw body, optionally after a delay."""

    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0

    @classmethod
    def ok(
        cls,
        content: str | dict[str, Any],
        *,
        prompt_tokens: int = 120,
        completion_tokens: int = 40,
        model: str = "gpt-4o-mini",
    ) -> Reply:
        """A normal completion; a dict ``content`` is sent as the JSON text the model produced."""
        text = content if isinstance(content, str) else json.dumps(content)
        return cls._completion(
            {"role": "assistant", "content": text, "refusal": None}, prompt_tokens, completion_tokens, model
        )

    @classmethod
    def refusal(cls, reason: str = "I'm sorry, I can't help with that.") -> Reply:
        return cls._completion({"role": "assistant", "content": None, "refusal": reason}, 30, 10, "gpt-4o-mini")

    @classmethod
    def throttled(cls, *, retry_after: str = "0.05") -> Reply:
        body = {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}
        return cls(429, json.dumps(body).encode(), {"retry-after": retry_after, "openai-organization": ORGANIZATION})

    @classmethod
    def server_error(cls, status: int = 500) -> Reply:
        body = {"error": {"message": "The server had an error", "type": "server_error", "code": None}}
        # retry-after keeps the client's backoff short so tests stay fast.
        return cls(status, json.dumps(body).encode(), {"retry-after": "0.05"})

    @classmethod
    def garbage_body(cls) -> Reply:
        """A 200 whose body is not JSON at all (a proxy's HTML error page, say)."""
        return cls(200, b"<html><body>Bad gateway</body></html>", {"content-type": "text/html"})

    @classmethod
    def slow(cls, delay_s: float, content: str | dict[str, Any] = "{}") -> Reply:
        reply = cls.ok(content)
        return cls(reply.status, reply.body, reply.headers, delay_s)

    @classmethod
    def _completion(cls, message: dict[str, Any], prompt_tokens: int, completion_tokens: int, model: str) -> Reply:
        body = {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        return cls(200, json.dumps(body).encode(), {"openai-organization": ORGANIZATION})


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class LLMServer:
    """Threaded chat-completions server on 127.0.0.1 with an ephemeral port."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._script: list[Reply] = [Reply.ok("{}")]
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> LLMServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        # Wake any handler sleeping in a "slow" reply so shutdown does not wait for it.
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._script = list(replies)
            self.requests.clear()

    def _next_reply(self) -> Reply:
        with self._lock:
            return self._script.pop(0) if len(self._script) > 1 else self._script[0]

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_unparsed": raw.decode("utf-8", "replace")}
                with server._lock:
                    server.requests.append(
                        RecordedRequest(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(Reply(404, b'{"error": {"message": "not found"}}'))
                    return
                reply = server._next_reply()
                if reply.delay_s and server._stopping.wait(reply.delay_s):
                    return
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                try:
                    self.send_response(reply.status)
                    headers = {"content-type": "application/json", **reply.headers}
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("content-length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    # The client gave up (its timeout fired): nothing left to answer.
                    return

            def log_message(self, format: str, *args: Any) -> None:
                return

        return Handler


def serve_llm(settings: Any, *, timeout_s: float = 2.0, max_retries: int = 2) -> Iterator[LLMServer]:
    """Body of a pytest fixture: start a server and point Django's OpenAI settings at it.

    ``settings`` is pytest-django's fixture, so every override is undone after the test.
    """
    server = LLMServer().start()
    settings.OPENAI_API_KEY = "sk-test-landed-0123456789"
    settings.OPENAI_BASE_URL = server.base_url
    settings.OPENAI_MODEL = "gpt-4o-mini"
    settings.OPENAI_TIMEOUT_S = timeout_s
    settings.OPENAI_MAX_RETRIES = max_retries
    try:
        yield server
    finally:
        server.stop()
