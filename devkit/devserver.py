"""A small threaded HTTP server for local feeds and pages: the demo (``make run``) and tests.

Serves a mapping ``{path: (bytes, content_type)}`` or a directory, with ETag and
If-None-Match (304) so conditional GETs can be seen working end to end.
"""

from __future__ import annotations

import hashlib
import mimetypes
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

Routes = dict[str, tuple[bytes, str]]


class StaticSiteServer:
    """``StaticSiteServer(routes_or_directory, port=0).start()``; ``.base_url``; ``.stop()``.

    ``requests`` records the paths asked for (tests count fetches with it); ``set`` replaces
    or adds one route while the server runs.
    """

    def __init__(self, content: Routes | str | Path, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self._routes: Routes = {}
        self._directory: Path | None = None
        if isinstance(content, dict):
            self._routes = dict(content)
        else:
            self._directory = Path(content).resolve()
        self.requests: list[str] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer((host, port), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> StaticSiteServer:
        # A short poll interval so that stop() returns promptly.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="static-site", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def set(self, path: str, body: bytes, content_type: str) -> None:
        with self._lock:
            self._routes[path] = (body, content_type)

    def update(self, routes: Routes) -> None:
        with self._lock:
            self._routes.update(routes)

    def count(self, path: str) -> int:
        with self._lock:
            return self.requests.count(path)

    def _lookup(self, path: str) -> tuple[bytes, str] | None:
        with self._lock:
            self.requests.append(path)
            if path in self._routes:
                return self._routes[path]
        if self._directory is None:
            return None
        candidate = (self._directory / path.lstrip("/")).resolve()
        # Never serve outside the directory (``/../`` in a path).
        if not candidate.is_relative_to(self._directory) or not candidate.is_file():
            return None
        content_type = mimetypes.guess_type(candidate.name)[0] or "application/octet-stream"
        return candidate.read_bytes(), content_type

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                self._respond(with_body=True)

            def do_HEAD(self) -> None:
                self._respond(with_body=False)

            def _respond(self, *, with_body: bool) -> None:
                found = site._lookup(urlsplit(self.path).path)
                if found is None:
                    self._send(404, b"not found\n", "text/plain", with_body=with_body)
                    return
                body, content_type = found
                etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
                if etag in [tag.strip() for tag in self.headers.get("If-None-Match", "").split(",")]:
                    self.send_response(304)
                    self.send_header("ETag", etag)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self._send(200, body, content_type, with_body=with_body, etag=etag)

            def _send(self, status: int, body: bytes, content_type: str, *, with_body: bool, etag: str = "") -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                if etag:
                    self.send_header("ETag", etag)
                self.end_headers()
                if with_body:
                    self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                """Quiet: tests and the demo do not want a line per request on stderr."""

        return Handler
