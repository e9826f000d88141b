"""The Graph client: error classification by code/subcode, rate-limit headers, tokens kept out
of URLs, errors and admin pages."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.test import Client

from devkit.sandbox import GraphSandbox
from publish.errors import (
    ContainerUnusable,
    NeedsReconnect,
    NotVisibleYet,
    PermanentPlatformError,
    Throttled,
    TransientError,
    UnknownOutcome,
)
from publish.graph import GraphClient, error_classify, rate_limit_usage
from tests.reconcile import fixtures
from tests.reconcile.fixtures import SandboxPage

# Shared fixtures, bound here so pytest finds them in this module.
graph_sandbox = fixtures.graph_sandbox
sandbox_page = fixtures.sandbox_page


@pytest.mark.parametrize(
    ("http_status", "code", "subcode", "write", "expected"),
    [
        (500, 2, None, True, UnknownOutcome),
        (500, 1, None, True, UnknownOutcome),
        (500, 2, None, False, TransientError),
        (400, 368, 1390008, True, UnknownOutcome),
        (400, 506, None, True, UnknownOutcome),
        (400, 4, 2207051, True, UnknownOutcome),
        (400, 190, 463, True, NeedsReconnect),
        (400, 190, 460, False, NeedsReconnect),
        (400, 102, None, True, NeedsReconnect),
        (403, 200, None, True, NeedsReconnect),
        (400, 4, None, True, Throttled),
        (400, 17, None, False, Throttled),
        (400, 32, None, True, Throttled),
        (400, 613, None, True, Throttled),
        (400, 80001, None, True, Throttled),
        (400, 80002, None, True, Throttled),
        (400, 9, 2207042, True, Throttled),
        (400, 100, 33, False, NotVisibleYet),
        (400, 100, 33, True, PermanentPlatformError),
        (400, 100, None, True, PermanentPlatformError),
        (400, 1609005, None, True, PermanentPlatformError),
        (400, 9007, 2207027, True, TransientError),
        (400, 24, 2207008, True, TransientError),
        (400, -2, 2207003, True, ContainerUnusable),
        (400, 36004, 2207010, True, PermanentPlatformError),
        (503, None, None, True, UnknownOutcome),
    ],
)
def test_errors_are_classified_by_code_and_subcode(
    http_status: int, code: int | None, subcode: int | None, write: bool, expected: type
) -> None:
    error = error_classify(
        http_status=http_status,
        error={"code": code, "error_subcode": subcode, "message": "(#x) something"},
        write=write,
    )

    assert type(error) is expected
    assert (error.code, error.subcode, error.http_status) == (code, subcode, http_status)


def test_a_throttle_waits_for_the_regain_time_in_the_usage_headers() -> None:
    headers = {
        "X-App-Usage": json.dumps({"call_count": 28, "total_time": 25, "total_cputime": 25}),
        "X-Business-Use-Case-Usage": json.dumps(
            {"123": [{"type": "pages", "call_count": 97, "total_time": 23, "estimated_time_to_regain_access": 19}]}
        ),
    }

    usage = rate_limit_usage(headers)
    error = error_classify(http_status=400, error={"code": 80001}, write=True, usage=usage)

    assert usage.max_pct == 97
    assert usage.regain_s == 19 * 60
    assert isinstance(error, Throttled)
    assert error.retry_after_s == 19 * 60


def test_malformed_usage_headers_mean_no_information() -> None:
    usage = rate_limit_usage({"X-App-Usage": "not json", "X-Business-Use-Case-Usage": '{"1": "nope"}'})

    assert (usage.max_pct, usage.regain_s) == (0.0, 0)


def test_a_read_of_garbage_is_retryable_and_the_token_never_leaves_the_header(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    graph_sandbox.inject(method="GET", path_regex=r".*", kind="html_502")
    client = GraphClient(token=sandbox_page.token)

    with pytest.raises(TransientError) as caught:
        client.read(sandbox_page.page_id, kind="probe", params={"fields": "id"})

    assert sandbox_page.token not in str(caught.value)
    assert sandbox_page.token not in repr(client)
    [entry] = graph_sandbox.requests_log()
    assert entry["token_via"] == "header"
    assert not entry["token_in_query"]


def test_a_hung_write_is_an_unknown_outcome_whose_message_names_no_secret(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    graph_sandbox.inject(method="POST", path_regex=r"/feed$", kind="hang_after_create", seconds=5)
    client = GraphClient(token=sandbox_page.token, timeout_s=0.5)

    with pytest.raises(UnknownOutcome) as caught:
        client.write(f"{sandbox_page.page_id}/feed", kind="fb_feed", data={"message": "hello"})

    assert "0.5s" in str(caught.value)
    assert sandbox_page.token not in str(caught.value)


def test_the_channel_admin_never_shows_the_token(sandbox_page: SandboxPage) -> None:
    admin = User.objects.create_superuser("operator", "op@example.com", "correct horse battery staple")
    client = Client()
    client.force_login(admin)
    channel = sandbox_page.facebook

    pages = [
        client.get("/admin/publish/channel/"),
        client.get(f"/admin/publish/channel/{channel.pk}/change/"),
    ]

    for page in pages:
        assert page.status_code == 200
        body = page.content.decode()
        assert channel.token_ciphertext not in body
        assert sandbox_page.token not in body
        assert "token_ciphertext" not in body
