"""The daily token check against the real Graph sandbox: dead tokens ask for a reconnect."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.utils import timezone

from accounts.models import Account, Platform
from devkit.sandbox import GraphSandbox
from publish.crypto import token_encrypt
from publish.models import Channel
from publish.oauth import services

pytestmark = pytest.mark.django_db


@pytest.fixture
def sandbox(settings) -> Iterator[GraphSandbox]:
    sb = GraphSandbox()
    sb.start()
    settings.GRAPH_API_BASE_URL = sb.base_url
    yield sb
    sb.close()


@pytest.fixture
def fb_page(sandbox: GraphSandbox) -> dict[str, Any]:
    user = sandbox.create_user(name="Ann Harbour")
    return sandbox.create_page(user["id"], name="Harbour Bikes") | {"user_token": user["access_token"]}


def _channel(account: Account, token: str, **fields: Any) -> Channel:
    fields.setdefault("platform", Platform.FACEBOOK_PAGE)
    fields.setdefault("external_id", "1001")
    return Channel.objects.create(
        account=account, name="Harbour Bikes", token_ciphertext=token_encrypt(token), **fields
    )


def test_a_working_page_token_stays_connected_and_is_marked_checked(account, fb_page, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    channel = _channel(account, fb_page["access_token"])

    counts = services.channels_check_tokens()

    channel.refresh_from_db()
    assert counts == {"checked": 1, "valid": 1, "needs_reconnect": 0, "expiring_soon": 0, "check_failed": 0}
    assert channel.status == Channel.Status.CONNECTED
    assert channel.token_checked_at is not None
    assert channel.token_expires_at is None  # page tokens from a long-lived user token never expire
    assert fb_page["access_token"] not in caplog.text


def test_a_token_the_platform_rejects_puts_the_channel_in_needs_reconnect_with_a_reason(
    account, fb_page, sandbox: GraphSandbox
) -> None:
    channel = _channel(account, fb_page["access_token"])
    healthy = _channel(account, fb_page["access_token"], platform=Platform.INSTAGRAM, external_id="1784")
    sandbox.invalidate_token(fb_page["access_token"], subcode=460)
    Channel.objects.filter(pk=healthy.pk).update(status=Channel.Status.REVOKED)

    counts = services.channels_check_tokens()

    channel.refresh_from_db()
    assert counts["needs_reconnect"] == 1
    assert counts["checked"] == 1  # only connected channels are checked
    assert channel.status == Channel.Status.NEEDS_RECONNECT
    assert channel.status_reason == "Your Facebook password changed. Reconnect to keep publishing."
    assert fb_page["access_token"] not in channel.status_reason


def test_a_token_expiring_within_a_week_is_counted_and_its_expiry_tracked(account, fb_page) -> None:
    # A channel holding a 60-day user token, checked 55 days on.
    channel = _channel(account, fb_page["user_token"])

    with time_machine.travel(timezone.now() + timedelta(days=55)):
        counts = services.channels_check_tokens()

    channel.refresh_from_db()
    assert counts["expiring_soon"] == 1
    assert counts["valid"] == 1
    assert timedelta(days=59) < channel.token_expires_at - timezone.now() < timedelta(days=61)


def test_an_expired_token_needs_a_reconnect(account, fb_page) -> None:
    channel = _channel(account, fb_page["user_token"])

    with time_machine.travel(timezone.now() + timedelta(days=61)):
        counts = services.channels_check_tokens()

    channel.refresh_from_db()
    assert counts["needs_reconnect"] == 1
    assert channel.status == Channel.Status.NEEDS_RECONNECT
    assert "expired" in channel.status_reason


def test_a_failed_or_garbled_check_changes_nothing(account, fb_page, sandbox: GraphSandbox) -> None:
    _channel(account, fb_page["access_token"])
    sandbox.inject(method="GET", path_regex=r"/debug_token$", kind="html_502")
    sandbox.inject(method="GET", path_regex=r"/debug_token$", kind="ok_without_id")
    _channel(account, fb_page["access_token"], platform=Platform.INSTAGRAM, external_id="1784")

    counts = services.channels_check_tokens()

    assert counts["check_failed"] == 2
    assert set(Channel.objects.values_list("status", flat=True)) == {Channel.Status.CONNECTED}
    assert set(Channel.objects.values_list("token_checked_at", flat=True)) == {None}


def test_the_check_never_sends_the_app_secret_or_a_token_where_it_is_logged(account, fb_page, sandbox) -> None:
    _channel(account, fb_page["access_token"])

    services.channels_check_tokens()

    (call,) = [row for row in sandbox.requests_log() if row["path"].endswith("/debug_token")]
    assert call["token_via"] == "header"
    assert not call["token_in_query"]
