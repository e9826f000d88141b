"""Same-day notes (issue 11, item 7): one email to each member who wants it when a post
lands (with its permalink) or fails (the reason in plain words and the next step), exactly
once per publication outcome, sent by the notes job; and the one-click unsubscribe
(RFC 8058) every customer email carries."""

from __future__ import annotations

import re
import socket
import threading
from datetime import timedelta

import pytest
from django.core import mail
from django.db import connection
from django.test import Client
from django.utils import timezone

from accounts.models import Account, Membership, Role
from cron.customer_mail import NOTE_WINDOW, same_day_notes_send
from cron.models import PublicationNote
from notifications.models import NotificationSetting
from publish.lifecycle import Event, publication_transition
from publish.models import Publication, PublishAttempt
from tests import factories
from tests.cron.rows import publication_create
from tests.test_security_headers import inline_code

pytestmark = pytest.mark.django_db
SITE = "https://app.landed.example"


@pytest.fixture(autouse=True)
def site(settings) -> None:
    settings.SITE_URL = SITE
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def person(account: Account, username: str, role: str = Role.OWNER) -> Membership:
    user = factories.member_create(account=account, username=username, role=role)
    user.email = f"{username}@example.com"
    user.save()
    return Membership.objects.get(user=user, account=account)


@pytest.fixture
def shop(db) -> Account:
    account = factories.account_create(name="Harbour Bikes", slug="harbour", timezone="Europe/London")
    person(account, "owner")
    person(account, "editor", role=Role.EDITOR)
    person(account, "viewer", role=Role.VIEWER)  # wants no notes until they say so
    return account


def unsubscribe_path(message) -> str:
    url = message.extra_headers["List-Unsubscribe"].strip("<>")
    assert url.startswith(f"{SITE}/notifications/unsubscribe/")
    return url.removeprefix(SITE)


def test_a_landed_post_is_noted_once_with_its_permalink_to_those_who_want_it(shop: Account) -> None:
    publication = publication_create(account=shop, status=Publication.Status.SCHEDULED)
    assert same_day_notes_send()["queued"] == 0  # nothing to say while it is queued

    # It lands: reconcile's transition makes no note and sends nothing itself.
    publication_transition(event=Event.CLAIM, publication_id=publication.pk, publishing_started_at=timezone.now())
    publication_transition(event=Event.PLATFORM_ACCEPTED, publication_id=publication.pk, platform_post_id="1_9")
    publication_transition(
        event=Event.READ_LIVE,
        publication_id=publication.pk,
        permalink="https://facebook.example/harbour/posts/9",
        landed_at=timezone.now(),
    )
    assert not PublicationNote.objects.exists() and mail.outbox == []

    first = same_day_notes_send()
    second = same_day_notes_send()

    assert (first["queued"], first["delivered"]) == (1, 1)
    assert (second["queued"], second["delivered"]) == (0, 0)
    assert sorted(m.to[0] for m in mail.outbox) == ["editor@example.com", "owner@example.com"]
    message = mail.outbox[0]
    assert message.subject == "Live on Facebook: your post for Harbour Bikes"
    assert "https://facebook.example/harbour/posts/9" in message.body
    assert "(Europe/London)" in message.body
    assert "Harbour Bikes opened a second shop" in message.body
    assert 'href="https://facebook.example/harbour/posts/9"' in message.alternatives[0][0]
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    note = PublicationNote.objects.get()
    assert (note.outcome, note.recipients, note.delivered_at is not None) == ("landed", 2, True)


def test_a_failed_post_says_why_in_plain_words_and_what_happens_next(shop: Account) -> None:
    publication = publication_create(
        account=shop, status=Publication.Status.FAILED, failure_kind="permanent", failure_reason="blocked"
    )
    PublishAttempt.objects.create(
        publication=publication, request_kind="fb_feed", outcome="permanent", error_code=368, http_status=400
    )

    assert same_day_notes_send()["delivered"] == 1

    message = mail.outbox[0]
    assert message.subject == "Not posted on Facebook: a post for Harbour Bikes"
    assert "What happened: Facebook has temporarily blocked posting from this Page (#368)." in message.body
    assert "What next: It will not be retried as it is" in message.body
    assert f"{SITE}/a/harbour/history/" in message.body


def test_old_outcomes_get_no_note(shop: Account) -> None:
    publication_create(account=shop, landed_at=timezone.now() - NOTE_WINDOW - timedelta(minutes=1))
    assert same_day_notes_send()["queued"] == 0
    assert mail.outbox == []


def test_a_note_that_could_not_be_sent_is_retried_after_a_backoff_and_sent_once(shop: Account, settings) -> None:
    publication_create(account=shop)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", closed_port, 2

    assert same_day_notes_send()["failed"] == 1
    note = PublicationNote.objects.get()
    assert note.delivered_at is None and note.claimed_until > timezone.now() and note.last_error

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert same_day_notes_send()["delivered"] == 0  # still backing off
    PublicationNote.objects.update(claimed_until=timezone.now() - timedelta(seconds=1))
    assert same_day_notes_send()["delivered"] == 1
    assert len(mail.outbox) == 2


def test_one_click_unsubscribe_get_confirms_post_unsubscribes_that_kind_for_that_business(shop: Account) -> None:
    other = factories.account_create(name="Leith Wheels", slug="leith")
    owner = Membership.objects.get(account=shop, user__username="owner")
    Membership.objects.create(user=owner.user, account=other, role=Role.OWNER)
    publication_create(account=shop)
    same_day_notes_send()
    path = unsubscribe_path(next(m for m in mail.outbox if m.to == ["owner@example.com"]))
    anonymous = Client(enforce_csrf_checks=True)

    # A mail scanner's GET changes nothing: it shows a confirm page with a button.
    page = anonymous.get(path)
    assert page.status_code == 200
    assert "Unsubscribe from same-day notes" in page.content.decode()
    assert inline_code(page.content.decode()) == []  # CSP-clean, like every page
    assert not NotificationSetting.objects.exists()

    # The mail provider's one-click POST (no cookie, no CSRF token) unsubscribes at once.
    done = anonymous.post(path, {"List-Unsubscribe": "One-Click"})
    assert done.status_code == 200
    assert "will get no more same-day notes emails for Harbour Bikes" in done.content.decode()
    setting = NotificationSetting.objects.get(membership=owner)
    assert (setting.same_day, setting.digest) == (False, True)  # only that kind
    assert anonymous.post(path).status_code == 200  # a second click is harmless

    # The next outcome is noted to the editor only; the owner's other business is untouched.
    mail.outbox.clear()
    publication_create(account=shop)
    same_day_notes_send()
    assert [m.to for m in mail.outbox] == [["editor@example.com"]]
    assert not NotificationSetting.objects.filter(membership__account=other).exists()


@pytest.mark.parametrize("how", ["altered", "forged", "garbage"])
def test_an_altered_or_forged_unsubscribe_link_gets_a_clear_page_and_changes_nothing(shop: Account, how: str) -> None:
    publication_create(account=shop)
    same_day_notes_send()
    path = unsubscribe_path(mail.outbox[0])
    token = path.removeprefix("/notifications/unsubscribe/").strip("/")
    payload, _, signature = token.rpartition(":")
    bad = {
        "altered": f"{payload[:-2]}xx:{signature}",
        "forged": re.sub(r"^[^:]+", "eyJtIjoxLCJrIjoiZGlnZXN0In0", token),  # {"m":1,"k":"digest"}, old signature
        "garbage": "not-a-token",
    }[how]

    for client_method in ("get", "post"):
        response = getattr(Client(), client_method)(f"/notifications/unsubscribe/{bad}/")
        assert response.status_code == 400
        assert "This unsubscribe link is not valid" in response.content.decode()
        assert inline_code(response.content.decode()) == []
    assert not NotificationSetting.objects.exists()  # nobody, the editor included, was unsubscribed


@pytest.mark.django_db(transaction=True)
def test_two_workers_running_the_notes_job_at_once_send_each_note_once(shop: Account) -> None:
    publication_create(account=shop)
    barrier = threading.Barrier(2)
    results: list[dict[str, int]] = []

    def run() -> None:
        try:
            barrier.wait(timeout=10)
            results.append(same_day_notes_send())
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert len(results) == 2
    assert sum(r["delivered"] for r in results) == 1
    assert sorted(m.to[0] for m in mail.outbox) == ["editor@example.com", "owner@example.com"]
    assert PublicationNote.objects.count() == 1
