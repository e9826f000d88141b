"""Purpose-built hostile HTTP servers for the research tests (real sockets on 127.0.0.1)."""

from __future__ import annotations

import contextlib
import gzip
import socket
import ssl
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

Behaviour = Callable[[BaseHTTPRequestHandler], None]

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<rss version="2.0"><channel><title>&lol9;</title>
<item><title>laugh</title><link>http://127.0.0.1/laugh</link></item></channel></rss>
"""

EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<rss version="2.0"><channel><title>&xxe;</title>
<item><title>&xxe;</title><link>http://127.0.0.1/xxe</link></item></channel></rss>
"""

BLOCK_PAGE = b"""<!DOCTYPE html><html><head><title>Attention Required! | Cloudflare</title></head>
<body><div class="cf-challenge">Please complete the security check to access this site.</div>
<div class="g-recaptcha" data-sitekey="x"></div></body></html>"""

CONSENT_WALL = b"""<!DOCTYPE html><html><head><title>Before you continue</title></head>
<body><form action="https://consent.example/save"><p>We use cookies and data to deliver our services.</p>
<button>Accept all</button><button>Reject all</button></form></body></html>"""


def rss(items: list[tuple[str, str]], *, title: str = "Test feed") -> bytes:
    body = "".join(
        f"<item><title>{item_title}</title><link>{link}</link><guid>{link}</guid>"
        f"<pubDate>Mon, 0{index % 9 + 1} Jun 2026 10:00:00 GMT</pubDate></item>"
        for index, (item_title, link) in enumerate(items)
    )
    return (
        f'<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>{title}</title>'
        f"<link>http://example.org/</link><description>d</description>{body}</channel></rss>"
    ).encode()


class HostileServer:
    """Serves ``behaviours[path](handler)``; each behaviour writes whatever it likes."""

    def __init__(self, *, tls: ssl.SSLContext | None = None) -> None:
        self.behaviours: dict[str, Behaviour] = {}
        self.hits: list[str] = []
        # As a forward proxy: the local port a CONNECT is tunnelled to, and what each asked.
        self.tunnel_to: int | None = None
        self.connects: list[tuple[str, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                server.hits.append(self.path)
                behaviour = server.behaviours.get(path)
                if behaviour is None:
                    send(self, 404, b"not found", "text/plain")
                    return
                # The fetcher hanging up mid-response is the point of most of these tests.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    behaviour(self)

            def do_CONNECT(self) -> None:
                server.connects.append((self.path, self.headers.get("Proxy-Authorization", "")))
                if server.tunnel_to is None:
                    send(self, 405, b"not a proxy", "text/plain")
                    return
                upstream = socket.create_connection(("127.0.0.1", server.tunnel_to))
                self.send_response(200, "Connection established")
                self.end_headers()
                tunnel(self.connection, upstream)
                self.close_connection = True

            def log_message(self, format: str, *args: object) -> None:
                """Quiet."""

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        if tls is not None:
            self._httpd.socket = tls.wrap_socket(self._httpd.socket, server_side=True)
        # Do not wait for dripping handler threads on close.
        self._httpd.block_on_close = False
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> HostileServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def tunnel(client: socket.socket, upstream: socket.socket) -> None:
    """Copy bytes both ways until either side hangs up (a CONNECT proxy's tunnel)."""

    def copy(source: socket.socket, target: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                target.sendall(data)
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)

    back = threading.Thread(target=copy, args=(upstream, client), daemon=True)
    back.start()
    copy(client, upstream)
    back.join(timeout=10)
    upstream.close()


def send(handler: BaseHTTPRequestHandler, status: int, body: bytes, content_type: str, **headers: str) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    for name, value in headers.items():
        handler.send_header(name.replace("_", "-"), value)
    handler.end_headers()
    handler.wfile.write(body)


def static(status: int, body: bytes, content_type: str, **headers: str) -> Behaviour:
    return lambda handler: send(handler, status, body, content_type, **headers)


def redirect(location: str, status: int = 302) -> Behaviour:
    return lambda handler: send(handler, status, b"", "text/plain", Location=location)


def drip(content_type: str = "application/rss+xml", seconds: int = 20) -> Behaviour:
    """One byte a second: never trips a per-read socket timeout, only a wall-clock deadline."""

    def behaviour(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(seconds))
        handler.end_headers()
        handler.wfile.flush()
        for _ in range(seconds):
            handler.wfile.write(b"<")
            handler.wfile.flush()
            time.sleep(1)

    return behaviour


def endless(content_type: str, total: int) -> Behaviour:
    """``total`` bytes streamed without a Content-Length (so only a streamed cap stops it)."""

    def behaviour(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Connection", "close")
        handler.end_headers()
        chunk = b"<item>" + b"x" * 65530
        sent = 0
        while sent < total:
            handler.wfile.write(chunk)
            sent += len(chunk)
        handler.close_connection = True

    return behaviour


def gzip_bomb(uncompressed: int) -> Behaviour:
    payload = gzip.compress(b"\0" * uncompressed, compresslevel=9)
    return static(200, payload, "application/rss+xml", Content_Encoding="gzip")


def self_signed_tls(directory: Path, *, name: str) -> tuple[ssl.SSLContext, Path]:
    """A server TLS context for ``name`` and the path of the certificate a client must trust."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.now(tz=UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path = directory / "cert.pem"
    key_path = directory / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_path, key_path)
    return context, cert_path
