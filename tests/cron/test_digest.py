"""The morning digest (issue 11, item 7): one email per person per account at the hour that
person chose on the account's clock, listing the drafts waiting; nothing when nothing
waits; exactly once a day, however many ticks, workers or restarts ask."""

from __future__ import annotations

import socket
import threading
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core import mail
from django.db import connection

from accounts.models import Account, Membership, Role
from cron.customer_mail import morning_digests_send
from cron.models import JobRun, MorningDigest
from cron.services import job_run_execute, job_run_request
from notifications.models import NotificationSetting
from tests import factories
from tests.cron.rows import draft_create

SITE = "https://app.landed.example"


@pytest.fixture(autouse=True)
def morning(settings) -> None:
    settings.APPROVAL_DIGEST_LOCAL_HOUR = 7
    settings.SITE_URL = SITE
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def person(account: Account, username: str, role: str = Role.OWNER, email: str = "") -> Membership:
    user = factories.member_create(account=account, username=username, role=role)
    user.email = email or f"{username}@example.com"
    user.save()
    return Membership.objects.get(user=user, account=account)


@pytest.fixture
def london(db) -> Account:
    account = factories.account_create(name="Thames Cycles", slug="thames", timezone="Europe/London")
    person(account, "owner", email="owner@thames.example")
    person(account, "viewer", role=Role.VIEWER, email="viewer@thames.example")
    # Drafts drafted overnight: the oldest at 02:00 BST, 5 hours before the digest.
    with time_machine.travel(datetime(2026, 6, 1, 1, 0, tzinfo=UTC), tick=False):
        draft_create(account=account, text="Thames Cycles opens on Sunday with free tea and a puncture clinic for all.")
    with time_machine.travel(datetime(2026, 6, 1, 3, 0, tzinfo=UTC), tick=False):
        draft_create(account=account, text="Second draft about the new cargo bikes.")
    return account


def send_at(at: datetime) -> dict[str, int]:
    with time_machine.travel(at, tick=False):
        return morning_digests_send()


@pytest.mark.django_db
def test_each_person_gets_one_digest_at_their_hour_with_the_drafts_waiting(london: Account) -> None:
    assert send_at(datetime(2026, 6, 1, 5, 59, tzinfo=UTC))["digests_sent"] == 0  # 06:59 BST

    counts = send_at(datetime(2026, 6, 1, 6, 0, tzinfo=UTC))  # 07:00 BST
    for minutes in range(15, 24 * 60, 15):  # every tick of the rest of the day
        send_at(datetime(2026, 6, 1, 6, 0, tzinfo=UTC) + timedelta(minutes=minutes))

    assert counts["digests_sent"] == 1
    assert len(mail.outbox) == 1  # the viewer cannot approve: no digest until they ask for one
    message = mail.outbox[0]
    assert message.to == ["owner@thames.example"]
    assert message.subject == "2 drafts for Thames Cycles waiting for your approval"
    body = message.body
    assert "The oldest has waited 5 hours (since 02:00 on Mon 1 Jun (Europe/London))" in body
    assert "- Facebook Page: Thames Cycles opens on Sunday with free tea and a puncture clinic…" in body
    assert "- Facebook Page: Second draft about the new cargo bikes." in body
    assert body.index("Thames Cycles opens") < body.index("Second draft")  # oldest first
    assert f"{SITE}/a/thames/drafts/" in body
    assert "Sent 07:00 on Mon 1 Jun (Europe/London)" in body
    html, mimetype = message.alternatives[0]
    assert mimetype == "text/html" and f'href="{SITE}/a/thames/drafts/"' in html
    unsubscribe = message.extra_headers["List-Unsubscribe"]
    assert unsubscribe.startswith(f"<{SITE}/notifications/unsubscribe/") and unsubscribe.endswith("/>")
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert unsubscribe[1:-1] in body
    claim = MorningDigest.objects.get()
    assert (claim.day.isoformat(), claim.drafts, claim.sent_at is not None) == ("2026-06-01", 2, True)


@pytest.mark.django_db
def test_each_person_chooses_their_hour_and_whether_per_business(london: Account) -> None:
    editor = person(london, "editor", role=Role.EDITOR)
    NotificationSetting.objects.create(membership=editor, digest=True, digest_hour=9, same_day=True)
    viewer = Membership.objects.get(user__username="viewer")
    NotificationSetting.objects.create(membership=viewer, digest=True, digest_hour=6, same_day=False)
    # The owner also belongs to a second business, whose digest they turned off.
    second = factories.account_create(name="Leith Wheels", slug="leith", timezone="Europe/London")
    owner_user = Membership.objects.get(user__username="owner").user
    there = Membership.objects.create(user=owner_user, account=second, role=Role.OWNER)
    NotificationSetting.objects.create(membership=there, digest=False, digest_hour=7, same_day=True)
    draft_create(account=second, text="Leith Wheels news.")

    sent = {}
    for hour_utc in range(4, 12):
        send_at(datetime(2026, 6, 1, hour_utc, 5, tzinfo=UTC))
        sent[hour_utc + 1] = sorted(m.to[0] for m in mail.outbox)
        mail.outbox.clear()

    assert sent[6] == ["viewer@thames.example"]
    assert sent[7] == ["owner@thames.example"]
    assert sent[9] == ["editor@example.com"]
    assert [recipients for hour, recipients in sent.items() if hour not in (6, 7, 9)] == [[]] * 5


@pytest.mark.django_db
def test_the_digest_follows_the_local_hour_across_the_spring_dst_change(london: Account) -> None:
    # Saturday 28 March 2026: London is on GMT, 07:00 local is 07:00 UTC.
    assert send_at(datetime(2026, 3, 28, 6, 59, tzinfo=UTC))["digests_sent"] == 0
    assert send_at(datetime(2026, 3, 28, 7, 0, tzinfo=UTC))["digests_sent"] == 1
    # Sunday 29 March: clocks went forward at 01:00 UTC, 07:00 local is 06:00 UTC.
    assert send_at(datetime(2026, 3, 29, 5, 59, tzinfo=UTC))["digests_sent"] == 0
    assert send_at(datetime(2026, 3, 29, 6, 0, tzinfo=UTC))["digests_sent"] == 1
    assert send_at(datetime(2026, 3, 29, 23, 0, tzinfo=UTC))["digests_sent"] == 0  # 00:00 Monday local

    assert sorted(d.isoformat() for d in MorningDigest.objects.values_list("day", flat=True)) == [
        "2026-03-28",
        "2026-03-29",
    ]


@pytest.mark.django_db
def test_a_late_scheduler_catches_up_within_the_morning_but_not_in_the_afternoon(london: Account) -> None:
    assert send_at(datetime(2026, 6, 1, 8, 50, tzinfo=UTC))["digests_sent"] == 1  # 09:50 BST, 2h50 late
    assert send_at(datetime(2026, 6, 2, 9, 0, tzinfo=UTC))["digests_sent"] == 0  # 10:00 BST next day: too late


@pytest.mark.django_db
def test_nothing_is_sent_when_nothing_waits_or_the_business_is_paused(london: Account) -> None:
    quiet = factories.account_create(name="Quiet", slug="quiet")
    person(quiet, "quiet-owner")
    Account.objects.filter(pk=london.pk).update(paused=True)

    counts = send_at(datetime(2026, 6, 1, 7, 0, tzinfo=UTC))

    assert counts["digests_sent"] == 0 and counts["nothing_waiting"] == 1
    assert mail.outbox == []
    assert not MorningDigest.objects.exists()


@pytest.mark.django_db
def test_a_restart_after_the_claim_sends_no_second_digest(london: Account) -> None:
    # A worker claimed today's digest, then died before (or after) sending it.
    owner = Membership.objects.get(user__username="owner")
    MorningDigest.objects.create(membership=owner, day=datetime(2026, 6, 1).date(), drafts=2)

    assert send_at(datetime(2026, 6, 1, 6, 30, tzinfo=UTC))["digests_sent"] == 0
    assert mail.outbox == []


@pytest.mark.django_db(transaction=True)
def test_two_scheduler_ticks_at_once_send_one_digest(london: Account) -> None:
    barrier = threading.Barrier(2)
    results: list[dict[str, int]] = []

    def tick() -> None:
        try:
            barrier.wait(timeout=10)
            results.append(send_at(datetime(2026, 6, 1, 6, 0, tzinfo=UTC)))
        finally:
            connection.close()

    threads = [threading.Thread(target=tick) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert sorted(r["digests_sent"] for r in results) == [0, 1]
    assert len(mail.outbox) == 1
    assert MorningDigest.objects.count() == 1


@pytest.mark.django_db
def test_a_digest_that_could_not_be_sent_is_tried_again_at_the_next_tick(london: Account, settings) -> None:
    with socket.socket() as probe:  # an SMTP server that refuses connections: a closed local port
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", closed_port, 2

    assert send_at(datetime(2026, 6, 1, 6, 0, tzinfo=UTC))["failed"] == 1
    assert not MorningDigest.objects.exists()  # the claim was given back

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert send_at(datetime(2026, 6, 1, 6, 15, tzinfo=UTC))["digests_sent"] == 1
    assert len(mail.outbox) == 1


@pytest.mark.django_db
def test_the_digest_job_runs_from_its_cron_slot_and_records_its_run(london: Account) -> None:
    # The job as beat, the cron route and the scheduler of `make run` ask for it: its slot's
    # JobRun. The enqueue waits for a commit the test's transaction never makes, so the
    # worker task's one call (job_run_execute) is made here.
    at = datetime(2026, 6, 1, 6, 0, tzinfo=UTC)
    with time_machine.travel(at, tick=False):
        run, created = job_run_request(job_name="send_approval_digests", at=at, trigger="scheduler")
        again, created_again = job_run_request(job_name="send_approval_digests", at=at, trigger="scheduler")
        run = job_run_execute(job_run_id=run.pk)

    assert created and not created_again and again.pk == run.pk
    assert run.outcome == JobRun.Outcome.OK and run.counts["digests_sent"] == 1
    assert len(mail.outbox) == 1
