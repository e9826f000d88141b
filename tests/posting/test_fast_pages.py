"""Issue 11 item 11 (fast): Drafts, Queue and History show a page of cards at a time, with
"Newer"/"Older" links, and a draft's card is rendered once per version of the draft. The
cached card never carries another viewer's CSRF token and never outlives a change to its draft."""

from __future__ import annotations

import re

import pytest
from django.middleware.csrf import _unmask_cipher_token
from django.test import Client
from django.utils import timezone

from accounts.models import Account, Role
from posting.cards import CSRF_STAND_IN
from posting.models import Draft, text_sha256_of
from posting.selectors import PAGE_SIZE
from tests import factories
from tests.posting.test_approving_many import _draft, _post

pytestmark = pytest.mark.django_db


def _cards(page: str) -> list[str]:
    return re.findall(r'<article class="card" id="(draft-\d+)"', page)


def test_drafts_come_a_page_at_a_time_with_newer_and_older_links(member_client: Client, account: Account) -> None:
    drafts = [_draft(account, n) for n in range(PAGE_SIZE + 5)]
    newest_first = [f"draft-{d.pk}" for d in reversed(drafts)]

    first = member_client.get(f"/a/{account.slug}/drafts/").content.decode()
    second = member_client.get(f"/a/{account.slug}/drafts/?page=2").content.decode()

    assert _cards(first) == newest_first[:PAGE_SIZE]
    assert _cards(second) == newest_first[PAGE_SIZE:]
    assert '<nav class="pager row" aria-label="Pages of drafts">' in first
    assert '<a class="button" href="?page=2" rel="next">Older</a>' in first and "Newer" not in first
    assert '<a class="button" href="?page=1" rel="prev">Newer</a>' in second and ">Older<" not in second
    assert f"Page 2 of 2 ({PAGE_SIZE + 5} drafts)" in second
    # A page number that is not one, or past the end, still shows cards, never an error.
    assert _cards(member_client.get(f"/a/{account.slug}/drafts/?page=x").content.decode()) == _cards(first)
    assert _cards(member_client.get(f"/a/{account.slug}/drafts/?page=99").content.decode()) == _cards(second)


def test_bulk_decisions_work_on_the_page_shown(member_client: Client, account: Account) -> None:
    drafts = [_draft(account, n) for n in range(PAGE_SIZE + 3)]
    second = member_client.get(f"/a/{account.slug}/drafts/?page=2").content.decode()
    picked = re.findall(r'name="draft" value="(\d+:[0-9a-f]{64})"', second)
    assert len(picked) == 3 and all(f"{d.pk}:" in " ".join(picked) for d in drafts[:3])

    response = _post(member_client, f"/a/{account.slug}/drafts/bulk/", {"decision": "reject", "draft": picked})

    assert response.status_code == 302
    assert Draft.objects.filter(account=account, status=Draft.Status.REJECTED).count() == 3
    assert set(Draft.objects.filter(status=Draft.Status.REJECTED).values_list("pk", flat=True)) == {
        d.pk for d in drafts[:3]
    }


def test_a_cached_card_carries_each_viewers_own_csrf_token(account: Account) -> None:
    _draft(account, 1)
    for name in ("first-editor", "second-editor"):
        user = factories.member_create(account=account, username=name, role=Role.EDITOR)
        client = Client(enforce_csrf_checks=True)
        client.force_login(user)
        page = client.get(f"/a/{account.slug}/drafts/").content.decode()
        assert CSRF_STAND_IN not in page
        card = page.split('<article class="card" id="draft-', 1)[1].split("</article>", 1)[0]
        tokens = re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', card)
        assert len(tokens) == 2  # approve and reject
        # The check Django runs on a POST: each token is this viewer's own cookie secret, masked.
        assert {_unmask_cipher_token(token) for token in tokens} == {client.cookies["csrftoken"].value}


def test_a_changed_draft_never_shows_its_old_card(member_client: Client, account: Account) -> None:
    draft = _draft(account, 1)
    assert "Draft number 1 says" in member_client.get(f"/a/{account.slug}/drafts/").content.decode()

    # A text change, checked again by the gate (new claims, a new time), and a new image.
    text = "Harbour Bikes now employs 12 mechanics in Leith."
    Draft.objects.filter(pk=draft.pk).update(
        text=text,
        gate_text_sha256=text_sha256_of(text),
        gate_claims=[{"text": text, "supported": True, "evidence": [{"sentence": 2, "text": text}], "reason": ""}],
        gated_at=timezone.now(),
        image_url="https://news.example/new.jpg",
    )
    page = member_client.get(f"/a/{account.slug}/drafts/").content.decode()

    assert "Draft number 1 says" not in page
    assert "employs 12 mechanics" in page and "https://news.example/new.jpg" in page


def test_a_viewer_gets_the_read_only_card_even_after_an_editor_saw_it(member_client: Client, account: Account) -> None:
    _draft(account, 1)
    assert 'aria-label="Approve: ' in member_client.get(f"/a/{account.slug}/drafts/").content.decode()
    viewer = Client()
    viewer.force_login(factories.member_create(account=account, username="viewer-only", role=Role.VIEWER))

    page = viewer.get(f"/a/{account.slug}/drafts/").content.decode()

    assert "Draft number 1 says" in page
    assert 'aria-label="Approve: ' not in page and "csrfmiddlewaretoken" not in page.split("<main>", 1)[1]
