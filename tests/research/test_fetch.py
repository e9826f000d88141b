"""The safe fetcher against real local servers: SSRF rules, limits, conditional GET."""

from __future__ import annotations

import base64
import gzip
import os
import select
import signal
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from research.errors import FetchError
from research.fetch import Purpose, SharedHostGates, fetch_url, refused_reason
from research.models import ErrorKind
from tests.research import servers
from tests.research.conftest import allow
from tests.research.servers import HostileServer


def fetch_error(url: str, **kwargs) -> FetchError:
    with pytest.raises(FetchError) as caught:
        fetch_url(url, purpose=kwargs.pop("purpose", Purpose.FEED), **kwargs)
    return caught.value


def closed_port() -> int:
    # Bind then release: nothing listens there afterwards.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://localhost/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://2130706433/",
        "http://0x7f.1/",
        "http://127.1/",
        "http://017700000001/",
        "http://0.0.0.0/",
        "http://10.1.2.3/",
        "http://172.16.0.1/",
        "http://192.168.1.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fe80::1]/",
        "http://[fd00::1]/",
        "http://224.0.0.1/",
        "http://100.64.0.1/",
        "http://[2002:7f00:1::]/",
        "http://[64:ff9b::a9fe:a9fe]/",
        "http://240.0.0.1/",
    ],
)
def test_it_refuses_non_public_addresses_in_every_spelling(url: str) -> None:
    error = fetch_error(url)

    assert error.kind == ErrorKind.REFUSED_ADDRESS


@pytest.mark.parametrize(
    "url", ["ftp://example.org/feed", "file:///etc/passwd", "gopher://x/", "http:///nohost", "http://u:p@example.org/"]
)
def test_it_refuses_urls_that_are_not_plain_http(url: str) -> None:
    assert fetch_error(url).kind == ErrorKind.BAD_URL


def test_public_addresses_are_not_refused() -> None:
    assert refused_reason("93.184.216.34") == ""
    assert refused_reason("2606:2800:220:1:248:1893:25c8:1946") == ""
    assert refused_reason("::ffff:127.0.0.1") == "loopback"


def test_a_name_resolving_to_a_private_address_is_refused_before_connecting() -> None:
    # A DNS server answering with private addresses cannot run here: the resolver is the
    # boundary we replace. The refusal must come before any connection attempt.
    def resolver(host: str, port: int) -> list[str]:
        return {"intranet.example": ["10.0.0.7"], "mixed.example": ["93.184.216.34", "192.168.0.10"]}[host]

    assert fetch_error("http://intranet.example/feed", resolver=resolver).kind == ErrorKind.REFUSED_ADDRESS
    assert fetch_error("http://mixed.example/feed", resolver=resolver).kind == ErrorKind.REFUSED_ADDRESS


def test_it_connects_to_the_address_it_checked_not_a_second_lookup(hostile: HostileServer, settings) -> None:
    # given a rebinding DNS: the first answer is the (allowed) server, later ones private
    hostile.behaviours["/feed"] = servers.static(200, servers.rss([("a", "http://x/a")]), "application/rss+xml")
    settings.RESEARCH_ALLOW_HOSTS = [f"rebind.test:{hostile.port}"]
    answers = iter([["127.0.0.1"], ["10.9.9.9"], ["10.9.9.9"]])
    lookups: list[str] = []

    def resolver(host: str, port: int) -> list[str]:
        lookups.append(host)
        return next(answers)

    # when
    result = fetch_url(f"http://rebind.test:{hostile.port}/feed", purpose=Purpose.FEED, resolver=resolver)

    # then one lookup, and the request reached the server with the name in its Host header
    assert result.status == 200
    assert lookups == ["rebind.test"]
    assert hostile.hits == ["/feed"]


def test_the_allow_list_is_the_only_way_to_loopback(hostile: HostileServer, settings) -> None:
    hostile.behaviours["/feed"] = servers.static(200, servers.rss([("a", "http://x/a")]), "application/rss+xml")

    assert fetch_url(f"{hostile.base_url}/feed", purpose=Purpose.FEED).status == 200
    settings.RESEARCH_ALLOW_HOSTS = []
    assert fetch_error(f"{hostile.base_url}/feed").kind == ErrorKind.REFUSED_ADDRESS
    settings.RESEARCH_ALLOW_HOSTS = ["127.0.0.1:1"]
    assert fetch_error(f"{hostile.base_url}/feed").kind == ErrorKind.REFUSED_ADDRESS
    assert hostile.hits == ["/feed"]


@pytest.mark.parametrize(
    "location",
    [
        "http://169.254.169.254/latest/meta-data/iam/",
        "http://[::ffff:127.0.0.1]:{port}/feed",
        "http://localhost:{port}/feed",
        "http://127.0.0.1:{other}/feed",
        "file:///etc/passwd",
    ],
)
def test_a_redirect_from_an_allowed_host_to_a_refused_address_is_refused(hostile: HostileServer, location: str) -> None:
    other = closed_port()
    hostile.behaviours["/go"] = servers.redirect(location.format(port=hostile.port, other=other))

    error = fetch_error(f"{hostile.base_url}/go")

    assert error.kind in {ErrorKind.REFUSED_ADDRESS, ErrorKind.BAD_URL}
    assert hostile.hits == ["/go"]


def test_redirects_are_followed_at_most_five_times(hostile: HostileServer) -> None:
    feed = servers.rss([("a", "http://x/a")])
    for hop in range(5):
        hostile.behaviours[f"/r{hop}"] = servers.redirect(f"/r{hop + 1}", status=301 if hop % 2 else 307)
    hostile.behaviours["/r5"] = servers.static(200, feed, "application/rss+xml")
    hostile.behaviours["/loop"] = servers.redirect("/loop")

    assert fetch_url(f"{hostile.base_url}/r0", purpose=Purpose.FEED).url.endswith("/r5")
    assert fetch_error(f"{hostile.base_url}/loop").kind == ErrorKind.TOO_MANY_REDIRECTS
    assert hostile.hits.count("/loop") == 6


def test_a_slow_drip_ends_at_the_wall_clock_deadline(hostile: HostileServer, settings) -> None:
    settings.RESEARCH_TIMEOUT_S = 1.0
    hostile.behaviours["/drip"] = servers.drip()
    started = time.monotonic()

    error = fetch_error(f"{hostile.base_url}/drip")

    assert error.kind == ErrorKind.TIMEOUT
    # Generous bound: the point is "about the deadline", not "20 s of drip".
    assert time.monotonic() - started < 6


def trickle(handler) -> None:
    """A byte every 0.1 s for up to 100 s: no read ever waits long enough to trip a socket
    timeout, so only the watchdog's wall-clock deadline can end the fetch."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/rss+xml")
    handler.send_header("Content-Length", "1000")
    handler.end_headers()
    for _ in range(1000):
        handler.wfile.write(b"<")
        handler.wfile.flush()
        time.sleep(0.1)


def test_a_short_deadline_fires_while_a_longer_one_is_still_pending(hostile: HostileServer, settings) -> None:
    # given a dripping fetch in flight whose deadline is far off (one shared watchdog
    # thread serves every fetch, and it is sleeping towards that deadline)
    hostile.behaviours["/drip"] = trickle
    settings.RESEARCH_TIMEOUT_S = 6.0
    with ThreadPoolExecutor(max_workers=1) as pool:
        slow = pool.submit(fetch_error, f"{hostile.base_url}/drip")
        for _ in range(200):
            if "/drip" in hostile.hits:
                break  # the slow fetch has its deadline
            time.sleep(0.01)

        # when a fetch with a much shorter deadline starts
        settings.RESEARCH_TIMEOUT_S = 1.0
        error = fetch_error(f"{hostile.base_url}/drip")

        # then it ends at its own deadline, not the earlier-queued later one
        assert error.kind == ErrorKind.TIMEOUT
        assert not slow.done()
        assert slow.result().kind == ErrorKind.TIMEOUT


@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork (how prefork Celery workers start)")
def test_a_forked_worker_still_ends_a_slow_drip_at_its_deadline(hostile: HostileServer, settings) -> None:
    # given the parent's watchdog thread is running (a fetch happened before the fork)
    settings.RESEARCH_TIMEOUT_S = 1.0
    hostile.behaviours["/ok"] = servers.static(200, servers.rss([("a", "http://x/a")]), "application/rss+xml")
    hostile.behaviours["/drip"] = trickle
    fetch_url(f"{hostile.base_url}/ok", purpose=Purpose.FEED)

    # when a forked child (a prefork Celery worker) fetches a dripping URL
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report the outcome and leave without running any cleanup
        try:
            os.close(read_end)
            error = fetch_error(f"{hostile.base_url}/drip")
            outcome = f"{error.kind}: {error.detail}"
        except BaseException as exc:
            outcome = type(exc).__name__
        os.write(write_end, str(outcome).encode())
        os._exit(0)
    os.close(write_end)
    try:
        ready, _, _ = select.select([read_end], [], [], 10)
        outcome = os.read(read_end, 100).decode() if ready else "no answer in 10 s"
    finally:
        os.close(read_end)
        if not ready:
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)

    # then the child's own watchdog thread ended it (the parent's does not exist there),
    # after a DNS lookup on the child's own resolver threads
    assert outcome == f"{ErrorKind.TIMEOUT}: 127.0.0.1 did not finish in time"


def test_a_declared_50_mb_body_is_refused_without_reading_it(hostile: HostileServer) -> None:
    def huge(handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/rss+xml")
        handler.send_header("Content-Length", str(50 * 1024 * 1024))
        handler.end_headers()
        handler.wfile.write(b"<rss>" * 1000)

    hostile.behaviours["/huge"] = huge

    error = fetch_error(f"{hostile.base_url}/huge")

    assert error.kind == ErrorKind.TOO_LARGE
    assert error.bytes_read == 0


def test_an_undeclared_50_mb_body_stops_at_the_streamed_cap(hostile: HostileServer, settings) -> None:
    hostile.behaviours["/huge"] = servers.endless("application/rss+xml", 50 * 1024 * 1024)

    error = fetch_error(f"{hostile.base_url}/huge")

    assert error.kind == ErrorKind.TOO_LARGE
    assert settings.RESEARCH_FEED_MAX_BYTES < error.bytes_read <= settings.RESEARCH_FEED_MAX_BYTES + 64 * 1024


def test_a_gzip_bomb_stops_at_the_decompressed_cap(hostile: HostileServer) -> None:
    hostile.behaviours["/bomb"] = servers.gzip_bomb(64 * 1024 * 1024)

    error = fetch_error(f"{hostile.base_url}/bomb")

    assert error.kind == ErrorKind.TOO_LARGE
    assert "decompression" in error.detail


def test_gzip_bodies_within_the_cap_are_decoded(hostile: HostileServer) -> None:
    feed = servers.rss([("a", "http://x/a")])
    hostile.behaviours["/gz"] = servers.static(200, gzip.compress(feed), "text/xml", Content_Encoding="gzip")

    assert fetch_url(f"{hostile.base_url}/gz", purpose=Purpose.FEED).body == feed


def test_the_content_type_is_checked(hostile: HostileServer) -> None:
    hostile.behaviours["/image"] = servers.static(200, b"\x89PNG....", "image/png")
    hostile.behaviours["/feed"] = servers.static(200, servers.rss([("a", "http://x/a")]), "application/rss+xml")

    assert fetch_error(f"{hostile.base_url}/image").kind == ErrorKind.CONTENT_TYPE
    assert fetch_error(f"{hostile.base_url}/feed", purpose=Purpose.PAGE).kind == ErrorKind.CONTENT_TYPE


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (403, ErrorKind.BLOCKED),
        (429, ErrorKind.BLOCKED),
        (404, ErrorKind.HTTP_4XX),
        (410, ErrorKind.HTTP_4XX),
        (500, ErrorKind.HTTP_5XX),
        (503, ErrorKind.HTTP_5XX),
    ],
)
def test_http_errors_are_classified(hostile: HostileServer, status: int, kind: ErrorKind) -> None:
    hostile.behaviours["/x"] = servers.static(status, servers.BLOCK_PAGE, "text/html")

    error = fetch_error(f"{hostile.base_url}/x")

    assert (error.kind, error.status) == (kind, status)


def test_connection_refused_is_recorded_as_connect(settings) -> None:
    port = closed_port()
    allow(settings, port)

    assert fetch_error(f"http://127.0.0.1:{port}/feed").kind == ErrorKind.CONNECT


def test_an_unknown_name_is_a_dns_error() -> None:
    def resolver(host: str, port: int) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    assert fetch_error("http://no-such-host.invalid/feed", resolver=resolver).kind == ErrorKind.DNS


def test_conditional_get_sends_validators_and_a_304_has_no_body(demo_site) -> None:
    url = f"{demo_site.base_url}/feeds/industry.rss"
    first = fetch_url(url, purpose=Purpose.FEED)

    second = fetch_url(url, purpose=Purpose.FEED, etag=first.etag)

    assert first.status == 200 and first.etag
    assert second.not_modified and second.body == b""


def test_it_sends_an_honest_user_agent(hostile: HostileServer, settings) -> None:
    seen: list[str] = []

    def echo(handler) -> None:
        seen.append(handler.headers.get("User-Agent", ""))
        servers.send(handler, 200, servers.rss([("a", "http://x/a")]), "application/rss+xml")

    hostile.behaviours["/ua"] = echo

    fetch_url(f"{hostile.base_url}/ua", purpose=Purpose.FEED)

    assert seen == [settings.RESEARCH_USER_AGENT]


def test_fetches_go_through_the_egress_proxy_when_configured(hostile: HostileServer, settings) -> None:
    # given a forward proxy (the hostile server answering absolute-URI requests) and an
    # allowed target name resolving to loopback port 80: a fetch that skipped the proxy
    # would stay local (and fail), never leave the machine
    seen: list[tuple[str, str]] = []

    def proxy(handler) -> None:
        seen.append((handler.path, handler.headers.get("Proxy-Authorization", "")))
        servers.send(handler, 200, servers.rss([("a", "http://x/a")]), "application/rss+xml")

    hostile.behaviours["http://feeds.example.org/rss"] = proxy
    settings.RESEARCH_PROXY_URL = f"http://egress:s3cret@127.0.0.1:{hostile.port}"
    settings.RESEARCH_ALLOW_HOSTS = ["feeds.example.org"]

    # when
    result = fetch_url("http://feeds.example.org/rss", purpose=Purpose.FEED, resolver=to_loopback)

    # then the proxy got the absolute URI and its credentials
    assert result.status == 200
    assert seen == [("http://feeds.example.org/rss", "Basic " + base64.b64encode(b"egress:s3cret").decode())]


def test_a_server_dripping_its_headers_ends_at_the_deadline(hostile: HostileServer, settings) -> None:
    settings.RESEARCH_TIMEOUT_S = 1.0

    def drip_headers(handler) -> None:
        for byte in b"HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\n":
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()
            time.sleep(0.2)

    hostile.behaviours["/slow-headers"] = drip_headers
    started = time.monotonic()

    assert fetch_error(f"{hostile.base_url}/slow-headers").kind == ErrorKind.TIMEOUT
    assert time.monotonic() - started < 6


def test_raw_spaces_and_non_ascii_in_a_link_are_encoded_not_fatal(hostile: HostileServer) -> None:
    hostile.behaviours["/caf%C3%A9%20menu"] = servers.static(200, b"<html></html>", "text/html")

    result = fetch_url(f"{hostile.base_url}/café menu", purpose=Purpose.PAGE)

    assert result.status == 200
    assert hostile.hits == ["/caf%C3%A9%20menu"]


def test_requests_to_one_host_are_polite(hostile: HostileServer, settings) -> None:
    # given a host that records how many requests it serves at once and when each starts
    settings.RESEARCH_HOST_DELAY_S = 0.2
    in_flight = {"now": 0, "max": 0}
    starts: list[float] = []
    lock = threading.Lock()

    def slow(handler) -> None:
        with lock:
            in_flight["now"] += 1
            in_flight["max"] = max(in_flight["max"], in_flight["now"])
            starts.append(time.monotonic())
        time.sleep(0.1)
        with lock:
            in_flight["now"] -= 1
        servers.send(handler, 200, b"<html></html>", "text/html")

    hostile.behaviours["/slow"] = slow
    # A host name of its own, so that its politeness slot is created with these settings.
    settings.RESEARCH_HOST_CONCURRENCY = 1
    settings.RESEARCH_ALLOW_HOSTS = [f"polite.test:{hostile.port}"]

    # when four fetches start at once
    began = time.monotonic()
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(
            pool.map(
                lambda _: fetch_url(
                    f"http://polite.test:{hostile.port}/slow",
                    purpose=Purpose.PAGE,
                    resolver=lambda host, port: ["127.0.0.1"],
                ),
                range(4),
            )
        )

    # then one at a time, and the fourth cannot start before three delays have passed. Only
    # lower bounds measured from before the first request: the server sees a request some
    # time after the fetcher was allowed to send it, and on a loaded machine that lag varies
    # from one request to the next, so gaps between the server's own start times can shrink
    # below the delay although the fetcher kept it (this test once failed that way at load 18).
    assert in_flight["max"] == 1
    assert len(starts) == 4
    assert max(starts) - began >= 3 * 0.2 - 0.01


@pytest.fixture
def tls_server(tmp_path, settings):
    context, cert_path = servers.self_signed_tls(tmp_path, name="secure.test")
    server = HostileServer(tls=context).start()
    server.behaviours["/feed"] = servers.static(200, servers.rss([("a", "https://x/a")]), "application/rss+xml")
    settings.RESEARCH_ALLOW_HOSTS = [f"secure.test:{server.port}", f"impostor.test:{server.port}"]
    yield server, cert_path
    server.stop()


def to_loopback(host: str, port: int) -> list[str]:
    # Stands in for a DNS server (cannot run here) that answers with the test server.
    return ["127.0.0.1"]


def test_https_connects_to_the_checked_address_and_verifies_the_name(tls_server, settings) -> None:
    server, cert_path = tls_server
    settings.RESEARCH_CA_FILE = str(cert_path)

    result = fetch_url(f"https://secure.test:{server.port}/feed", purpose=Purpose.FEED, resolver=to_loopback)

    assert result.status == 200 and b"<rss" in result.body


def test_https_refuses_a_certificate_for_another_name(tls_server, settings) -> None:
    server, cert_path = tls_server
    settings.RESEARCH_CA_FILE = str(cert_path)

    error = fetch_error(f"https://impostor.test:{server.port}/feed", resolver=to_loopback)

    assert error.kind == ErrorKind.CONNECT and "TLS" in error.detail


def test_https_refuses_an_untrusted_certificate(tls_server) -> None:
    server, _cert_path = tls_server

    error = fetch_error(f"https://secure.test:{server.port}/feed", resolver=to_loopback)

    assert error.kind == ErrorKind.CONNECT


def test_a_slow_drip_over_tls_ends_at_the_deadline(tls_server, settings) -> None:
    server, cert_path = tls_server
    settings.RESEARCH_CA_FILE = str(cert_path)
    settings.RESEARCH_TIMEOUT_S = 1.0
    server.behaviours["/drip"] = servers.drip()
    started = time.monotonic()

    error = fetch_error(f"https://secure.test:{server.port}/drip", resolver=to_loopback)

    assert error.kind == ErrorKind.TIMEOUT
    assert time.monotonic() - started < 6


def test_every_checked_address_is_tried_in_turn(hostile: HostileServer, settings) -> None:
    # given a name whose first address has nothing listening (as "localhost" answering
    # with ::1 first for a server bound to 127.0.0.1 only)
    hostile.behaviours["/feed"] = servers.static(200, servers.rss([("a", "http://x/a")]), "application/rss+xml")
    settings.RESEARCH_ALLOW_HOSTS = [f"dual.test:{hostile.port}"]

    result = fetch_url(
        f"http://dual.test:{hostile.port}/feed", purpose=Purpose.FEED, resolver=lambda host, port: ["::1", "127.0.0.1"]
    )

    assert result.status == 200


def test_an_error_names_the_host_as_the_url_spells_it() -> None:
    # A decoded "%00" would put a NUL into the source's health, which PostgreSQL refuses.
    looked_up: list[str] = []

    def resolver(host: str, port: int) -> list[str]:
        looked_up.append(host)
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    error = fetch_error("http://feeds%00.example.org/rss", resolver=resolver)

    assert looked_up == ["feeds\x00.example.org"]
    assert (error.kind, error.detail) == (ErrorKind.DNS, "feeds%00.example.org could not be resolved")


def test_pages_and_feeds_have_their_own_byte_caps(hostile: HostileServer, settings) -> None:
    # given a 200 KB HTML body under the feed cap but over the page cap
    settings.RESEARCH_FEED_MAX_BYTES = 1024 * 1024
    settings.RESEARCH_PAGE_MAX_BYTES = 100 * 1024
    hostile.behaviours["/big"] = servers.endless("text/html", 200 * 1024)

    # then it is a feed we read whole, and a page we stop reading at the page cap
    assert len(fetch_url(f"{hostile.base_url}/big", purpose=Purpose.FEED).body) >= 200 * 1024
    error = fetch_error(f"{hostile.base_url}/big", purpose=Purpose.PAGE)
    assert error.kind == ErrorKind.TOO_LARGE
    assert 100 * 1024 < error.bytes_read <= (100 + 64) * 1024


def test_https_goes_through_the_egress_proxy_in_a_connect_tunnel(tls_server, settings) -> None:
    # given a forward proxy that tunnels CONNECT to the TLS server; the name resolves to
    # loopback, so a fetch that skipped the proxy would stay local and fail the assertions
    server, cert_path = tls_server
    settings.RESEARCH_CA_FILE = str(cert_path)
    proxy = HostileServer().start()
    proxy.tunnel_to = server.port
    settings.RESEARCH_PROXY_URL = f"http://egress:s3cret@127.0.0.1:{proxy.port}"
    try:
        # when
        result = fetch_url(
            f"https://secure.test:{server.port}/feed",
            purpose=Purpose.FEED,
            resolver=to_loopback,
        )
    finally:
        proxy.stop()

    # then TLS (name checked against the certificate) ran end to end inside the tunnel
    assert result.status == 200 and b"<rss" in result.body
    assert proxy.connects == [(f"secure.test:{server.port}", "Basic " + base64.b64encode(b"egress:s3cret").decode())]
    assert server.hits == ["/feed"]


def test_host_politeness_is_shared_between_processes_through_redis(settings) -> None:
    # given two workers' gates (separate clients, as in separate processes) on one Redis
    settings.RESEARCH_TIMEOUT_S = 1.0
    assert settings.RESEARCH_POLITENESS_REDIS_URL
    first, second = (SharedHostGates(settings.RESEARCH_POLITENESS_REDIS_URL) for _ in range(2))
    host = f"shared-{time.time_ns()}.test:443"
    now = time.monotonic()

    # when the first holds the host's only turn, the second waits and gives up at its deadline
    lease = first.acquire(host, concurrency=1, delay_s=0.3, deadline=now + 1, hold_s=1)
    assert lease is not None
    assert second.acquire(host, concurrency=1, delay_s=0.3, deadline=time.monotonic() + 0.2, hold_s=1) is None

    # and once it is released, the second's start is still the delay after the first's
    first.release(host, lease)
    started = time.monotonic()
    assert second.acquire(host, concurrency=1, delay_s=0.3, deadline=started + 2, hold_s=1) is not None
    assert time.monotonic() - now >= 0.29
