"""The approval digest: once a day per account, in the morning of the account's own timezone."""

from __future__ import annotations

import socket
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core import mail

from accounts.models import Account, Role
from cron.models import ApprovalDigest
from cron.notify import approval_digests_send
from tests import factories
from tests.cron.rows import draft_create

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def morning(settings) -> None:
    settings.APPROVAL_DIGEST_LOCAL_HOUR = 7
    settings.SITE_URL = "https://app.landed.example"


@pytest.fixture
def london(db) -> Account:
    account = factories.account_create(name="Thames Cycles", slug="thames", timezone="Europe/London")
    owner = factories.member_create(account=account, username="owner")
    owner.email = "owner@thames.example"
    owner.save()
    viewer = factories.member_create(account=account, username="viewer", role=Role.VIEWER)
    viewer.email = "viewer@thames.example"
    viewer.save()
    draft_create(account=account, text="Thames Cycles opens on Sunday.")
    return account


def send_at(at: datetime) -> dict[str, int]:
    with time_machine.travel(at, tick=False):
        return approval_digests_send()


def test_the_digest_goes_to_approvers_once_a_day_with_a_link_to_the_drafts(london: Account) -> None:
    assert send_at(datetime(2026, 6, 1, 5, 59, tzinfo=UTC))["digests_sent"] == 0  # 06:59 BST

    counts = send_at(datetime(2026, 6, 1, 6, 0, tzinfo=UTC))  # 07:00 BST
    for minutes in range(15, 24 * 60, 15):
        send_at(datetime(2026, 6, 1, 6, 0, tzinfo=UTC) + timedelta(minutes=minutes))

    assert counts == {"digests_sent": 1, "emails_sent": 1}
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["owner@thames.example"]
    assert "1 draft for Thames Cycles" in message.subject
    assert "Thames Cycles opens on Sunday." in message.body
    assert "https://app.landed.example/a/thames/drafts/" in message.body
    assert list(ApprovalDigest.objects.values_list("day", flat=True)) == [datetime(2026, 6, 1).date()]


def test_the_digest_follows_local_morning_across_the_spring_dst_change(london: Account) -> None:
    # Saturday 28 March 2026: London is on GMT, 07:00 local is 07:00 UTC.
    assert send_at(datetime(2026, 3, 28, 6, 59, tzinfo=UTC))["digests_sent"] == 0
    assert send_at(datetime(2026, 3, 28, 7, 0, tzinfo=UTC))["digests_sent"] == 1
    # Sunday 29 March: clocks went forward at 01:00 UTC, 07:00 local is 06:00 UTC.
    assert send_at(datetime(2026, 3, 29, 5, 59, tzinfo=UTC))["digests_sent"] == 0
    assert send_at(datetime(2026, 3, 29, 6, 0, tzinfo=UTC))["digests_sent"] == 1
    assert send_at(datetime(2026, 3, 29, 23, 0, tzinfo=UTC))["digests_sent"] == 0  # 00:00 Monday local: not 07:00 yet

    days = sorted(ApprovalDigest.objects.values_list("day", flat=True))
    assert [day.isoformat() for day in days] == ["2026-03-28", "2026-03-29"]
    assert len(mail.outbox) == 2


def test_no_digest_without_drafts_waiting_or_for_a_paused_account(london: Account) -> None:
    quiet = factories.account_create(name="Quiet", slug="quiet")
    user = factories.member_create(account=quiet, username="quiet-owner")
    user.email = "owner@quiet.example"
    user.save()
    Account.objects.filter(pk=london.pk).update(paused=True)

    assert send_at(datetime(2026, 6, 1, 12, 0, tzinfo=UTC))["digests_sent"] == 0
    assert mail.outbox == []


def test_a_digest_that_could_not_be_sent_is_tried_again_at_the_next_run(london: Account, settings) -> None:
    # given an SMTP server that refuses connections (a closed local port)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", closed_port, 2

    counts = send_at(datetime(2026, 6, 1, 7, 0, tzinfo=UTC))
    assert counts["failed"] == 1
    assert not ApprovalDigest.objects.exists()

    # when mail works again, the next run sends it
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert send_at(datetime(2026, 6, 1, 7, 15, tzinfo=UTC))["digests_sent"] == 1
    assert len(mail.outbox) == 1
