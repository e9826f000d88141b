"""Approving many (issue 11, item 2): approve and reject in place (a fragment, no reload) and
without JavaScript alike, bulk select, reject with an optional reason (kept, shown in History,
given to the composer as "don't"), undo after approve and reject, and buttons whose accessible
names tell one draft from the next."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.content_version import account_content_changed
from accounts.models import Account, Platform, Role
from posting.composer.services import drafts_compose_for_account
from posting.models import Draft
from posting.selectors import PAGE_SIZE
from posting.services import draft_reject
from publish.models import Publication
from tests import factories
from tests.llm_server import LLMServer, Reply, serve_llm
from tests.posting.test_composer import article_create
from tests.posting.test_composer_llm import GOOD_POST
from tests.reconcile import fixtures
from tests.reconcile.fixtures import SandboxPage

graph_sandbox = fixtures.graph_sandbox
sandbox_page = fixtures.sandbox_page

pytestmark = pytest.mark.django_db
INPLACE = {"HTTP_X_LANDED_INPLACE": "1"}


def _post(client: Client, url: str, data: dict | None = None, **headers):
    client.get("/login/")
    return client.post(url, data or {}, HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value, **headers)


def _draft(account: Account, n: int, platform: str = Platform.FACEBOOK_PAGE) -> Draft:
    return factories.draft_create(
        account=account,
        platform=platform,
        article=factories.article_create(url=f"https://news.example/many/{n}"),
        text=f"Draft number {n} says Harbour Bikes opened a second shop in Leith on Monday.",
    )


def test_each_button_names_its_draft(member_client: Client, account: Account) -> None:
    drafts = [_draft(account, n) for n in (1, 2)]
    page = member_client.get(f"/a/{account.slug}/drafts/").content.decode()
    for d in drafts:
        words = f"Draft number {d.text.split()[2]} says Harbour Bikes…"
        assert f'aria-label="Approve: {words}"' in page
        assert f'aria-label="Reject: {words}"' in page
        assert f'aria-label="Select: {words}"' in page
    # The in-place script is a file of ours, never a CDN; the forms post without it.
    assert re.search(r'<script src="/static/posting/inplace\.js" defer></script>', page)
    assert "https://" not in re.findall(r"<script[^>]*>", page)[0]


def test_approve_in_place_answers_with_a_fragment_and_undo_brings_the_card_back(
    sandbox_page: SandboxPage, member_client: Client, account: Account
) -> None:
    draft = _draft(account, 1)
    url = f"/a/{account.slug}/drafts/{draft.pk}/approve/"

    response = _post(member_client, url, {"text_sha256": draft.gate_text_sha256}, **INPLACE)

    assert response.status_code == 200
    fragment = response.content.decode()
    assert fragment.startswith(f'<article class="card decided" id="draft-{draft.pk}"')
    assert "<html" not in fragment
    assert "Approved: it goes out" in fragment
    assert 'aria-label="Undo: Draft number 1 says Harbour Bikes…"' in fragment
    publication = Publication.objects.get(draft=draft)
    assert publication.status == Publication.Status.SCHEDULED

    undo = _post(member_client, f"/a/{account.slug}/drafts/undo/", {"action": "approve", "draft": draft.pk}, **INPLACE)

    assert undo.status_code == 200
    assert f'id="draft-{draft.pk}"' in undo.content.decode()
    assert 'aria-label="Approve: Draft number 1' in undo.content.decode()
    draft.refresh_from_db()
    publication.refresh_from_db()
    assert draft.is_awaiting_approval
    assert publication.status == Publication.Status.WITHDRAWN


def test_without_javascript_the_same_forms_redirect_and_offer_undo(
    sandbox_page: SandboxPage, member_client: Client, account: Account
) -> None:
    draft = _draft(account, 1)
    response = _post(member_client, f"/a/{account.slug}/drafts/{draft.pk}/reject/", {"reason": "Too salesy "})
    assert response.status_code == 302
    page = member_client.get(response["Location"]).content.decode()
    assert "Rejected. It will not be posted." in page
    assert 'id="undo"' in page
    draft.refresh_from_db()
    assert (draft.status, draft.rejection_reason) == (Draft.Status.REJECTED, "Too salesy")

    undo = _post(member_client, f"/a/{account.slug}/drafts/undo/", {"action": "reject", "draft": draft.pk})
    assert "Undone: 1 draft back in drafts." in member_client.get(undo["Location"]).content.decode()
    draft.refresh_from_db()
    assert draft.is_awaiting_approval
    assert draft.rejection_reason == ""
    # The undo is offered once: the next page no longer shows it.
    assert 'id="undo"' not in member_client.get(f"/a/{account.slug}/drafts/").content.decode()


def test_bulk_approve_takes_each_draft_as_shown_and_says_which_it_refused(
    sandbox_page: SandboxPage, member_client: Client, account: Account
) -> None:
    drafts = [_draft(account, n) for n in range(4)]
    picked = [f"{d.pk}:{d.gate_text_sha256}" for d in drafts[:3]]
    # The third changed since the page was shown: its digest no longer matches.
    picked[2] = f"{drafts[2].pk}:{'0' * 64}"
    foreign = _draft(factories.account_create(name="Other", slug="other"), 9)

    response = _post(
        member_client,
        f"/a/{account.slug}/drafts/bulk/",
        {"decision": "approve", "draft": [*picked, f"{foreign.pk}:{foreign.gate_text_sha256}", "junk"]},
    )

    page = member_client.get(response["Location"]).content.decode()
    assert "Approved 2 drafts." in page
    assert "Not approved: “Draft number 2 says Harbour Bikes…”: This draft changed since you opened it." in page
    assert [Draft.objects.get(pk=d.pk).status for d in drafts] == ["approved", "approved", "gated", "gated"]
    assert Draft.objects.get(pk=foreign.pk).status == "gated"
    slots = sorted(Publication.objects.values_list("slot_at", flat=True))
    assert len(set(slots)) == 2

    # Undo the whole bulk approval at once.
    _post(member_client, f"/a/{account.slug}/drafts/undo/", {"action": "approve", "draft": [d.pk for d in drafts[:2]]})
    assert [Draft.objects.get(pk=d.pk).status for d in drafts[:2]] == ["gated", "gated"]


def test_bulk_reject_keeps_the_reason_and_history_shows_it(member_client: Client, account: Account) -> None:
    drafts = [_draft(account, n) for n in range(2)]
    _post(
        member_client,
        f"/a/{account.slug}/drafts/bulk/",
        {"decision": "reject", "reason": "We never mention competitors", "draft": [f"{d.pk}:" for d in drafts]},
    )
    assert set(Draft.objects.values_list("status", "rejection_reason")) == {
        ("rejected", "We never mention competitors")
    }
    history = member_client.get(f"/a/{account.slug}/history/").content.decode()
    assert "Rejected by you" in history
    assert history.count("“We never mention competitors”") == 2


def test_bulk_with_nothing_selected_or_no_decision_says_so(member_client: Client, account: Account) -> None:
    response = _post(member_client, f"/a/{account.slug}/drafts/bulk/", {"decision": "approve"})
    assert "Select at least one draft first." in member_client.get(response["Location"]).content.decode()
    response = _post(member_client, f"/a/{account.slug}/drafts/bulk/", {"decision": "publish", "draft": ["1:"]})
    assert "Choose Approve selected or Reject selected." in member_client.get(response["Location"]).content.decode()


@pytest.mark.parametrize("path", ["drafts/bulk/", "drafts/undo/"])
def test_a_viewer_can_neither_bulk_decide_nor_undo(path: str, account: Account) -> None:
    viewer = factories.member_create(account=account, username="viewer", role=Role.VIEWER)
    client = Client(enforce_csrf_checks=True)
    client.force_login(viewer)
    draft = _draft(account, 1)
    data = {"decision": "reject", "action": "reject", "draft": [f"{draft.pk}:", str(draft.pk)]}
    assert _post(client, f"/a/{account.slug}/{path}", data).status_code == 403
    assert "Select:" not in client.get(f"/a/{account.slug}/drafts/").content.decode()
    draft.refresh_from_db()
    assert draft.status == Draft.Status.GATED


@pytest.fixture
def llm(settings) -> Iterator[LLMServer]:
    yield from serve_llm(settings, timeout_s=0.5, max_retries=1)


def test_the_composer_is_told_the_customers_reasons_as_donts(llm: LLMServer, account: Account, member) -> None:
    from publish.models import Channel

    Channel.objects.create(account=account, platform=Platform.FACEBOOK_PAGE, external_id="page-1")
    rejected = draft_reject(draft=_draft(account, 1), user=member, reason="No exclamation marks, ever")
    # Rejected yesterday: today's cadence still has room for a new draft.
    Draft.objects.filter(pk=rejected.pk).update(created_at=timezone.now() - timedelta(days=1))
    llm.script(Reply.ok(GOOD_POST))
    article_create(account)

    drafts_compose_for_account(account=account)

    prompt = "\n".join(m["content"] for m in llm.requests[0].body["messages"])
    assert "DON'T (the business rejected earlier drafts for these reasons):" in prompt
    assert "- No exclamation marks, ever" in prompt


@pytest.mark.parametrize("count", [5, 50])
def test_the_drafts_page_makes_the_same_queries_for_5_or_50_drafts(
    count: int, member_client: Client, account: Account
) -> None:
    for n in range(count):
        _draft(account, n, Platform.FACEBOOK_PAGE if n % 2 else Platform.INSTAGRAM)
    member_client.get(f"/a/{account.slug}/drafts/")
    # Rendered: the page was seen (its cards are cached), then the account's content changed.
    account_content_changed([account.pk])
    with CaptureQueriesContext(connection) as queries:
        response = member_client.get(f"/a/{account.slug}/drafts/")
    # A page of cards at most (posting.selectors.PAGE_SIZE); the rest are a page further on.
    assert response.content.decode().count('aria-label="Approve: ') == min(count, PAGE_SIZE)
    assert len(queries) == DRAFTS_PAGE_QUERIES, [q["sql"][:300] for q in queries]
    # Again with nothing changed: the page from the cache (posting/page_cache.py), the same HTML.
    with CaptureQueriesContext(connection) as cached:
        again = member_client.get(f"/a/{account.slug}/drafts/")
    assert len(cached) == CACHED_PAGE_QUERIES, [q["sql"][:300] for q in cached]
    assert _without_csrf(again.content.decode()) == _without_csrf(response.content.decode())


def _without_csrf(page: str) -> str:
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", page)


# The count of drafts waiting and one
# page of them, held back, in the gate, skipped stories, and one for review discipline
# (posting.review.reviews_shown: which drafts were already shown; the page was seen before,
# so there is no first showing to insert), whatever the number of drafts. Was 11: the session
# now comes from the cache (cached_db), and neither the view nor the navigation reads the
# membership again.
# Was 8: the user and the memberships now come from the cache while the user's member
# version is current (accounts/principal.py).
DRAFTS_PAGE_QUERIES = 6
# The same page unchanged, from the cache (the user and memberships too): no query at all.
CACHED_PAGE_QUERIES = 0
