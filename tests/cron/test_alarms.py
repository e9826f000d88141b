"""Alarms: opened once per condition, notified by email and a signed webhook, re-notified
while open at an interval, resolved with a notice. Notices go through an outbox: opening an
alarm writes them, delivery (a task with Celery's retry, and a job) sends them."""

from __future__ import annotations

import gzip
import hashlib
import hmac
import json
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import sentry_sdk
import time_machine
from django.core import mail
from django.db import connection
from django.test import override_settings

from accounts.models import Account
from cron.alarm_text import alarm_text
from cron.jobs import job_get
from cron.models import Alarm, AlarmNotification
from cron.notify import (
    SIGNATURE_HEADER,
    alarm_notification_deliver,
    alarm_notifications_deliver_pending,
    webhook_signature,
)
from cron.services import Condition, alarm_open, alarm_resolve, alarms_sync
from cron.tasks import alarm_notification_deliver_task
from tests.cron.conftest import RecordingServer

WEBHOOK_SECRET = "webhook-signing-secret-for-tests"
T0 = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("operators")]


@pytest.fixture
def operators(settings) -> None:
    settings.OPERATOR_EMAILS = ["ops@landed.example"]
    settings.ALARM_WEBHOOK_URL = ""
    settings.ALARM_RENOTIFY_HOURS = 24


@pytest.fixture
def webhook(settings, recording_server: RecordingServer) -> RecordingServer:
    settings.ALARM_WEBHOOK_URL = recording_server.url
    settings.ALARM_WEBHOOK_SECRET = WEBHOOK_SECRET
    settings.ALARM_WEBHOOK_BACKOFF_S = 0
    settings.ALARM_WEBHOOK_ATTEMPTS = 3
    return recording_server


def deliver() -> dict[str, int]:
    """What the delivery job does on a tick."""
    return alarm_notifications_deliver_pending()


def webhook_notification() -> AlarmNotification:
    return AlarmNotification.objects.get(channel=AlarmNotification.Channel.WEBHOOK)


def test_an_alarm_opens_once_per_condition_and_notifies_once(account: Account) -> None:
    with time_machine.travel(T0, tick=False):
        first, created = alarm_open(kind="nothing_landed", account=account, details={"landed": 0})
    with time_machine.travel(T0 + timedelta(hours=1), tick=False):
        again, created_again = alarm_open(kind="nothing_landed", account=account, details={"landed": 0})
    assert mail.outbox == []  # detection writes the notice; delivery sends it
    deliver()

    assert (created, created_again) == (True, False)
    assert again.pk == first.pk
    assert Alarm.objects.count() == 1
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["ops@landed.example"]
    assert "nothing_landed" in mail.outbox[0].subject
    assert account.name in mail.outbox[0].subject


def test_the_same_kind_for_another_account_or_subject_is_another_alarm(
    account: Account, other_account: Account
) -> None:
    alarm_open(kind="nothing_landed", account=account, details={})
    alarm_open(kind="nothing_landed", account=other_account, details={})
    alarm_open(kind="job_down", subject="publish_due", details={})
    alarm_open(kind="job_down", subject="gate_drafts", details={})
    alarm_open(kind="job_down", subject="gate_drafts", details={})
    assert Alarm.objects.filter(resolved_at__isnull=True).count() == 4


def test_an_open_alarm_is_renotified_at_the_interval_not_at_every_tick(account: Account) -> None:
    # given an alarm opened at T0 and re-confirmed by every hourly tick
    for hour in range(0, 49):
        with time_machine.travel(T0 + timedelta(hours=hour), tick=False):
            alarm_open(kind="nothing_landed", account=account, details={"hour": hour})
    deliver()
    # then the operator heard about it at T0, T0+24h and T0+48h only
    assert len(mail.outbox) == 3
    assert [m.subject.split(":")[0] for m in mail.outbox] == [
        "[Landed] alarm opened",
        "[Landed] alarm reminder",
        "[Landed] alarm reminder",
    ]
    alarm = Alarm.objects.get()
    assert alarm.details == {"hour": 48}
    assert alarm.last_notified_at == T0 + timedelta(hours=48)


def test_resolving_sends_a_notice_and_a_recurrence_opens_a_new_alarm(account: Account) -> None:
    with time_machine.travel(T0, tick=False):
        opened, _ = alarm_open(kind="nothing_landed", account=account, details={})
    with time_machine.travel(T0 + timedelta(hours=2), tick=False):
        resolved = alarm_resolve(kind="nothing_landed", account=account)
        assert alarm_resolve(kind="nothing_landed", account=account) is None
    with time_machine.travel(T0 + timedelta(hours=3), tick=False):
        reopened, created = alarm_open(kind="nothing_landed", account=account, details={})
    deliver()

    assert resolved is not None and resolved.pk == opened.pk
    assert Alarm.objects.get(pk=opened.pk).resolved_at == T0 + timedelta(hours=2)
    assert created and reopened.pk != opened.pk
    assert [m.subject.split(":")[0] for m in mail.outbox] == [
        "[Landed] alarm opened",
        "[Landed] alarm resolved",
        "[Landed] alarm opened",
    ]


def test_sync_opens_what_holds_resolves_what_cleared_and_leaves_other_kinds_alone(account: Account) -> None:
    alarm_open(kind="job_down", subject="publish_due", details={})
    alarm_open(kind="job_down", subject="gate_drafts", details={})
    unrelated, _ = alarm_open(kind="nothing_landed", account=account, details={})

    counts = alarms_sync(
        kinds={"job_down"},
        conditions=[
            Condition(kind="job_down", subject="gate_drafts"),
            Condition(kind="job_down", subject="check_tokens"),
        ],
    )

    assert counts == {"conditions": 2, "alarms_opened": 1, "alarms_resolved": 1}
    open_subjects = set(
        Alarm.objects.filter(kind="job_down", resolved_at__isnull=True).values_list("subject", flat=True)
    )
    assert open_subjects == {"gate_drafts", "check_tokens"}
    assert Alarm.objects.get(pk=unrelated.pk).resolved_at is None


def test_the_webhook_is_signed_with_hmac_sha256_of_the_body(account: Account, webhook: RecordingServer) -> None:
    alarm, _ = alarm_open(kind="nothing_landed", account=account, details={"landed": 0})
    deliver()

    assert len(webhook.received) == 1
    request = webhook.received[0]
    expected = "sha256=" + hmac.new(WEBHOOK_SECRET.encode(), request.body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(request.headers[SIGNATURE_HEADER], expected)
    assert request.headers[SIGNATURE_HEADER] == webhook_signature(secret=WEBHOOK_SECRET, body=request.body)
    payload = json.loads(request.body)
    assert payload["event"] == "opened"
    assert payload["alarm"] == {
        "id": alarm.pk,
        "kind": "nothing_landed",
        "account": account.slug,
        "subject": "",
        "opened_at": alarm.opened_at.isoformat(),
        "resolved_at": None,
        "details": {"landed": 0},
        # The account named and what to do (cron/alarm_text.py).
        "summary": "“Harbour Bikes” (harbour-bikes): nothing landed in the last ? h.",
        "action": alarm_text(alarm).action,
    }
    # A body altered in transit no longer matches the signature.
    assert webhook_signature(secret=WEBHOOK_SECRET, body=request.body + b" ") != request.headers[SIGNATURE_HEADER]


def test_the_delivery_task_retries_a_failing_webhook_until_it_is_delivered(
    account: Account, webhook: RecordingServer
) -> None:
    webhook.statuses = [500, 503, 200]
    alarm, _ = alarm_open(kind="nothing_landed", account=account, details={})

    # Eager apply runs Celery's retries at once (the backoff is 0 here).
    alarm_notification_deliver_task.apply(args=[webhook_notification().pk])

    assert len(webhook.received) == 3
    # The same notice each time; only its sent_at moves on.
    payloads = [json.loads(r.body) for r in webhook.received]
    assert len({json.dumps({**p, "sent_at": None}, sort_keys=True) for p in payloads}) == 1
    notification = webhook_notification()
    assert notification.delivered_at is not None
    assert notification.attempts == 3
    assert Alarm.objects.get(pk=alarm.pk).last_notify_error == ""


def test_a_notice_is_delivered_once_however_often_delivery_runs(account: Account, webhook: RecordingServer) -> None:
    alarm_open(kind="nothing_landed", account=account, details={})

    first = deliver()
    second = deliver()
    alarm_notification_deliver_task.apply(args=[webhook_notification().pk])

    assert first["delivered"] == 2  # email and webhook
    assert second["delivered"] == 0
    assert len(webhook.received) == 1
    assert len(mail.outbox) == 1


def test_a_webhook_that_keeps_failing_is_recorded_without_its_url(account: Account, webhook: RecordingServer) -> None:
    webhook.statuses = [500]
    alarm, _ = alarm_open(kind="nothing_landed", account=account, details={})
    deliver()
    alarm_notification_deliver_task.apply(args=[webhook_notification().pk])
    alarm.refresh_from_db()
    assert len(webhook.received) == 3
    assert alarm.last_notify_error == "webhook: HTTP 500 after 3 attempts"
    assert "secret-path" not in alarm.last_notify_error
    assert webhook_notification().given_up_at is not None
    # Email still reached the operator.
    assert alarm.last_notified_at is not None
    assert len(mail.outbox) == 1
    # Given up: later ticks do not knock again until the alarm's next notice.
    deliver()
    assert len(webhook.received) == 3


def test_a_client_error_from_the_webhook_is_not_retried(account: Account, webhook: RecordingServer) -> None:
    webhook.statuses = [404]
    alarm, _ = alarm_open(kind="nothing_landed", account=account, details={})
    alarm_notification_deliver_task.apply(args=[webhook_notification().pk])
    assert len(webhook.received) == 1
    assert Alarm.objects.get(pk=alarm.pk).last_notify_error == "webhook: HTTP 404"


@override_settings(OPERATOR_EMAILS=[])
def test_a_notice_that_failed_is_sent_by_the_next_delivery_tick_not_by_the_watchdog(
    account: Account, webhook: RecordingServer
) -> None:
    webhook.statuses = [500, 200]
    with time_machine.travel(T0, tick=False):
        alarm, _ = alarm_open(kind="nothing_landed", account=account, details={})
        assert deliver()["failed"] == 1
    assert Alarm.objects.get(pk=alarm.pk).last_notify_error == "webhook: HTTP 500"
    with time_machine.travel(T0 + timedelta(minutes=5), tick=False):
        alarm_open(kind="nothing_landed", account=account, details={})  # the watchdog's next tick
        assert len(webhook.received) == 1
        assert deliver()["delivered"] == 1
    alarm.refresh_from_db()
    assert len(webhook.received) == 2
    assert [json.loads(r.body)["event"] for r in webhook.received] == ["opened", "opened"]
    assert alarm.last_notified_at == T0
    assert alarm.last_notify_error == ""


def test_resolution_reaches_the_webhook_too(account: Account, webhook: RecordingServer) -> None:
    alarm_open(kind="nothing_landed", account=account, details={})
    alarm_resolve(kind="nothing_landed", account=account)
    deliver()
    events = [json.loads(r.body)["event"] for r in webhook.received]
    assert events == ["opened", "resolved"]
    assert json.loads(webhook.received[-1].body)["alarm"]["resolved_at"] is not None


def test_alarms_reach_sentry_when_configured(account: Account, settings, recording_server: RecordingServer) -> None:
    # given Sentry pointed at a local HTTP server standing in for the Sentry ingest API
    dsn = "http://publickey@" + recording_server.url.split("//")[1].split("/")[0] + "/1"
    sentry_sdk.init(dsn=dsn, default_integrations=False)
    settings.SENTRY_DSN = dsn
    try:
        # when an alarm opens
        alarm_open(kind="nothing_landed", account=account, details={"landed": 0})
        deliver()
        sentry_sdk.flush(timeout=10)
    finally:
        sentry_sdk.init(dsn=None)

    # then Sentry received the alarm as a message
    envelopes = [r for r in recording_server.received if r.path.startswith("/api/1/envelope")]
    assert len(envelopes) == 1
    body = envelopes[0].body
    if envelopes[0].headers.get("Content-Encoding") == "gzip":
        body = gzip.decompress(body)
    assert b"alarm opened: nothing_landed" in body


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("broker")  # committed alarms enqueue their delivery there
def test_watchdogs_racing_to_open_the_same_alarm_open_it_once(account: Account) -> None:
    # given four workers that find the same condition at the same moment
    barrier = threading.Barrier(4)
    results: list[bool] = []

    def open_it() -> None:
        try:
            barrier.wait()
            results.append(alarm_open(kind="nothing_landed", account=account, details={})[1])
        finally:
            connection.close()

    threads = [threading.Thread(target=open_it) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    # then exactly one of them opened it and the operator heard once
    assert sorted(results) == [False, False, False, True]
    assert Alarm.objects.count() == 1
    deliver()
    assert len(mail.outbox) == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("broker")
def test_two_workers_delivering_the_same_notice_send_it_once(account: Account, webhook: RecordingServer) -> None:
    # given one webhook notice in the outbox and two workers told to deliver it at once
    alarm_open(kind="nothing_landed", account=account, details={})
    notification_id = webhook_notification().pk
    barrier = threading.Barrier(2)
    results: list[str] = []

    def deliver_it() -> None:
        try:
            barrier.wait()
            results.append(alarm_notification_deliver(notification_id=notification_id))
        finally:
            connection.close()

    threads = [threading.Thread(target=deliver_it) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    # then the conditional claim let exactly one of them send it
    assert sorted(results) == ["delivered", "not_claimed"]
    assert len(webhook.received) == 1


@pytest.fixture
def silent_smtp_port() -> Iterator[int]:
    """A local port that accepts connections and never says a word, like a hung mail server."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    yield listener.getsockname()[1]
    listener.close()


def test_a_hung_mail_server_is_recorded_as_a_failed_notification_not_waited_on_forever(
    account: Account, settings, silent_smtp_port: int
) -> None:
    # given email going to an SMTP server that accepts the connection and never greets
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = silent_smtp_port
    settings.EMAIL_TIMEOUT = 0.5

    # when an alarm opens and its notice is delivered, then the send gives up and says why
    alarm, created = alarm_open(kind="nothing_landed", account=account, details={})
    counts = deliver()

    alarm.refresh_from_db()
    assert created
    assert counts["failed"] == 1
    # smtplib reports a greeting that never came as the server having disconnected.
    assert alarm.last_notify_error in {"email: TimeoutError", "email: SMTPServerDisconnected"}
    # Nothing reached the operator, so the notice stays in the outbox for another attempt.
    notification = AlarmNotification.objects.get()
    assert (notification.attempts, notification.delivered_at, notification.given_up_at) == (1, None, None)


@override_settings(OPERATOR_EMAILS=[], ALARM_WEBHOOK_URL="", SENTRY_DSN="")
def test_an_alarm_with_nowhere_to_notify_says_so_on_the_operator_page(account: Account) -> None:
    alarm, _ = alarm_open(kind="nothing_landed", account=account, details={})
    alarm.refresh_from_db()
    assert alarm.last_notify_error.startswith("no notification channel is configured")
    assert alarm.last_notified_at is not None  # nothing to retry until the interval


def test_a_watchdog_opening_alarms_while_the_webhook_is_down_sends_nothing_itself(
    account: Account, other_account: Account, webhook: RecordingServer
) -> None:
    # given: the webhook answers 503 to everything, and a watchdog tick opens two alarms
    webhook.statuses = [503]
    with time_machine.travel(T0, tick=False):
        alarms_sync(
            kinds={"nothing_landed"},
            conditions=[
                Condition(kind="nothing_landed", account=account),
                Condition(kind="nothing_landed", account=other_account),
            ],
        )

    # then: detection only wrote the outbox, one notice per alarm and channel
    assert webhook.received == [] and mail.outbox == []
    assert AlarmNotification.objects.filter(delivered_at__isnull=True).count() == 4

    # when: delivery runs, the dead webhook costs one attempt per run, not one per notice,
    # and email is not held up by it
    counts = deliver()
    assert (counts["delivered"], counts["failed"], counts["deferred"]) == (2, 1, 1)
    assert len(webhook.received) == 1
    assert len(mail.outbox) == 2

    # when: the webhook is back, the next run delivers both notices
    webhook.statuses = [200]
    assert deliver()["delivered"] == 2
    assert len(webhook.received) == 3


def test_the_delivery_job_is_registered_like_every_other_job() -> None:
    # Registered jobs get a cron route (covered by the resolver walk) and a beat entry.
    assert job_get("deliver_alarm_notifications").service_function() is alarm_notifications_deliver_pending
