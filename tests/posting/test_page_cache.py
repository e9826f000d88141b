"""Issue 11 item 11 (fast): Drafts, Queue and History are rendered once per content version of
the account (posting/page_cache.py, accounts/content_version.py). Correctness first: every
change shows on the next GET, a viewer never gets an editor's page, another account's page is
never served, a removed member is out at the next request, and each viewer gets their own CSRF
token. Each test reads the page first, so what follows is served from the cache unless the
change made a new version. The clock is frozen (time-machine): the minute in the key cannot
be what refreshes a page."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.contrib.auth.models import User
from django.db import connection
from django.middleware.csrf import _unmask_cipher_token
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext

from accounts.models import Account, Membership, Role
from accounts.services import member_remove, member_role_set
from posting.models import Draft
from posting.page_cache import CSRF_STAND_IN
from publish.models import Publication
from reconcile.models import EngagementSnapshot
from research.models import Article
from tests import factories
from tests.posting.test_approving_many import _draft, _post
from tests.reconcile import fixtures
from tests.reconcile.fixtures import SandboxPage

graph_sandbox = fixtures.graph_sandbox
sandbox_page = fixtures.sandbox_page

pytestmark = pytest.mark.django_db

# Tuesday 1 December 2026, 13:30 UTC: frozen, so every GET of a test falls in the same minute.
NOON = datetime(2026, 12, 1, 13, 30, tzinfo=UTC)


@pytest.fixture(autouse=True)
def frozen_clock():
    with time_machine.travel(NOON, tick=False):
        yield


def _get(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def _queued(page: str) -> list[str]:
    return re.findall(r'class="card" id="queued-(\d+)"', page)


def _cached(client: Client, url: str) -> bool:
    """Whether this GET came from the page cache: then it reads nothing from the database (the
    user and memberships come from the cache too, accounts/principal.py)."""
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    return len(queries) == 0


def test_approve_undo_reject_and_moves_show_on_the_next_get(
    sandbox_page: SandboxPage, account: Account, member_client: Client
) -> None:
    one, two = _draft(account, 1), _draft(account, 2)
    drafts_url, queue_url, history_url = (f"/a/{account.slug}/{page}/" for page in ("drafts", "queue", "history"))
    for url in (drafts_url, queue_url, history_url):
        _get(member_client, url)
        assert _cached(member_client, url)  # the test's premise: unchanged, the page is the cached one

    # Approve: gone from Drafts, in the Queue at once.
    _post(member_client, f"/a/{account.slug}/drafts/{one.pk}/approve/", {"text_sha256": one.gate_text_sha256})
    publication = Publication.objects.get(draft=one)
    assert f'id="draft-{one.pk}"' not in _get(member_client, drafts_url)
    assert _queued(_get(member_client, queue_url)) == [str(publication.pk)]

    # Undo ("Back to drafts" from the queue): back in Drafts, out of the Queue.
    _post(member_client, f"/a/{account.slug}/queue/{publication.pk}/back-to-drafts/")
    assert f'id="draft-{one.pk}"' in _get(member_client, drafts_url)
    assert _queued(_get(member_client, queue_url)) == []

    # Approve again, then move it to another time: the Queue shows the new time.
    _post(member_client, f"/a/{account.slug}/drafts/{one.pk}/approve/", {"text_sha256": one.gate_text_sha256})
    publication.refresh_from_db()
    before = _get(member_client, queue_url)
    later = re.findall(r'<option value="([^"]+)">', before)[-1]
    assert (
        _post(member_client, f"/a/{account.slug}/queue/{publication.pk}/move/", {"slot_at": later}).status_code == 302
    )
    publication.refresh_from_db()
    assert publication.slot_at is not None and publication.slot_at.isoformat() == later
    after = _get(member_client, queue_url)
    assert after != before
    assert f'<option value="{later}">' not in after.split(f'id="queued-{publication.pk}"', 1)[1].split("</article>")[0]

    # Reject: gone from Drafts, in History's "Rejected by you" with its reason.
    _post(member_client, f"/a/{account.slug}/drafts/{two.pk}/reject/", {"reason": "Too salesy"})
    assert f'id="draft-{two.pk}"' not in _get(member_client, drafts_url)
    assert f'id="rejected-{two.pk}"' in (history := _get(member_client, history_url)) and "Too salesy" in history

    # A worker's write outside any view (reconcile reads engagement back): History shows it.
    Publication.objects.filter(pk=publication.pk).update(
        status=Publication.Status.LANDED, permalink="https://facebook.example/p/1", landed_at=NOON
    )
    EngagementSnapshot.objects.create(publication=publication, fetched_at=NOON, reactions=7, comments=2)
    history = _get(member_client, history_url)
    assert "https://facebook.example/p/1" in history and "7 likes and reactions" in history


def test_a_viewer_never_gets_an_editors_page(account: Account, member_client: Client) -> None:
    draft = _draft(account, 1)
    for page in ("drafts", "queue", "history"):
        _get(member_client, f"/a/{account.slug}/{page}/")  # cached for the owner first
    viewer = Client()
    viewer.force_login(factories.member_create(account=account, username="viewer", role=Role.VIEWER))

    drafts = _get(viewer, f"/a/{account.slug}/drafts/")
    assert f'id="draft-{draft.pk}"' in drafts
    assert 'aria-label="Approve: ' not in drafts and "drafts/bulk/" not in drafts
    # The owner's navigation has Settings; the viewer's does not (the key has role and memberships).
    assert f'href="/a/{account.slug}/settings/">Settings</a>' not in drafts
    assert "Approve" in _get(member_client, f"/a/{account.slug}/drafts/")


def test_another_accounts_page_is_never_served(account: Account, other_account: Account) -> None:
    both = Client()
    user = User.objects.create_user(username="both")
    for n, each in enumerate((account, other_account)):
        Membership.objects.create(user=user, account=each, role=Role.OWNER)
        _draft(each, n)
    both.force_login(user)
    outsider = Client()
    outsider.force_login(factories.member_create(account=other_account, username="outsider"))

    mine = _get(both, f"/a/{account.slug}/drafts/")
    theirs = _get(both, f"/a/{other_account.slug}/drafts/")
    assert f"<title>Drafts · {account.name}</title>" in mine
    assert f"<title>Drafts · {other_account.name}</title>" in theirs
    assert re.findall(r'id="draft-(\d+)"', mine) == [str(Draft.objects.get(account=account).pk)]
    assert re.findall(r'id="draft-(\d+)"', theirs) == [str(Draft.objects.get(account=other_account).pk)]
    # Cached for a member of both; someone only in the other account is still refused.
    assert outsider.get(f"/a/{account.slug}/drafts/").status_code == 404


def test_a_removed_member_loses_access_on_the_next_request(account: Account, member_client: Client) -> None:
    editor_user = factories.member_create(account=account, username="editor", role=Role.EDITOR)
    editor = Client()
    editor.force_login(editor_user)
    for page in ("drafts", "queue", "history"):
        _get(editor, f"/a/{account.slug}/{page}/")
        assert _cached(editor, f"/a/{account.slug}/{page}/")

    member_remove(account=account, membership_id=Membership.objects.get(user=editor_user).pk)

    for page in ("drafts", "queue", "history"):
        assert editor.get(f"/a/{account.slug}/{page}/").status_code == 404


def test_a_cached_page_carries_each_viewers_own_csrf_token(account: Account) -> None:
    _draft(account, 1)
    pages = []
    for name in ("first-editor", "second-editor"):
        client = Client(enforce_csrf_checks=True)
        client.force_login(factories.member_create(account=account, username=name, role=Role.EDITOR))
        page = _get(client, f"/a/{account.slug}/drafts/")
        tokens = re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert CSRF_STAND_IN not in page and len(tokens) >= 4  # log out, bulk, approve, reject
        # The check Django runs on a POST: each token is this viewer's own cookie secret, masked.
        assert {_unmask_cipher_token(token) for token in tokens} == {client.cookies["csrftoken"].value}
        pages.append(page)
    # The second editor's page was the first's, from the cache, with only the tokens replaced.
    without = [re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", page) for page in pages]
    assert without[0] == without[1]


def test_messages_and_the_undo_offer_are_never_cached(account: Account, member_client: Client) -> None:
    draft = _draft(account, 1)
    _get(member_client, f"/a/{account.slug}/drafts/")
    # Reject without JavaScript: redirected to Drafts with a message and the undo offer.
    response = _post(member_client, f"/a/{account.slug}/drafts/{draft.pk}/reject/", {"reason": ""})
    page = _get(member_client, response["Location"]) if response.status_code == 302 else response.content.decode()
    assert "Rejected. It will not be posted." in page
    # Shown once, then gone: the next GET is the plain page, without the message.
    assert "Rejected. It will not be posted." not in _get(member_client, f"/a/{account.slug}/drafts/")


def test_a_role_change_and_an_account_rename_show_on_the_next_request(account: Account) -> None:
    """The user's memberships come from the cache too (accounts/principal.py): a write to the
    membership or to the account replaces the member's version, so neither is served stale."""
    editor_user = factories.member_create(account=account, username="editor", role=Role.EDITOR)
    editor = Client()
    editor.force_login(editor_user)
    _draft(account, 1)
    assert 'aria-label="Approve: ' in _get(editor, f"/a/{account.slug}/drafts/")
    assert _cached(editor, f"/a/{account.slug}/drafts/")

    member_role_set(account=account, membership_id=Membership.objects.get(user=editor_user).pk, role=Role.VIEWER)
    assert 'aria-label="Approve: ' not in _get(editor, f"/a/{account.slug}/drafts/")
    # And the server agrees, not just the page: a viewer's approve is refused.
    draft = Draft.objects.get(account=account)
    refused = _post(editor, f"/a/{account.slug}/drafts/{draft.pk}/approve/", {"text_sha256": draft.gate_text_sha256})
    assert refused.status_code == 403

    Account.objects.filter(pk=account.pk).update(name="Harbour Bikes & Boards")
    assert "<title>Drafts · Harbour Bikes &amp; Boards</title>" in _get(editor, f"/a/{account.slug}/drafts/")


def test_a_password_change_or_deactivation_signs_out_a_cached_user(account: Account) -> None:
    user = factories.member_create(account=account, username="changing", role=Role.EDITOR)
    other_device = Client()
    other_device.force_login(user)
    _get(other_device, f"/a/{account.slug}/history/")
    assert _cached(other_device, f"/a/{account.slug}/history/")

    user.set_password("a new and long passphrase")
    user.save()
    # Django's check of the session's password hash still runs: the old session is out.
    assert other_device.get(f"/a/{account.slug}/history/").status_code == 302

    again = Client()
    again.force_login(user)
    _get(again, f"/a/{account.slug}/history/")
    user.is_active = False
    user.save()
    assert again.get(f"/a/{account.slug}/history/").status_code == 302


def test_a_page_is_rendered_again_after_a_minute_for_what_the_clock_or_an_untracked_write_changes(
    account: Account, member_client: Client
) -> None:
    draft = _draft(account, 1)
    url = f"/a/{account.slug}/drafts/"
    _get(member_client, url)
    # An article's title is not one of the rows that bump the version (accounts/content_version.py).
    Article.objects.filter(pk=draft.article_id).update(title="A retitled story about Leith")
    assert _cached(member_client, url)
    assert "A retitled story about Leith" not in _get(member_client, url)

    with time_machine.travel(NOON + timedelta(seconds=61), tick=False):
        assert "A retitled story about Leith" in _get(member_client, url)
        assert _cached(member_client, url)  # and then cached again for the next minute


def test_without_a_shared_cache_nothing_is_cached_under_versions(account: Account, member_client: Client) -> None:
    """Without Redis each process has its own cache (settings.VERSIONED_CACHES is off): a write
    in a worker process could not reach a web process's copy, so pages and users are read afresh."""
    _draft(account, 1)
    with override_settings(VERSIONED_CACHES=False):
        _get(member_client, f"/a/{account.slug}/drafts/")
        assert not _cached(member_client, f"/a/{account.slug}/drafts/")
