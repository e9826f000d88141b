"""The one way research reaches the internet: a fetcher you can point at hostile URLs.

Rules (issue 3):

* only ``http``/``https``; the host is resolved once per hop and every address it resolves
  to must be public (no loopback, private, link-local, multicast, reserved, unspecified, in
  any IPv4/IPv6 spelling, including IPv4 embedded in IPv6), and the TCP connection goes to
  the address that was checked, so a rebinding DNS answer cannot swap it afterwards;
* every redirect hop (at most ``MAX_REDIRECTS``) is checked again;
* one wall-clock deadline covers the whole fetch, redirects and a dripping body included;
  a watchdog shuts the socket when it passes, because socket timeouts only bound a single
  ``recv`` and a server sending one byte a second never trips them;
* bodies are streamed under a byte cap, and decompression is capped too (a gzip bomb
  stops at the cap, not at the end of memory);
* conditional GET (ETag / Last-Modified) so that a 304 costs no parsing;
* ``settings.RESEARCH_ALLOW_HOSTS`` (``host`` or ``host:port``) is the only way to reach an
  address that would be refused; it matches the host exactly as written in the URL, so a
  redirect from an allowed host to anywhere else is judged on its own;
* ``settings.RESEARCH_PROXY_URL`` sends fetches through an egress proxy (the proxy then
  resolves the name; we still refuse names that resolve to private addresses here).

We use ``http.client`` rather than ``requests`` here: pinning the checked address, the
deadline watchdog and capped decompression all need control over the socket and the raw
byte stream that ``requests`` (and its automatic decompression and retries) hides.
"""

from __future__ import annotations

import base64
import contextlib
import heapq
import http.client
import ipaddress
import itertools
import logging
import os
import socket
import ssl
import threading
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, replace
from enum import StrEnum
from urllib.parse import quote, unquote, urljoin, urlsplit

import certifi
import redis
from django.conf import settings

from research.errors import FetchError
from research.models import ErrorKind

logger = logging.getLogger(__name__)

MAX_REDIRECTS = 5
# How long a fetch may wait for its turn at a busy host, in multiples of the request timeout.
GATE_WAIT_FACTOR = 3
_CHUNK = 64 * 1024
_REDIRECT_STATUSES = {301, 302, 303, 307, 308}
# 403/429/451 from a publisher mean "not for you", not "broken": a block, for the operator.
_BLOCK_STATUSES = {403, 429, 451}
_PATH_SAFE = "/%?=&;:@!$'()*+,~-._[]"

Resolver = Callable[[str, int], list[str]]


class Purpose(StrEnum):
    FEED = "feed"
    PAGE = "page"


_ACCEPT = {
    Purpose.FEED: "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1",
    Purpose.PAGE: "text/html, application/xhtml+xml;q=0.9, */*;q=0.1",
}


@dataclass(frozen=True)
class FetchResult:
    url: str
    status: int
    body: bytes
    content_type: str
    etag: str
    last_modified: str
    elapsed_s: float
    bytes_read: int

    @property
    def not_modified(self) -> bool:
        return self.status == 304


def fetch_url(
    url: str,
    *,
    purpose: Purpose,
    etag: str = "",
    last_modified: str = "",
    resolver: Resolver | None = None,
) -> FetchResult:
    """GET ``url`` under the rules above; a ``FetchError`` says why nothing usable came back.

    ``resolver`` replaces the system DNS lookup; tests use it to play a DNS server they
    cannot run here (names resolving to private addresses, rebinding answers).
    """
    timeout_s = float(settings.RESEARCH_TIMEOUT_S)
    max_bytes = settings.RESEARCH_FEED_MAX_BYTES if purpose is Purpose.FEED else settings.RESEARCH_PAGE_MAX_BYTES
    started = time.monotonic()
    deadline = started + timeout_s
    resolve = resolver or _system_resolve
    current = url
    for _hop in range(MAX_REDIRECTS + 1):
        try:
            response = _fetch_once(
                current,
                purpose=purpose,
                etag=etag,
                last_modified=last_modified,
                deadline=deadline,
                max_bytes=int(max_bytes),
                resolve=resolve,
            )
        except FetchError as exc:
            exc.elapsed_s = time.monotonic() - started
            raise
        deadline += response.waited_s
        if response.location is None:
            not_modified = response.status == 304
            return FetchResult(
                url=current,
                status=response.status,
                body=response.body,
                content_type=response.content_type,
                # A 304 need not repeat the validators; the ones we sent still hold.
                etag=response.etag or (etag if not_modified else ""),
                last_modified=response.last_modified or (last_modified if not_modified else ""),
                elapsed_s=time.monotonic() - started,
                bytes_read=response.bytes_read,
            )
        current = urljoin(current, response.location)
    raise FetchError(
        ErrorKind.TOO_MANY_REDIRECTS,
        f"more than {MAX_REDIRECTS} redirects",
        elapsed_s=time.monotonic() - started,
    )


# --- One hop ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Hop:
    status: int
    body: bytes
    content_type: str
    etag: str
    last_modified: str
    bytes_read: int
    location: str | None
    waited_s: float = 0.0


@dataclass(frozen=True)
class _Target:
    scheme: str
    host: str
    port: int
    path: str


def _fetch_once(
    url: str,
    *,
    purpose: Purpose,
    etag: str,
    last_modified: str,
    deadline: float,
    max_bytes: int,
    resolve: Resolver,
) -> _Hop:
    target = parse_target(url)
    addresses = checked_addresses(target, deadline=deadline, resolve=resolve)
    headers = {
        "User-Agent": settings.RESEARCH_USER_AGENT,
        "Accept": _ACCEPT[purpose],
        "Accept-Encoding": "gzip, deflate",
        "Connection": "close",
    }
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    # Waiting for a turn at a busy host is politeness, not the host being slow: the
    # request's own deadline starts once it has its turn (the wait is bounded separately).
    gate_wait_s = GATE_WAIT_FACTOR * float(settings.RESEARCH_TIMEOUT_S)
    # One publisher is one host and port (two local test servers are two publishers).
    with HostGate(f"{target.host}:{target.port}", max_wait_s=gate_wait_s) as gate:
        deadline += gate.waited_s
        return _request(
            target,
            url=url,
            addresses=addresses,
            headers=headers,
            purpose=purpose,
            deadline=deadline,
            max_bytes=max_bytes,
            waited_s=gate.waited_s,
        )


def _request(
    target: _Target,
    *,
    url: str,
    addresses: list[str],
    headers: dict[str, str],
    purpose: Purpose,
    deadline: float,
    max_bytes: int,
    waited_s: float,
) -> _Hop:
    with _Watchdog(deadline) as watchdog:
        conn = _connection(target, addresses=addresses, watchdog=watchdog, deadline=deadline)
        try:
            request_path = target.path
            if settings.RESEARCH_PROXY_URL and target.scheme == "http":
                # A forward proxy takes the absolute URI (and its credentials) for plain HTTP.
                request_path = url.split("#", 1)[0]
                headers = {**headers, **proxy_auth_headers(settings.RESEARCH_PROXY_URL)}
            conn.request("GET", request_path, headers=headers)
            response = conn.getresponse()
            hop = _read_response(response, target=target, purpose=purpose, max_bytes=max_bytes, watchdog=watchdog)
            return replace(hop, waited_s=waited_s)
        except FetchError:
            raise
        except TimeoutError as exc:
            raise FetchError(ErrorKind.TIMEOUT, f"no answer from {target.host} in time") from exc
        except ssl.SSLError as exc:
            if watchdog.fired:
                raise FetchError(ErrorKind.TIMEOUT, f"{target.host} did not finish in time") from exc
            raise FetchError(ErrorKind.CONNECT, f"TLS failed with {target.host}: {exc.reason}") from exc
        except (UnicodeError, ValueError) as exc:
            # Raised by http.client for URLs it will not put on the wire (control characters).
            raise FetchError(ErrorKind.BAD_URL, "URL cannot be sent") from exc
        except (http.client.HTTPException, OSError) as exc:
            if watchdog.fired:
                raise FetchError(ErrorKind.TIMEOUT, f"{target.host} did not finish in time") from exc
            kind = ErrorKind.PARSE if isinstance(exc, http.client.HTTPException) else ErrorKind.CONNECT
            raise FetchError(kind, f"{type(exc).__name__} talking to {target.host}") from exc
        finally:
            conn.close()


def parse_target(url: str) -> _Target:
    """Split an http(s) URL, refusing anything else (other schemes, credentials, junk ports)."""
    if len(url) > 2000:
        raise FetchError(ErrorKind.BAD_URL, "URL longer than 2000 characters")
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise FetchError(ErrorKind.BAD_URL, "URL cannot be parsed") from exc
    scheme = parts.scheme.lower()
    if scheme not in {"http", "https"}:
        raise FetchError(ErrorKind.BAD_URL, "only http and https URLs are fetched")
    if parts.username or parts.password:
        raise FetchError(ErrorKind.BAD_URL, "URLs with credentials are not fetched")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise FetchError(ErrorKind.BAD_URL, "URL has no host")
    # Percent-encode what a feed may contain raw (spaces, non-ASCII) but http.client refuses.
    path = quote(parts.path or "/", safe=_PATH_SAFE)
    if parts.query:
        path = f"{path}?{quote(parts.query, safe=_PATH_SAFE)}"
    return _Target(scheme=scheme, host=host, port=port or (443 if scheme == "https" else 80), path=path)


def checked_addresses(target: _Target, *, deadline: float, resolve: Resolver | None = None) -> list[str]:
    """Resolve the host once and return the addresses to connect to, or refuse.

    Every address the name resolves to must be public: a name answering with one public and
    one private address is refused, since we cannot tell which one a retry would use.
    """
    addresses = _resolve_within(target.host, target.port, deadline=deadline, resolve=resolve or _system_resolve)
    if not addresses:
        raise FetchError(ErrorKind.DNS, f"{target.host} has no address")
    if not host_is_allowed(target.host, target.port):
        for address in addresses:
            reason = refused_reason(address)
            if reason:
                raise FetchError(ErrorKind.REFUSED_ADDRESS, f"{target.host} resolves to a {reason} address")
    return addresses


def host_is_allowed(host: str, port: int) -> bool:
    """The explicit allow list: ``host`` or ``host:port``, matched as written in the URL."""
    host = host.lower().strip("[]")
    for entry in settings.RESEARCH_ALLOW_HOSTS:
        entry = entry.strip().lower()
        if entry.startswith("["):
            name, _, rest = entry[1:].partition("]")
            entry_port = rest.lstrip(":")
        elif entry.count(":") == 1:
            name, _, entry_port = entry.partition(":")
        else:
            name, entry_port = entry, ""
        if name == host and (not entry_port or entry_port == str(port)):
            return True
    return False


def refused_reason(address: str) -> str:
    """Why an address must not be fetched ("" if it is public).

    IPv6 forms that embed an IPv4 address (mapped ``::ffff:a.b.c.d``, 6to4, Teredo, NAT64)
    are judged by the IPv4 address inside, so ``[::ffff:127.0.0.1]`` is loopback.
    """
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return "unparseable"
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            return refused_reason(str(embedded))
    checks = (
        ("unspecified", ip.is_unspecified),
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        ("private", ip.is_private),
        ("reserved", ip.is_reserved),
        ("non-global", not ip.is_global),
    )
    for name, hit in checks:
        if hit:
            return name
    return ""


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in ipaddress.IPv6Network("64:ff9b::/96") or ip in ipaddress.IPv6Network("::/96"):
        # NAT64 well-known prefix and the deprecated IPv4-compatible form.
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def _system_resolve(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


# getaddrinfo has no timeout of its own; a few threads let us give up on it at the deadline.
_resolver_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="research-dns")


def _new_resolver_pool() -> None:
    global _resolver_pool
    _resolver_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="research-dns")


# A forked child (a prefork Celery worker) inherits the pool without its threads: lookups
# would queue with nobody to run them and every fetch would end as a DNS timeout.
os.register_at_fork(after_in_child=_new_resolver_pool)


def _resolve_within(host: str, port: int, *, deadline: float, resolve: Resolver) -> list[str]:
    # Messages name the host as the URL spells it: decoded, it may hold a NUL or a newline.
    future = _resolver_pool.submit(resolve, unquote(host).strip("[]"), port)
    try:
        return future.result(timeout=max(0.0, deadline - time.monotonic()))
    except FutureTimeout as exc:
        raise FetchError(ErrorKind.TIMEOUT, f"DNS lookup of {host} timed out") from exc
    except (OSError, UnicodeError) as exc:
        raise FetchError(ErrorKind.DNS, f"{host} could not be resolved") from exc


# --- Connections -----------------------------------------------------------------------


class _Watchdog:
    """Shuts every socket of one hop down when the deadline passes.

    It keeps a duplicate of each socket's descriptor: ``shutdown`` acts on the connection,
    not the descriptor, so this also interrupts the TLS socket that wraps (and detaches)
    the original one. The shared ``_deadlines`` thread calls ``fire`` at the deadline.
    """

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.fired = False
        self._closed = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def __enter__(self) -> _Watchdog:
        _deadlines.add(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:
            self._closed = True
            for sock in self._sockets:
                sock.close()
            self._sockets.clear()

    def watch(self, sock: socket.socket) -> None:
        duplicate = sock.dup()
        with self._lock:
            self._sockets.append(duplicate)
            if self.fired:
                _shutdown(duplicate)

    def fire(self) -> None:
        with self._lock:
            if self._closed:
                return  # the hop finished in time
            self.fired = True
            for sock in self._sockets:
                _shutdown(sock)


class _DeadlineThread:
    """One thread per process fires every watchdog at its deadline.

    A ``threading.Timer`` per hop started and stopped a thread per fetch, which cost about
    as much CPU as the fetch itself on a fast network (docs/BENCHMARKS.md). Watchdogs whose
    hop finished stay queued until their deadline and are skipped then. After a fork (a
    prefork Celery worker) the child starts its own thread: the parent's does not exist there.
    """

    def __init__(self) -> None:
        self._reset()
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._cond = threading.Condition()
        self._queue: list[tuple[float, int, _Watchdog]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None

    def add(self, watchdog: _Watchdog) -> None:
        with self._cond:
            heapq.heappush(self._queue, (watchdog.deadline, next(self._order), watchdog))
            if self._thread is None:
                thread = threading.Thread(target=self._run, name="research-deadlines", daemon=True)
                thread.start()
                self._thread = thread
            elif self._queue[0][2] is watchdog:
                self._cond.notify()  # earlier than what the thread sleeps towards

    def _run(self) -> None:
        while True:
            with self._cond:
                while True:
                    if not self._queue:
                        self._cond.wait()
                        continue
                    wait = self._queue[0][0] - time.monotonic()
                    if wait <= 0:
                        break
                    self._cond.wait(wait)
                due = heapq.heappop(self._queue)[2]
            try:
                due.fire()
            except Exception:
                # This thread stopping would leave every later fetch without a deadline.
                logger.exception("research fetch watchdog failed to fire")


_deadlines = _DeadlineThread()


def _shutdown(sock: socket.socket) -> None:
    # An already closed socket has nothing left to interrupt.
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _connection(
    target: _Target, *, addresses: list[str], watchdog: _Watchdog, deadline: float
) -> http.client.HTTPConnection:
    timeout = max(0.001, deadline - time.monotonic())
    proxy = settings.RESEARCH_PROXY_URL
    if proxy:
        return _proxy_connection(target, proxy=proxy, watchdog=watchdog, timeout=timeout)
    conn: http.client.HTTPConnection
    if target.scheme == "https":
        conn = http.client.HTTPSConnection(target.host, target.port, timeout=timeout, context=_tls_context())
    else:
        conn = http.client.HTTPConnection(target.host, target.port, timeout=timeout)

    def create_pinned(
        _addr: tuple[str, int], timeout: float, source_address: tuple[str, int] | None = None
    ) -> socket.socket:
        # Connect only to the addresses we checked (in the resolver's order, as a normal
        # client would); the Host header and TLS SNI/certificate check still use the name,
        # because the connection object keeps it as ``host``.
        failure: OSError | None = None
        for address in addresses:
            try:
                remaining = max(0.001, deadline - time.monotonic())
                sock = socket.create_connection((address, target.port), min(timeout, remaining), source_address)
            except OSError as exc:
                failure = exc
                continue
            watchdog.watch(sock)
            return sock
        assert failure is not None  # checked_addresses never returns an empty list
        raise failure

    # The hook HTTPConnection.connect() calls to open its socket; private, so typeshed leaves it out.
    conn._create_connection = create_pinned  # type: ignore[attr-defined]
    return conn


def _proxy_connection(
    target: _Target, *, proxy: str, watchdog: _Watchdog, timeout: float
) -> http.client.HTTPConnection:
    proxy_parts = urlsplit(proxy)
    proxy_host = proxy_parts.hostname or ""
    proxy_port = proxy_parts.port or 3128
    conn: http.client.HTTPConnection
    if target.scheme == "https":
        # CONNECT tunnel through the proxy; TLS (SNI, certificate) is with the target host.
        conn = http.client.HTTPSConnection(proxy_host, proxy_port, timeout=timeout, context=_tls_context())
        conn.set_tunnel(target.host, target.port, headers=proxy_auth_headers(proxy))
    else:
        conn = http.client.HTTPConnection(proxy_host, proxy_port, timeout=timeout)

    def create_watched(
        addr: tuple[str, int], timeout: float, source_address: tuple[str, int] | None = None
    ) -> socket.socket:
        sock = socket.create_connection(addr, timeout, source_address)
        watchdog.watch(sock)
        return sock

    # The hook HTTPConnection.connect() calls to open its socket; private, so typeshed leaves it out.
    conn._create_connection = create_watched  # type: ignore[attr-defined]
    return conn


def proxy_auth_headers(proxy: str) -> dict[str, str]:
    """Basic credentials from the proxy URL's user info (never logged, never in errors)."""
    parts = urlsplit(proxy)
    if not parts.username:
        return {}
    raw = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
    return {"Proxy-Authorization": "Basic " + base64.b64encode(raw).decode()}


_tls = threading.local()


def _tls_context() -> ssl.SSLContext:
    """Certificate-verifying TLS, with certifi's bundle unless RESEARCH_CA_FILE names one."""
    cafile = settings.RESEARCH_CA_FILE or certifi.where()
    cached = getattr(_tls, "context", None)
    if cached is None or cached[0] != cafile:
        cached = (cafile, ssl.create_default_context(cafile=cafile))
        _tls.context = cached
    return cached[1]


# --- Reading a response ----------------------------------------------------------------


def _read_response(
    response: http.client.HTTPResponse, *, target: _Target, purpose: Purpose, max_bytes: int, watchdog: _Watchdog
) -> _Hop:
    status = response.status
    headers = response.headers
    if status in _REDIRECT_STATUSES:
        location = headers.get("Location")
        if not location:
            raise FetchError(ErrorKind.PARSE, f"redirect without a Location from {target.host}", status=status)
        return _Hop(status, b"", "", "", "", 0, location)
    if status == 304:
        return _Hop(status, b"", "", headers.get("ETag", ""), headers.get("Last-Modified", ""), 0, None)
    if status in _BLOCK_STATUSES:
        raise FetchError(ErrorKind.BLOCKED, f"{target.host} answered {status}", status=status)
    if not 200 <= status < 300:
        kind = ErrorKind.HTTP_5XX if status >= 500 else ErrorKind.HTTP_4XX
        raise FetchError(kind, f"{target.host} answered {status}", status=status)

    content_type = (headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
    if not content_type_accepted(content_type, purpose=purpose):
        raise FetchError(
            ErrorKind.CONTENT_TYPE, f"{content_type or 'no content type'} is not a {purpose}", status=status
        )
    declared = headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise FetchError(ErrorKind.TOO_LARGE, f"declared {declared} bytes, cap is {max_bytes}", status=status)

    decoder = _Decoder(headers.get("Content-Encoding", ""), max_bytes=max_bytes)
    raw_read = 0
    while True:
        if watchdog.fired:
            raise FetchError(ErrorKind.TIMEOUT, f"{target.host} did not finish in time", status=status)
        chunk = response.read1(_CHUNK)
        if not chunk:
            break
        raw_read += len(chunk)
        if raw_read > max_bytes:
            raise FetchError(ErrorKind.TOO_LARGE, f"more than {max_bytes} bytes", status=status, bytes_read=raw_read)
        decoder.feed(chunk)
    if watchdog.fired:
        raise FetchError(ErrorKind.TIMEOUT, f"{target.host} did not finish in time", status=status)
    if response.length:
        raise FetchError(ErrorKind.PARSE, f"body from {target.host} was cut short", status=status)
    return _Hop(
        status=status,
        body=decoder.finish(),
        content_type=content_type,
        etag=headers.get("ETag", ""),
        last_modified=headers.get("Last-Modified", ""),
        bytes_read=raw_read,
        location=None,
    )


def content_type_accepted(content_type: str, *, purpose: Purpose) -> bool:
    """Feeds are served under many XML-ish types (and often as text/plain); pages as HTML.

    HTML is accepted for feeds too, so that a block page or a site that serves its feed as
    text/html reaches the parser and the block-page check, which classify it properly.
    """
    if not content_type or content_type in {"application/octet-stream", "text/plain"}:
        return True
    if purpose is Purpose.FEED:
        return "xml" in content_type or "rss" in content_type or "atom" in content_type or content_type == "text/html"
    return content_type in {"text/html", "application/xhtml+xml"}


class _Decoder:
    """Content-Encoding decoding that never produces more than ``max_bytes``."""

    def __init__(self, encoding: str, *, max_bytes: int) -> None:
        encoding = encoding.strip().lower()
        self._max = max_bytes
        self._parts: list[bytes] = []
        self._size = 0
        self._first_deflate = encoding == "deflate"
        if encoding in {"", "identity"}:
            self._zlib = None
        elif encoding in {"gzip", "x-gzip"}:
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._zlib = zlib.decompressobj()
        else:
            raise FetchError(ErrorKind.PARSE, f"unsupported content encoding {encoding[:40]!r}")

    def feed(self, data: bytes) -> None:
        if self._zlib is None:
            self._append(data)
            return
        try:
            if self._first_deflate:
                self._first_deflate = False
                try:
                    self._decompress(data)
                    return
                except zlib.error:
                    # Some servers send raw deflate without the zlib header.
                    self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
            self._decompress(data)
        except zlib.error as exc:
            raise FetchError(ErrorKind.PARSE, "compressed body is corrupt") from exc

    def _decompress(self, data: bytes) -> None:
        assert self._zlib is not None
        pending = data
        while pending:
            # max_length bounds the output of one call; the rest waits in unconsumed_tail.
            out = self._zlib.decompress(pending, self._max - self._size + 1)
            self._append(out)
            pending = self._zlib.unconsumed_tail

    def _append(self, data: bytes) -> None:
        self._size += len(data)
        if self._size > self._max:
            raise FetchError(ErrorKind.TOO_LARGE, f"more than {self._max} bytes after decompression")
        self._parts.append(data)

    def finish(self) -> bytes:
        if self._zlib is not None:
            self._append(self._zlib.flush())
        return b"".join(self._parts)


# --- Politeness ------------------------------------------------------------------------


class _HostSlot:
    def __init__(self, concurrency: int) -> None:
        self.semaphore = threading.BoundedSemaphore(concurrency)
        self.lock = threading.Lock()
        self.next_start = 0.0


_slots: dict[str, _HostSlot] = {}
_slots_lock = threading.Lock()


class HostGate:
    """Per-host politeness: at most N requests at once to one host, and request starts at
    least ``RESEARCH_HOST_DELAY_S`` apart.

    Shared by every worker process through Redis when ``RESEARCH_POLITENESS_REDIS_URL`` is
    set (the night fans out over many processes, and a publisher sees all of them); kept
    inside this process otherwise (the embedded default has one process).
    """

    def __init__(self, host: str, *, max_wait_s: float) -> None:
        self.host = host.lower()
        self.max_wait_s = max_wait_s
        self.waited_s = 0.0
        self.concurrency = max(1, int(settings.RESEARCH_HOST_CONCURRENCY))
        self.shared = _shared_gate()
        if self.shared is None:
            with _slots_lock:
                self.slot = _slots.setdefault(self.host, _HostSlot(self.concurrency))

    def __enter__(self) -> HostGate:
        entered = time.monotonic()
        self.deadline = entered + self.max_wait_s
        delay = float(settings.RESEARCH_HOST_DELAY_S)
        if self.shared is not None:
            lease = self.shared.acquire(
                self.host, concurrency=self.concurrency, delay_s=delay, deadline=self.deadline, hold_s=self.max_wait_s
            )
            if lease is None:
                raise FetchError(ErrorKind.TIMEOUT, f"waited too long for a turn at {self.host}")
            self.lease: str = lease
            self.waited_s = time.monotonic() - entered
            return self
        if not self.slot.semaphore.acquire(timeout=max(0.0, self.deadline - time.monotonic())):
            raise FetchError(ErrorKind.TIMEOUT, f"waited too long for a turn at {self.host}")
        with self.slot.lock:
            start = max(time.monotonic(), self.slot.next_start)
            self.slot.next_start = start + delay
        wait = start - time.monotonic()
        if wait > 0:
            if start > self.deadline:
                self.slot.semaphore.release()
                raise FetchError(ErrorKind.TIMEOUT, f"waited too long for a turn at {self.host}")
            time.sleep(wait)
        self.waited_s = time.monotonic() - entered
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.shared is not None:
            self.shared.release(self.host, self.lease)
        else:
            self.slot.semaphore.release()


# Take a lease if fewer than ARGV[2] unexpired ones are held, and book the next start at
# least ARGV[3] ms after the last one booked. Redis's own clock, so workers on different
# machines agree. Returns the start time (ms) booked, or -1 when the host is full.
_ACQUIRE = """
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return -1 end
local start = math.max(now_ms, tonumber(redis.call('GET', KEYS[2]) or 0))
redis.call('ZADD', KEYS[1], start + tonumber(ARGV[4]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]) + 60000)
redis.call('SET', KEYS[2], start + tonumber(ARGV[3]), 'PX', tonumber(ARGV[3]) + 60000)
return start - now_ms
"""


class SharedHostGates:
    """Host leases in Redis: a sorted set of lease tokens per host, scored by when each
    lapses (a worker killed mid-fetch frees its turn when its lease lapses)."""

    # How often a fetch waiting for a full host asks again.
    POLL_S = 0.05

    def __init__(self, url: str) -> None:
        self.client = redis.Redis.from_url(url)
        self.acquire_script = self.client.register_script(_ACQUIRE)

    def acquire(self, host: str, *, concurrency: int, delay_s: float, deadline: float, hold_s: float) -> str | None:
        token = base64.urlsafe_b64encode(os.urandom(12)).decode()
        keys = [f"research:host:{host}:leases", f"research:host:{host}:next"]
        # The lease outlives the longest fetch it covers (the request deadline is the
        # caller's; hold_s bounds it generously).
        lease_ms = int((hold_s + float(settings.RESEARCH_TIMEOUT_S)) * 1000)
        while True:
            wait_ms = int(self.acquire_script(keys=keys, args=[token, concurrency, int(delay_s * 1000), lease_ms]))
            if wait_ms >= 0:
                if time.monotonic() + wait_ms / 1000 > deadline:
                    self.release(host, token)
                    return None
                if wait_ms:
                    time.sleep(wait_ms / 1000)
                return token
            if time.monotonic() + self.POLL_S > deadline:
                return None
            time.sleep(self.POLL_S)

    def release(self, host: str, token: str) -> None:
        self.client.zrem(f"research:host:{host}:leases", token)


_shared: dict[str, SharedHostGates] = {}


def _shared_gate() -> SharedHostGates | None:
    url = settings.RESEARCH_POLITENESS_REDIS_URL
    if not url:
        return None
    with _slots_lock:
        if url not in _shared:
            _shared[url] = SharedHostGates(url)
        return _shared[url]
