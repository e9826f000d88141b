"""Cron routes answer only the scheduler (docs/ARCHITECTURE.md lesson 3).

The resolver walk finds every cron route, so a route added tomorrow is covered by every
bad-auth case here the day it is added.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pytest
import redis
import time_machine
from django.conf import settings
from django.core.wsgi import get_wsgi_application
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver

from cron import views
from cron.jobs import JOBS
from cron.models import JobRun
from tests.cron.conftest import queued_messages

SECRET = os.environ["CRON_SECRET"]
BASE_DIR = Path(settings.BASE_DIR)


def _walk(patterns: list, prefix: str = "") -> list[tuple[str, URLPattern]]:
    found = []
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            found.extend(_walk(pattern.url_patterns, route))
        else:
            found.append((route, pattern))
    return found


def cron_routes() -> list[str]:
    """Every URL under /cron/ or served by the cron trigger view, straight from the resolver."""
    return sorted(
        "/" + route
        for route, pattern in _walk(get_resolver().url_patterns)
        if route.startswith("cron") or pattern.callback is views.job_trigger
    )


CRON_ROUTES = cron_routes()

BAD_AUTH = {
    "no header": {},
    "platform cron user agent": {"HTTP_USER_AGENT": "vercel-cron/1.0", "HTTP_X_VERCEL_CRON_SCHEDULE": "*/5 * * * *"},
    "Bearer None": {"HTTP_AUTHORIZATION": "Bearer None"},
    "Bearer undefined": {"HTTP_AUTHORIZATION": "Bearer undefined"},
    "Bearer empty": {"HTTP_AUTHORIZATION": "Bearer "},
    "wrong secret of the same length": {"HTTP_AUTHORIZATION": "Bearer " + "x" * len(SECRET)},
    "lowercase bearer": {"HTTP_AUTHORIZATION": "bearer " + SECRET},
    "secret without scheme": {"HTTP_AUTHORIZATION": SECRET},
    "basic auth": {"HTTP_AUTHORIZATION": "Basic " + SECRET},
    "latin-1 non-ASCII header": {"HTTP_AUTHORIZATION": "Bearer caf\u00e9" + SECRET[5:]},
    "non-latin-1 header": {"HTTP_AUTHORIZATION": "Bearer \u2603" + SECRET[1:]},
    "secret with a trailing suffix": {"HTTP_AUTHORIZATION": "Bearer " + SECRET + "x"},
}


def test_the_resolver_walk_finds_the_cron_routes_of_every_registered_job() -> None:
    # Each job answers with and without the trailing slash (no 301 before authentication).
    expected = [f"/cron/{job.name}/" for job in JOBS] + [f"/cron/{job.name}" for job in JOBS]
    assert sorted(expected) == CRON_ROUTES


@pytest.mark.django_db
@pytest.mark.parametrize("route", CRON_ROUTES)
@pytest.mark.parametrize("case", sorted(BAD_AUTH))
def test_every_cron_route_refuses_bad_auth_and_enqueues_nothing(
    route: str, case: str, broker: redis.Redis, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = Client().post(route, **BAD_AUTH[case])

    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert not JobRun.objects.exists()
    assert callbacks == []
    assert queued_messages(broker) == 0


@pytest.fixture
def wsgi_server() -> Iterator[tuple[str, int]]:
    """The project's WSGI application behind a real HTTP server, so headers arrive as bytes
    decoded by the server (the test Client hands the view Python strings directly)."""
    server = make_server("127.0.0.1", 0, get_wsgi_application(), handler_class=_QuietHandler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server.server_address[0], server.server_address[1]
    server.shutdown()
    server.server_close()


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("raw", ["Bearer caf\u00e9".encode() + SECRET.encode(), b"Bearer \xff\xfe" + SECRET.encode()])
def test_raw_non_ascii_bytes_in_the_header_over_real_http_answer_401_not_500(
    raw: bytes, wsgi_server: tuple[str, int], broker: redis.Redis
) -> None:
    host, port = wsgi_server
    request = (
        b"POST /cron/publish_due/ HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nAuthorization: "
        + raw
        + b"\r\n\r\n"
    )
    with socket.create_connection((host, port), timeout=10) as conn:
        conn.sendall(request)
        status_line = conn.makefile("rb").readline()
    assert status_line.split()[1] == b"401"
    assert not JobRun.objects.exists()
    assert queued_messages(broker) == 0


@pytest.mark.django_db
@pytest.mark.parametrize("route", CRON_ROUTES)
def test_every_cron_route_refuses_the_secret_in_the_query_string(route: str, broker: redis.Redis) -> None:
    for query in (f"?secret={SECRET}", f"?cron_secret={SECRET}", f"?token={SECRET}"):
        assert Client().post(route + query).status_code == 401
    # Even alongside a valid header: a secret that reached a URL has reached access logs.
    assert Client().post(route + f"?secret={SECRET}", HTTP_AUTHORIZATION=f"Bearer {SECRET}").status_code == 401
    assert not JobRun.objects.exists()
    assert queued_messages(broker) == 0


@pytest.mark.django_db
@pytest.mark.parametrize("route", CRON_ROUTES)
def test_every_cron_route_answers_get_with_405(route: str) -> None:
    response = Client().get(route, HTTP_AUTHORIZATION=f"Bearer {SECRET}")
    assert response.status_code == 405
    assert not JobRun.objects.exists()


@pytest.mark.django_db
@override_settings(DEBUG=True, CRON_SECRET="", CRON_SECRET_NEXT="")
@pytest.mark.parametrize("header", ["Bearer ", "Bearer None", f"Bearer {SECRET}"])
def test_with_no_secret_configured_every_call_is_refused(header: str, broker: redis.Redis) -> None:
    for route in CRON_ROUTES:
        assert Client().post(route, HTTP_AUTHORIZATION=header).status_code == 401
    assert not JobRun.objects.exists()


@pytest.mark.django_db
@override_settings(DEBUG=True, CRON_SECRET="short", CRON_SECRET_NEXT="")
def test_a_short_secret_opens_nothing_even_with_debug_on() -> None:
    assert Client().post("/cron/publish_due/", HTTP_AUTHORIZATION="Bearer short").status_code == 401


@pytest.mark.django_db
def test_the_secret_records_a_run_enqueues_it_once_and_answers_202(
    broker: redis.Redis, django_capture_on_commit_callbacks
) -> None:
    # A scheduler sends no cookies and no CSRF token: the bearer secret is the whole proof.
    scheduler = Client(enforce_csrf_checks=True, HTTP_USER_AGENT="curl/8.5")
    with django_capture_on_commit_callbacks(execute=True):
        response = scheduler.post("/cron/publish_due/", HTTP_AUTHORIZATION=f"Bearer {SECRET}")

    assert response.status_code == 202
    run = JobRun.objects.get()
    assert response.json() == {
        "job": "publish_due",
        "run_id": run.pk,
        "slot": run.slot.isoformat(),
        "duplicate": False,
    }
    assert run.outcome == JobRun.Outcome.QUEUED
    assert run.trigger == "cron"
    assert queued_messages(broker) == 1


@pytest.mark.django_db
def test_a_duplicate_delivery_in_the_same_slot_answers_the_existing_run_and_enqueues_nothing(
    broker: redis.Redis, django_capture_on_commit_callbacks
) -> None:
    # given a first delivery that was recorded and enqueued
    with (
        time_machine.travel(datetime(2026, 6, 1, 0, 0, 5, tzinfo=UTC), tick=False),
        django_capture_on_commit_callbacks(execute=True),
    ):
        first = Client().post("/cron/check_tokens/", HTTP_AUTHORIZATION=f"Bearer {SECRET}")
    # when the scheduler delivers the same tick again, hours later but in the same daily slot
    with (
        time_machine.travel(datetime(2026, 6, 1, 23, 59, 59, tzinfo=UTC), tick=False),
        django_capture_on_commit_callbacks(execute=True) as callbacks,
    ):
        second = Client().post("/cron/check_tokens/", HTTP_AUTHORIZATION=f"Bearer {SECRET}")
    # then it gets the same run back and nothing more is queued
    assert second.status_code == 202
    assert second.json()["run_id"] == first.json()["run_id"]
    assert second.json()["duplicate"] is True
    assert callbacks == []
    assert JobRun.objects.count() == 1
    assert queued_messages(broker) == 1


@pytest.mark.django_db
@override_settings(CRON_SECRET_NEXT="next-cron-secret-0123456789abcdefghijklmnop")
def test_the_next_secret_is_accepted_during_rotation_and_the_current_one_still_works() -> None:
    assert (
        Client().post("/cron/publish_due/", HTTP_AUTHORIZATION=f"Bearer {settings.CRON_SECRET_NEXT}").status_code == 202
    )
    assert Client().post("/cron/poll_ig_containers/", HTTP_AUTHORIZATION=f"Bearer {SECRET}").status_code == 202


def _start(command: list[str], **env_overrides: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_DEBUG"}
    env.update(env_overrides, DJANGO_SETTINGS_MODULE="config.settings")
    return subprocess.run(command, cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=90, check=False)


@pytest.mark.parametrize("secret", ["", "too-short-secret", " " * 40, "short-padded\n" + " " * 30])
@pytest.mark.parametrize("debug", [None, "false"])
def test_the_web_process_refuses_to_start_without_a_long_cron_secret(secret: str, debug: str | None) -> None:
    env = {"CRON_SECRET": secret} | ({"DJANGO_DEBUG": debug} if debug is not None else {})
    result = _start([sys.executable, "-c", "import django; django.setup()"], **env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "CRON_SECRET must be set to at least 32 characters" in result.stderr


def test_the_web_process_refuses_a_short_next_secret() -> None:
    result = _start([sys.executable, "-c", "import django; django.setup()"], CRON_SECRET_NEXT="short-next")
    assert result.returncode != 0
    assert "CRON_SECRET_NEXT must be set" in result.stderr
    assert "short-next" not in result.stderr


def test_the_web_process_starts_with_a_long_cron_secret() -> None:
    result = _start([sys.executable, "-c", "import django; django.setup()"])
    assert result.returncode == 0, result.stderr


def test_the_worker_refuses_to_start_without_a_cron_secret() -> None:
    result = _start(
        [sys.executable, "-m", "celery", "-A", "config.celery_app", "worker", "--pool=solo", "--loglevel=WARNING"],
        CRON_SECRET="",
    )
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "CRON_SECRET must be set to at least 32 characters" in result.stderr


def test_the_worker_starts_past_settings_with_a_long_cron_secret() -> None:
    # `celery inspect` loads the same app and settings as a worker, then exits on its own;
    # with a good secret the only thing left to fail is finding no worker to answer.
    result = _start([sys.executable, "-m", "celery", "-A", "config.celery_app", "inspect", "ping", "--timeout=0.5"])
    assert "ImproperlyConfigured" not in result.stderr


def test_an_unsigned_alarm_webhook_refuses_to_start() -> None:
    result = _start(
        [sys.executable, "-c", "import django; django.setup()"],
        ALARM_WEBHOOK_URL="http://127.0.0.1:9/hook",
        ALARM_WEBHOOK_SECRET="",
    )
    assert result.returncode != 0
    assert "ALARM_WEBHOOK_SECRET must be set" in result.stderr


@pytest.mark.django_db(transaction=True)
def test_when_the_broker_is_down_the_call_answers_503_and_records_no_run_so_a_retry_can(
    broker: redis.Redis, broker_unreachable: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a broker that is down, a call is refused with a retryable error and leaves no run
    response = Client().post("/cron/publish_due/", HTTP_AUTHORIZATION=f"Bearer {SECRET}")
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    assert "127.0.0.1" not in response.content.decode()
    assert not JobRun.objects.exists()

    # when the broker is back, the scheduler's retry in the same slot records and enqueues the run
    monkeypatch.undo()
    retry = Client().post("/cron/publish_due/", HTTP_AUTHORIZATION=f"Bearer {SECRET}")
    assert retry.status_code == 202
    assert retry.json()["duplicate"] is False
    assert queued_messages(broker) == 1
