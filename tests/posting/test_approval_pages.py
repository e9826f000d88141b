"""The customer's drafts and history pages: tenancy, CSRF, roles and bad input."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Role
from posting.models import Draft
from tests import factories

pytestmark = pytest.mark.django_db


def _csrf_post(client: Client, url: str, data: dict | None = None):
    """POST the way a browser does: fetch a page for the CSRF cookie, then send the token."""
    client.get("/login/")
    token = client.cookies["csrftoken"].value
    return client.post(url, data or {}, HTTP_X_CSRFTOKEN=token)


def test_it_sends_anonymous_visitors_to_the_login_page(account):
    response = Client().get(f"/a/{account.slug}/drafts/")
    assert response.status_code == 302
    assert response.url.startswith("/login/")


def test_it_lists_passed_drafts_with_their_evidence(member_client, account):
    draft = factories.draft_create(account=account)
    held = factories.draft_create(
        account=account, platform="instagram", text="Best bikes ever!", gate_verdict="no_substance"
    )
    page = member_client.get(f"/a/{account.slug}/drafts/").content.decode()
    assert f'id="draft-{draft.pk}"' in page
    assert "Approve" in page
    assert "Evidence from" in page
    # A draft the gate held back is not offered for approval.
    assert f'id="draft-{held.pk}"' not in page


@pytest.mark.parametrize("path", ["drafts/", "history/"])
def test_a_member_of_another_account_gets_404(member_client, other_account, path):
    assert member_client.get(f"/a/{other_account.slug}/{path}").status_code == 404


def test_a_draft_of_another_account_cannot_be_approved_through_my_slug(member_client, account, other_account):
    foreign = factories.draft_create(account=other_account)
    response = _csrf_post(member_client, f"/a/{account.slug}/drafts/{foreign.pk}/approve/")
    assert response.status_code == 404
    foreign.refresh_from_db()
    assert foreign.status == Draft.Status.GATED


def test_approve_without_a_csrf_token_is_refused(member_client, account):
    draft = factories.draft_create(account=account)
    response = member_client.post(f"/a/{account.slug}/drafts/{draft.pk}/approve/")
    assert response.status_code == 403
    draft.refresh_from_db()
    assert draft.status == Draft.Status.GATED


def test_approve_is_post_only(member_client, account):
    draft = factories.draft_create(account=account)
    assert member_client.get(f"/a/{account.slug}/drafts/{draft.pk}/approve/").status_code == 405


def test_a_viewer_can_read_but_not_approve(account):
    viewer = factories.member_create(account=account, username="viewer", role=Role.VIEWER)
    client = Client(enforce_csrf_checks=True)
    client.force_login(viewer)
    draft = factories.draft_create(account=account)
    assert client.get(f"/a/{account.slug}/drafts/").status_code == 200
    assert _csrf_post(client, f"/a/{account.slug}/drafts/{draft.pk}/approve/").status_code == 403
    draft.refresh_from_db()
    assert draft.status == Draft.Status.GATED


def test_reject_marks_the_draft_rejected(member_client, account):
    draft = factories.draft_create(account=account)
    response = _csrf_post(member_client, f"/a/{account.slug}/drafts/{draft.pk}/reject/")
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.status == Draft.Status.REJECTED


def test_approving_without_a_connected_channel_explains_and_keeps_the_draft(member_client, account):
    draft = factories.draft_create(account=account)
    response = _csrf_post(member_client, f"/a/{account.slug}/drafts/{draft.pk}/approve/")
    assert response.status_code == 302
    page = member_client.get(response.url).content.decode()
    assert "Connect" in page or "connect" in page
    draft.refresh_from_db()
    assert draft.status == Draft.Status.GATED


def test_an_empty_edit_is_refused_with_a_message_and_loses_nothing(member_client, account):
    draft = factories.draft_create(account=account)
    response = _csrf_post(member_client, f"/a/{account.slug}/drafts/{draft.pk}/edit/", {"text": "   "})
    assert response.status_code == 400
    assert "cannot be empty" in response.content.decode()
    draft.refresh_from_db()
    assert draft.text.startswith("Harbour Bikes opened")
    assert draft.status == Draft.Status.GATED


def test_an_instagram_edit_with_31_hashtags_is_refused(member_client, account):
    draft = factories.draft_create(account=account, platform="instagram")
    text = "New shop! " + " ".join(f"#tag{i}" for i in range(31))
    response = _csrf_post(member_client, f"/a/{account.slug}/drafts/{draft.pk}/edit/", {"text": text})
    assert response.status_code == 400
    assert "30 hashtags" in response.content.decode()
    # The customer's text is still in the form, not lost.
    assert "#tag30" in response.content.decode()


def test_an_edit_is_fact_checked_at_once_and_the_result_shown(member_client, account):
    draft = factories.draft_create(account=account)
    text = "The shop employs 12 mechanics and stocks 400 bicycles."
    response = _csrf_post(member_client, f"/a/{account.slug}/drafts/{draft.pk}/edit/", {"text": text})
    assert response.status_code == 302
    draft.refresh_from_db()
    assert (draft.text, draft.status, draft.gate_verdict) == (text, Draft.Status.GATED, Draft.Verdict.PASSED)
    page = member_client.get(response.url).content.decode()
    assert "Saved and fact-checked" in page
    assert "being fact-checked" not in page.lower()


def test_history_is_empty_for_a_new_account(member_client, account):
    page = member_client.get(f"/a/{account.slug}/history/").content.decode()
    assert "0 landed" in page
