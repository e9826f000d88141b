"""Issue 12 item 4: review discipline. Each approval records how it was made (time from the
draft first shown to the decision, evidence and source opened, edits, rejections); a
watchdog alarms when an account's approvals turn reflexive; the console shows each
account's review profile; the approver gets a gentle note when approving faster than the
post can be read. Time is moved with time-machine."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.contrib.auth.models import User
from django.test import Client
from django.test.utils import override_settings

from accounts.models import Account
from cron.models import Alarm
from cron.watchdogs import Kind, watchdog_reviews
from posting.models import Draft
from posting.review.models import DraftReview
from posting.review.services import reading_seconds_of, reviews_shown
from posting.services import draft_approve, draft_edit, draft_reject
from tests import factories
from tests.cron.rows import channel_create

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
PASSWORD = "correct horse battery staple"
# 68 words: about 14 s at 300 words a minute.
LONG_TEXT = " ".join(["Harbour Bikes opened a second shop in Leith on Monday with ten new bikes."] * 4) + (
    " Come and see us soon, we would love to show you around."
)


@pytest.fixture(autouse=True)
def settings_for_review(settings) -> None:
    settings.OPERATOR_EMAILS = []
    settings.ALARM_WEBHOOK_URL = ""
    settings.REVIEW_READING_WPM = 300
    settings.REVIEW_MIN_READING_S = 3.0
    settings.CELERY_TASK_ALWAYS_EAGER = True


@pytest.fixture
def shop(account: Account) -> Account:
    channel_create(account=account, platform="facebook_page")
    return account


def signed_in(username: str) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.get("/login/")
    # Through the login form: django-axes authenticates with the request.
    response = client.post("/login/", {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": csrf(client)})
    assert response.status_code == 302
    return client


def csrf(client: Client) -> str:
    return client.cookies["csrftoken"].value


def approve_after(draft: Draft, user: User, *, shown: datetime, seconds: float) -> DraftReview:
    with time_machine.travel(shown, tick=False):
        reviews_shown(drafts=[draft])
    with time_machine.travel(shown + timedelta(seconds=seconds), tick=False):
        draft_approve(draft=draft, user=user)
    return DraftReview.objects.get(draft=draft)


def test_reading_time_follows_the_words_with_a_floor() -> None:
    assert reading_seconds_of(LONG_TEXT) == pytest.approx(len(LONG_TEXT.split()) * 60 / 300, abs=0.2)
    assert reading_seconds_of("Hi.") == 3.0


def test_the_drafts_page_records_the_first_showing_and_approving_records_the_time_and_a_gentle_note(
    shop: Account, member
) -> None:
    draft = factories.draft_create(account=shop, text=LONG_TEXT)
    client = signed_in(member.username)

    with time_machine.travel(T0, tick=False):
        assert client.get(f"/a/{shop.slug}/drafts/").status_code == 200
    with time_machine.travel(T0 + timedelta(minutes=5), tick=False):
        client.get(f"/a/{shop.slug}/drafts/")  # a later showing changes nothing
    with time_machine.travel(T0 + timedelta(minutes=5, seconds=4), tick=False):
        page = client.post(
            f"/a/{shop.slug}/drafts/{draft.pk}/approve/",
            {"csrfmiddlewaretoken": csrf(client), "text_sha256": draft.gate_text_sha256},
            follow=True,
        ).content.decode()

    review = DraftReview.objects.get(draft=draft)
    assert review.first_shown_at == T0
    assert review.seconds_to_decision == 304.0
    assert (review.decision, review.decided_by_id) == ("approved", member.pk)
    assert not review.faster_than_reading
    assert "worth a slower read" not in page

    # a second draft approved 4 s after it was first shown gets the gentle note
    quick = factories.draft_create(account=shop, text=LONG_TEXT, platform="instagram")
    channel_create(account=shop, platform="instagram")
    with time_machine.travel(T0 + timedelta(hours=1), tick=False):
        client.get(f"/a/{shop.slug}/drafts/")
    with time_machine.travel(T0 + timedelta(hours=1, seconds=4), tick=False):
        page = client.post(
            f"/a/{shop.slug}/drafts/{quick.pk}/approve/",
            {"csrfmiddlewaretoken": csrf(client), "text_sha256": quick.gate_text_sha256},
            follow=True,
        ).content.decode()
    assert DraftReview.objects.get(draft=quick).faster_than_reading
    main = page[page.find("<main>") :]
    assert "You approved this in 4 s; reading it takes about 14 s" in main, main[:1000]


def test_opening_the_evidence_and_the_source_is_recorded_with_csrf_and_tenancy(
    shop: Account, member, other_member
) -> None:
    draft = factories.draft_create(account=shop, text=LONG_TEXT)
    client = signed_in(member.username)
    client.get(f"/a/{shop.slug}/drafts/")
    opened = f"/a/{shop.slug}/drafts/{draft.pk}/opened/"

    # without the CSRF token the beacon is refused, and nothing is recorded
    assert client.post(opened, {"what": "evidence"}).status_code == 403
    assert DraftReview.objects.get(draft=draft).evidence_opened_at is None
    # an unknown "what" is a clear 400
    assert client.post(opened, {"what": "comments", "csrfmiddlewaretoken": csrf(client)}).status_code == 400
    # another account's member gets a 404, for the beacon and the tracked link alike
    intruder = signed_in(other_member.username)
    assert intruder.post(opened, {"what": "evidence", "csrfmiddlewaretoken": csrf(intruder)}).status_code == 404
    assert intruder.get(f"/a/{shop.slug}/drafts/{draft.pk}/source/").status_code == 404

    assert client.post(opened, {"what": "evidence", "csrfmiddlewaretoken": csrf(client)}).status_code == 204
    source = client.get(f"/a/{shop.slug}/drafts/{draft.pk}/source/")
    assert source.status_code == 302 and source["Location"] == draft.article.canonical_url

    review = DraftReview.objects.get(draft=draft)
    assert review.evidence_opened_at is not None and review.source_opened_at is not None


def test_edits_and_rejections_are_recorded(shop: Account, member) -> None:
    draft = factories.draft_create(account=shop, text=LONG_TEXT)
    reviews_shown(drafts=[draft])
    draft_edit(draft=draft, text=LONG_TEXT + " See you!", editor=member, source="customer")
    draft.refresh_from_db()
    draft_reject(draft=draft, user=member)

    review = DraftReview.objects.get(draft=draft)
    assert (review.edits, review.decision) == (1, "rejected")


def test_an_approval_never_shown_on_a_page_has_no_time_and_never_counts_as_fast(shop: Account, member) -> None:
    draft = factories.draft_create(account=shop, text=LONG_TEXT)
    draft_approve(draft=draft, user=member)  # as `manage.py pipeline --approve-as` does
    review = DraftReview.objects.get(draft=draft)
    assert review.seconds_to_decision is None and not review.faster_than_reading


@override_settings(REVIEW_FAST_STREAK=5, REVIEW_EVIDENCE_MIN_APPROVALS=100, REVIEW_ALL_APPROVED_MIN=100)
def test_a_streak_of_approvals_each_faster_than_reading_alarms_until_one_is_read(shop: Account, member) -> None:
    for i in range(4):
        approve_after(_draft(shop, i), member, shown=T0 + timedelta(hours=i), seconds=2)
    with time_machine.travel(T0 + timedelta(hours=5), tick=False):
        watchdog_reviews()
    assert not Alarm.objects.filter(kind=Kind.REFLEXIVE_APPROVALS).exists()  # four is not yet a streak

    approve_after(_draft(shop, 4), member, shown=T0 + timedelta(hours=5), seconds=2)
    with time_machine.travel(T0 + timedelta(hours=6), tick=False):
        watchdog_reviews()
    alarm = Alarm.objects.get(kind=Kind.REFLEXIVE_APPROVALS, resolved_at__isnull=True)
    assert alarm.account_id == shop.pk and alarm.details["signals"] == ["fast_streak"]

    # a careful approval breaks the streak and the alarm resolves
    approve_after(_draft(shop, 5), member, shown=T0 + timedelta(hours=7), seconds=90)
    with time_machine.travel(T0 + timedelta(hours=8), tick=False):
        watchdog_reviews()
    assert not Alarm.objects.filter(kind=Kind.REFLEXIVE_APPROVALS, resolved_at__isnull=True).exists()


@override_settings(
    REVIEW_FAST_STREAK=100,
    REVIEW_EVIDENCE_MIN_APPROVALS=10,
    REVIEW_ALL_APPROVED_MIN=100,
    REVIEW_BURST_MIN=100,
    REVIEW_WINDOW_DAYS=7,
)
def test_evidence_never_opened_over_a_week_of_approvals_alarms_and_the_window_forgets(shop: Account, member) -> None:
    for i in range(10):
        approve_after(_draft(shop, i), member, shown=T0 + timedelta(hours=12 * i), seconds=60)
    with time_machine.travel(T0 + timedelta(days=5), tick=False):
        watchdog_reviews()
    alarm = Alarm.objects.get(kind=Kind.REFLEXIVE_APPROVALS, resolved_at__isnull=True)
    assert alarm.details["signals"] == ["evidence_never_opened"]
    # the alarm text names the account and what to do
    from cron.alarm_text import alarm_text

    text = alarm_text(alarm)
    assert shop.slug in text.summary and "evidence_never_opened" in text.summary
    assert "review profile" in text.action

    # a week after the first approvals, fewer than ten remain in the window
    with time_machine.travel(T0 + timedelta(days=8), tick=False):
        watchdog_reviews()
    assert not Alarm.objects.filter(kind=Kind.REFLEXIVE_APPROVALS, resolved_at__isnull=True).exists()


@override_settings(
    REVIEW_FAST_STREAK=100, REVIEW_EVIDENCE_MIN_APPROVALS=100, REVIEW_ALL_APPROVED_MIN=6, REVIEW_BURST_MIN=6
)
def test_every_draft_approved_and_all_in_one_burst_are_signals_and_a_rejection_clears_the_first(
    shop: Account, member
) -> None:
    for i in range(6):
        approve_after(_draft(shop, i), member, shown=T0, seconds=30 + i * 10)
    with time_machine.travel(T0 + timedelta(hours=1), tick=False):
        watchdog_reviews()
    alarm = Alarm.objects.get(kind=Kind.REFLEXIVE_APPROVALS, resolved_at__isnull=True)
    assert alarm.details["signals"] == ["every_draft_approved", "one_burst"]

    rejected = _draft(shop, 99)
    reviews_shown(drafts=[rejected])
    with time_machine.travel(T0 + timedelta(hours=2), tick=False):
        draft_reject(draft=rejected, user=member)
        watchdog_reviews()
    alarm.refresh_from_db()
    assert Alarm.objects.get(kind=Kind.REFLEXIVE_APPROVALS, resolved_at__isnull=True).details["signals"] == [
        "one_burst"
    ]


def test_the_console_shows_each_accounts_review_profile(shop: Account, member) -> None:
    approve_after(_draft(shop, 1), member, shown=T0, seconds=2)
    approve_after(_draft(shop, 2), member, shown=T0, seconds=40)
    User.objects.create_user(username="operator", password=PASSWORD, is_staff=True)
    client = signed_in("operator")
    with time_machine.travel(T0 + timedelta(hours=1), tick=False):
        response = client.get("/ops/")
    (row,) = response.context["fleet"]
    assert (row.review.approved, row.review.fast_approvals, row.review.evidence_opened) == (2, 1, 0)
    assert "2 approved, 0 rejected" in response.content.decode()
    assert "1 faster than reading" in response.content.decode()


def _draft(account: Account, n: int) -> Draft:
    article = factories.article_create(url=f"https://news.example/review/{n}")
    return factories.draft_create(account=account, article=article, text=LONG_TEXT)
