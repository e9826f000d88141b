"""The queue (issue 11, item 1): posting slots per platform from the cadence and the account's
time zone, approve into the next free slot, publish at the slot to the minute, and the
customer's moves before it goes out (move, "Post now", "Back to drafts"), each a conditional
update that says so plainly when it lost its race. Time is moved with time-machine; the
platform is the real Graph sandbox over HTTP."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, time, timedelta

import pytest
import time_machine
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.content_version import account_content_changed
from accounts.models import Platform, Role
from cron.jobs import JOBS_BY_NAME
from devkit.sandbox import GraphSandbox
from posting.models import Draft
from posting.selectors import PAGE_SIZE
from posting.services import draft_approve
from publish.lifecycle import Event, publication_transition
from publish.models import PostingSlot, Publication
from publish.services import publication_publish, publications_publish_due
from publish.slots import Rhythm, rhythm_from_cadence, slot_times
from tests import factories
from tests.content_version import without_version_bumps
from tests.reconcile import fixtures
from tests.reconcile.fixtures import SandboxPage

graph_sandbox = fixtures.graph_sandbox
sandbox_page = fixtures.sandbox_page

pytestmark = pytest.mark.django_db
Status = Publication.Status

# 08:30 in New York (UTC-5 in December) on Tuesday 1 December 2026.
MORNING = datetime(2026, 12, 1, 13, 30, tzinfo=UTC)


def _csrf_post(client: Client, url: str, data: dict | None = None):
    client.get("/login/")
    return client.post(url, data or {}, HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)


def _draft(account, n: int, platform: str = Platform.FACEBOOK_PAGE) -> Draft:
    return factories.draft_create(
        account=account,
        platform=platform,
        article=factories.article_create(url=f"https://news.example/queue/{n}"),
        text=f"Harbour Bikes opened a second shop in Leith on Monday. Post number {n}.",
    )


@pytest.fixture
def new_york(account):
    account.timezone = "America/New_York"
    account.cadence_per_day = 2
    account.save()
    return account


# --- slots --------------------------------------------------------------------------------


def test_default_slots_follow_the_cadence_every_day() -> None:
    assert rhythm_from_cadence(1) == Rhythm(weekdays=tuple(range(7)), times=(time(10, 0),))
    assert rhythm_from_cadence(2).times == (time(9, 0), time(19, 0))
    assert rhythm_from_cadence(3).times == (time(9, 0), time(14, 0), time(19, 0))
    # Nonsense cadences still give a usable rhythm, never an empty one.
    assert rhythm_from_cadence(0).times == (time(10, 0),)


def test_slot_instants_keep_the_local_time_across_a_clock_change() -> None:
    from zoneinfo import ZoneInfo

    rhythm = Rhythm(weekdays=tuple(range(7)), times=(time(9, 0),))
    london = ZoneInfo("Europe/London")
    # Clocks go forward on Sunday 29 March 2026: 09:00 is 09:00 UTC before and 08:00 UTC after.
    instants = list(slot_times(rhythm=rhythm, zone=london, after=datetime(2026, 3, 28, 0, 0, tzinfo=UTC), days=1))
    assert instants == [datetime(2026, 3, 28, 9, 0, tzinfo=UTC), datetime(2026, 3, 29, 8, 0, tzinfo=UTC)]


def test_the_publish_due_job_runs_every_minute_from_the_cron_registry() -> None:
    job = JOBS_BY_NAME["publish_due"]
    assert job.service_function() is publications_publish_due
    assert job.period == timedelta(minutes=1)
    assert job.cron_expression() == "* * * * *"


# --- approve into the next free slot --------------------------------------------------------


def test_approving_takes_the_next_free_slot_in_the_accounts_zone(
    sandbox_page: SandboxPage, new_york, member_client: Client
) -> None:
    drafts = [_draft(new_york, n) for n in range(3)]
    with time_machine.travel(MORNING, tick=False):
        first = _csrf_post(member_client, f"/a/{new_york.slug}/drafts/{drafts[0].pk}/approve/")
        page = member_client.get(first["Location"]).content.decode()
        for draft in drafts[1:]:
            _csrf_post(member_client, f"/a/{new_york.slug}/drafts/{draft.pk}/approve/")

    slots = [Publication.objects.get(draft=d).slot_at for d in drafts]
    # 09:00 and 19:00 New York today, then 09:00 tomorrow: stored in UTC.
    assert slots == [
        datetime(2026, 12, 1, 14, 0, tzinfo=UTC),
        datetime(2026, 12, 2, 0, 0, tzinfo=UTC),
        datetime(2026, 12, 2, 14, 0, tzinfo=UTC),
    ]
    assert all(p.scheduled_for == p.slot_at for p in Publication.objects.all())
    assert "Approved: it goes out Tue 1 Dec, 09:00 (America/New_York)" in page


def test_a_slot_already_taken_is_refused_by_the_database(sandbox_page: SandboxPage, new_york, member) -> None:
    with time_machine.travel(MORNING, tick=False):
        draft_approve(draft=_draft(new_york, 1), user=member)
    taken = Publication.objects.get()
    second = _draft(new_york, 2)
    Draft.objects.filter(pk=second.pk).update(status=Draft.Status.APPROVED)

    with pytest.raises(IntegrityError), transaction.atomic():
        Publication.objects.create(
            account=new_york,
            draft=second,
            channel=taken.channel,
            message="x",
            scheduled_for=taken.slot_at,
            slot_at=taken.slot_at,
        )


@pytest.mark.django_db(transaction=True)
def test_approvals_racing_each_take_their_own_slot(sandbox_page: SandboxPage, new_york, member) -> None:
    drafts = [_draft(new_york, n) for n in range(6)]
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(drafts))

    def approve(draft: Draft) -> None:
        try:
            barrier.wait()
            draft_approve(draft=draft, user=member)
        except BaseException as exc:  # reported below, with the thread's own error
            errors.append(exc)
        finally:
            connection.close()

    with time_machine.travel(MORNING, tick=False):
        threads = [threading.Thread(target=approve, args=(d,)) for d in drafts]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    assert not errors
    slots = list(Publication.objects.values_list("slot_at", flat=True))
    assert len(slots) == len(set(slots)) == len(drafts)


# --- publishing at the slot ---------------------------------------------------------------


def test_it_publishes_at_the_slot_to_the_minute_from_the_database_alone(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox, new_york, member
) -> None:
    with time_machine.travel(MORNING, tick=False):
        draft_approve(draft=_draft(new_york, 1), user=member)
    publication = Publication.objects.get()
    slot = publication.slot_at
    # Nothing in memory carries it from here (a restart loses nothing): only the row.

    with time_machine.travel(slot - timedelta(seconds=1), tick=False):
        assert publications_publish_due()["due"] == 0
        assert publication_publish(publication_id=publication.pk).status == Status.SCHEDULED
    assert graph_sandbox.posts(page_id=sandbox_page.page_id) == []

    with time_machine.travel(slot, tick=False):
        assert publications_publish_due()["due"] == 1
        published = publication_publish(publication_id=publication.pk)
    assert published.status == Status.PUBLISHED
    assert published.published_at == slot
    assert len(graph_sandbox.posts(page_id=sandbox_page.page_id)) == 1


# --- the customer's moves -----------------------------------------------------------------


def test_the_queue_page_lists_what_goes_out_when_in_the_accounts_zone(
    sandbox_page: SandboxPage, new_york, member_client: Client, member
) -> None:
    with time_machine.travel(MORNING, tick=False):
        draft_approve(draft=_draft(new_york, 1), user=member)
        page = member_client.get(f"/a/{new_york.slug}/queue/").content.decode()
    assert "Times are in <strong>America/New_York</strong>" in page
    assert "Tue 1 Dec, 09:00</time> (America/New_York)" in page
    assert "Post number 1." in page
    for button in ("Post now", "Move", "Back to drafts"):
        assert f">{button}</button>" in page


def test_move_post_now_and_back_to_drafts(
    sandbox_page: SandboxPage, new_york, member_client: Client, member, django_capture_on_commit_callbacks
) -> None:
    drafts = [_draft(new_york, n) for n in range(3)]
    with time_machine.travel(MORNING, tick=False):
        for draft in drafts:
            draft_approve(draft=draft, user=member)
        moved, now, back = (Publication.objects.get(draft=d) for d in drafts)
        base = f"/a/{new_york.slug}/queue"

        # Move: to a later free slot (Thursday 19:00 New York), and never onto a taken or foreign time.
        thursday = datetime(2026, 12, 4, 0, 0, tzinfo=UTC)
        assert (
            _csrf_post(member_client, f"{base}/{moved.pk}/move/", {"slot_at": thursday.isoformat()}).status_code == 302
        )
        moved.refresh_from_db()
        assert moved.slot_at == moved.scheduled_for == thursday
        taken = now.slot_at
        response = _csrf_post(member_client, f"{base}/{moved.pk}/move/", {"slot_at": taken.isoformat()})
        assert "Another post has just taken that time" in member_client.get(response["Location"]).content.decode()
        odd = datetime(2026, 12, 4, 1, 7, tzinfo=UTC)
        response = _csrf_post(member_client, f"{base}/{moved.pk}/move/", {"slot_at": odd.isoformat()})
        assert "not one of your posting times" in member_client.get(response["Location"]).content.decode()
        response = _csrf_post(member_client, f"{base}/{moved.pk}/move/", {"slot_at": "next tuesday"})
        assert "Pick a time from the list" in member_client.get(response["Location"]).content.decode()
        moved.refresh_from_db()
        assert moved.slot_at == thursday

        # Post now: due at once, its slot freed for the next approval, handed to a worker.
        with django_capture_on_commit_callbacks() as callbacks:
            _csrf_post(member_client, f"{base}/{now.pk}/post-now/")
        now.refresh_from_db()
        assert (now.slot_at, now.scheduled_for) == (None, MORNING)
        assert len(without_version_bumps(callbacks)) == 1

        # Back to drafts: awaiting approval again, the publication out of the queue. (An
        # Instagram container made meanwhile would carry the old caption: requeue drops it.)
        Publication.objects.filter(pk=back.pk).update(container_id="container-with-old-caption")
        _csrf_post(member_client, f"{base}/{back.pk}/back-to-drafts/")
        back.refresh_from_db()
        assert (back.status, back.slot_at) == (Status.WITHDRAWN, None)
        draft = Draft.objects.get(pk=drafts[2].pk)
        assert draft.is_awaiting_approval
        assert publications_publish_due()["due"] == 1  # the "Post now" one, not the withdrawn one

        # Approving it again requeues the same publication into the first free slot (09:00 today,
        # freed by "Post now").
        draft_approve(draft=draft, user=member)
    back.refresh_from_db()
    assert back.status == Status.SCHEDULED
    assert back.container_id == ""
    assert back.slot_at == datetime(2026, 12, 1, 14, 0, tzinfo=UTC)


@pytest.mark.parametrize("action", ["post-now", "back-to-drafts", "move"])
def test_losing_the_race_to_the_worker_says_so(
    action: str, sandbox_page: SandboxPage, new_york, member_client: Client, member
) -> None:
    with time_machine.travel(MORNING, tick=False):
        draft_approve(draft=_draft(new_york, 1), user=member)
        publication = Publication.objects.get()
        # A worker claimed it a moment before the customer's tap arrived.
        assert publication_transition(event=Event.CLAIM, publication_id=publication.pk) == 1
        data = {"slot_at": datetime(2026, 12, 4, 0, 0, tzinfo=UTC).isoformat()} if action == "move" else {}
        response = _csrf_post(member_client, f"/a/{new_york.slug}/queue/{publication.pk}/{action}/", data)
        page = member_client.get(response["Location"]).content.decode()
    assert "Too late" in page
    publication.refresh_from_db()
    assert publication.status == Status.PUBLISHING
    assert Draft.objects.get(pk=publication.draft_id).status == Draft.Status.APPROVED


# --- posting times ---------------------------------------------------------------------------


def test_the_owner_sets_posting_times_and_bad_input_changes_nothing(
    sandbox_page: SandboxPage, new_york, member_client: Client, member
) -> None:
    url = f"/a/{new_york.slug}/queue/times/"
    _csrf_post(member_client, url, {"platform": "facebook_page", "weekdays": ["0", "2"], "times": "08:15, 12:00"})
    assert set(PostingSlot.objects.values_list("weekday", "time")) == {
        (0, time(8, 15)),
        (0, time(12, 0)),
        (2, time(8, 15)),
        (2, time(12, 0)),
    }
    for bad, said in [
        ({"weekdays": ["0"], "times": "lunchtime"}, "is not a time"),
        ({"weekdays": [], "times": "09:00"}, "at least one day"),
        ({"weekdays": ["0"], "times": ""}, "at least one time"),
    ]:
        response = _csrf_post(member_client, url, {"platform": "facebook_page", **bad})
        assert said in member_client.get(response["Location"]).content.decode()
    assert PostingSlot.objects.count() == 4

    # Tuesday 08:30 New York: the next Facebook slot is now Wednesday 08:15.
    with time_machine.travel(MORNING, tick=False):
        draft_approve(draft=_draft(new_york, 1), user=member)
    assert Publication.objects.get().slot_at == datetime(2026, 12, 2, 13, 15, tzinfo=UTC)


def test_an_editor_changes_the_queue_but_not_the_times_and_a_viewer_neither(sandbox_page: SandboxPage, account) -> None:
    editor = factories.member_create(account=account, username="editor", role=Role.EDITOR)
    viewer = factories.member_create(account=account, username="viewer", role=Role.VIEWER)
    draft_approve(draft=_draft(account, 1), user=editor)
    publication = Publication.objects.get()
    times = f"/a/{account.slug}/queue/times/"
    for user, queue_status, times_status in [(editor, 302, 403), (viewer, 403, 403)]:
        client = Client(enforce_csrf_checks=True)
        client.force_login(user)
        page = client.get(f"/a/{account.slug}/queue/").content.decode()
        assert ("Post now" in page) is (user == editor)
        assert "Save Facebook Page times" not in page
        assert (
            _csrf_post(client, times, {"platform": "facebook_page", "weekdays": ["0"], "times": "09:00"}).status_code
            == times_status
        )
        assert _csrf_post(client, f"/a/{account.slug}/queue/{publication.pk}/post-now/").status_code == queue_status
    assert not PostingSlot.objects.exists()


def test_a_post_of_another_account_cannot_be_moved_through_my_slug(
    sandbox_page: SandboxPage, account, other_account, member_client: Client
) -> None:
    foreign = fixtures.publication_make(channel=sandbox_page.facebook)
    Publication.objects.filter(pk=foreign.pk).update(account=other_account)
    assert _csrf_post(member_client, f"/a/{account.slug}/queue/{foreign.pk}/post-now/").status_code == 404
    assert _csrf_post(member_client, f"/a/{account.slug}/queue/{foreign.pk}/back-to-drafts/").status_code == 404


@pytest.mark.parametrize("count", [5, 50])
def test_the_queue_page_makes_the_same_queries_for_5_or_50_posts(
    count: int, sandbox_page: SandboxPage, account, member_client: Client, member, request
) -> None:
    with time_machine.travel(MORNING, tick=False):
        for n in range(count):
            draft_approve(
                draft=_draft(account, n, Platform.FACEBOOK_PAGE if n % 2 else Platform.INSTAGRAM), user=member
            )
        member_client.get(f"/a/{account.slug}/queue/")
        account_content_changed([account.pk])  # rendered, not the cached page
        with CaptureQueriesContext(connection) as queries:
            response = member_client.get(f"/a/{account.slug}/queue/")
        # Unchanged, from the cache (posting/page_cache.py; the user and memberships too): no query.
        with CaptureQueriesContext(connection) as cached:
            member_client.get(f"/a/{account.slug}/queue/")
    assert len(cached) == 0, [q["sql"][:120] for q in cached]
    assert response.status_code == 200
    # One page at most (posting.selectors.PAGE_SIZE); one query more for the count of pages.
    assert response.content.decode().count('class="card" id="queued-') == min(count, PAGE_SIZE)
    # The same number whatever the count (asserted across both parametrisations).
    assert len(queries) == QUEUE_PAGE_QUERIES, [q["sql"][:120] for q in queries]


# Was 12: the session now comes from the cache (cached_db), and the memberships are read once
# per request by member_required, not again by the view (twice: may decide, is owner) or the
# navigation.
# Was 8: the user and the memberships now come from the cache (accounts/principal.py).
QUEUE_PAGE_QUERIES = 6
