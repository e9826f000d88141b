"""A held-back draft is not a dead end: see why, edit (re-checked at once) or discard it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.test import Client

from accounts.models import Role
from posting.gate.services import draft_gate
from posting.models import Draft, DraftRevision, text_sha256_of
from tests import factories

pytestmark = pytest.mark.django_db

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
TRUE = "The shop employs 12 mechanics and stocks 400 bicycles."
FALSE = "The shop employs 40 mechanics."


def _csrf_post(client: Client, url: str, data: dict | None = None):
    """POST the way a browser does: fetch a page for the CSRF cookie, then send the token."""
    client.get("/login/")
    token = client.cookies["csrftoken"].value
    return client.post(url, data or {}, HTTP_X_CSRFTOKEN=token)


def held_back(account, text: str = f"{TRUE} {FALSE}", **fields) -> Draft:
    """A draft the real gate held back (one true and one invented sentence)."""
    draft = factories.draft_create(account=account, text=text, status="drafted", gate_verdict="", **fields)
    draft = draft_gate(draft_id=draft.pk)
    assert draft.gate_verdict == Draft.Verdict.REJECTED
    return draft


def classified(account) -> Draft:
    """A held-back draft as the gate records sentences: every one in order, each with its class."""
    text = f"Big news! {TRUE} {FALSE} Come see us this weekend! #bikes #leith"
    draft = factories.draft_create(account=account, text=text, status="drafted", gate_verdict="")
    Draft.objects.filter(pk=draft.pk).update(
        status=Draft.Status.GATED,
        gate_verdict=Draft.Verdict.REJECTED,
        gate_text_sha256=text_sha256_of(text),
        gate_reason="1 of 2 claims is not supported by the article.",
        gate_claims=[
            {"text": "Big news!", "class": "greeting", "supported": True, "evidence": [], "reason": ""},
            {
                "text": TRUE,
                "class": "claim",
                "supported": True,
                "evidence": [{"sentence": 2, "text": TRUE}],
                "reason": "Supported by the cited sentences.",
            },
            {
                "text": FALSE,
                "class": "claim",
                "supported": False,
                "evidence": [{"sentence": 2, "text": TRUE}],
                "reason": "The article doesn't say the shop employs 40 mechanics.",
            },
            {
                "text": "Come see us this weekend!",
                "class": "call_to_action",
                "supported": True,
                "evidence": [],
                "reason": "Not checked: a call to action.",
            },
            {"text": "#bikes #leith", "class": "hashtags", "supported": True, "evidence": [], "reason": ""},
        ],
    )
    draft.refresh_from_db()
    return draft


# --- seeing why ------------------------------------------------------------------------------


def test_the_drafts_page_lists_held_back_drafts_as_held_back_with_a_way_in(member_client, account):
    draft = held_back(account)
    page = member_client.get(f"/a/{account.slug}/drafts/").content.decode()
    assert "Held back by the fact check (1)" in page
    assert f'href="/a/{account.slug}/drafts/{draft.pk}/"' in page
    assert "Rejected" not in page  # the gate holds back; only the customer rejects


def test_the_draft_page_shows_each_sentence_with_its_class_reason_and_nearest_article_sentence(member_client, account):
    draft = classified(account)
    response = member_client.get(f"/a/{account.slug}/drafts/{draft.pk}/")
    assert response.status_code == 200
    page = response.content.decode()

    assert "Held back" in page and "Rejected" not in page.replace("Reject</button>", "")
    assert "1 of 2 claims is not supported by the article." in page
    # The failed claim: its words, the plain reason, and the article sentence it was compared with.
    assert "The article doesn&#x27;t say the shop employs 40 mechanics." in page
    assert "Closest sentence in the article:</span> " + TRUE in page
    # Sentences that are not claims: marked as not checked, and why.
    assert page.count("Not checked") >= 3
    assert "Not checked: a call to action." in page
    assert "A greeting: not a claim about the article." in page
    assert "Hashtags: not a claim about the article." in page
    # In the draft's order.
    assert page.index("Big news!") < page.index(FALSE) < page.index("#bikes #leith")


def test_entries_without_a_class_are_shown_as_checked_claims(member_client, account):
    draft = held_back(account)  # whatever the gate writes today, with or without "class"
    Draft.objects.filter(pk=draft.pk).update(
        gate_claims=[{"text": FALSE, "supported": False, "evidence": [], "reason": "Not in the article."}]
    )
    page = member_client.get(f"/a/{account.slug}/drafts/{draft.pk}/").content.decode()
    assert "Not supported" in page and "Not in the article." in page
    assert "Not checked" not in page


def test_the_real_gates_reason_is_on_the_page(member_client, account):
    draft = held_back(account)
    page = member_client.get(f"/a/{account.slug}/drafts/{draft.pk}/").content.decode()
    failed = [claim for claim in draft.gate_claims if not claim["supported"]]
    assert failed
    assert "Not supported" in page
    for claim in failed:
        assert claim["text"] in page


def test_the_page_works_without_javascript_and_protects_every_form(member_client, account):
    draft = held_back(account)
    page = member_client.get(f"/a/{account.slug}/drafts/{draft.pk}/").content.decode()
    assert "<script" not in page
    assert page.count("<form") == page.count("csrfmiddlewaretoken")
    assert 'name="viewport" content="width=device-width' in page


# --- editing: re-checked at once, the verdict shown ----------------------------------------


def test_an_edit_that_fixes_the_draft_passes_and_can_be_approved_from_its_page(member_client, account):
    draft = held_back(account)
    response = _csrf_post(member_client, f"/a/{account.slug}/drafts/{draft.pk}/edit/", {"text": TRUE})
    assert response.status_code == 302
    assert response.url == f"/a/{account.slug}/drafts/{draft.pk}/"

    page = member_client.get(response.url).content.decode()
    assert "Saved and fact-checked: every claim is supported" in page
    assert "being fact-checked" not in page.lower()
    assert 'id="draft-state">Fact-checked<' in page
    assert f'name="text_sha256" value="{text_sha256_of(TRUE)}"' in page
    draft.refresh_from_db()
    assert (draft.status, draft.gate_verdict, draft.text) == ("gated", "passed", TRUE)


def test_an_edit_that_is_still_wrong_says_so_at_once(member_client, account):
    draft = held_back(account)
    still_wrong = "The shop employs 50 mechanics."
    response = _csrf_post(member_client, f"/a/{account.slug}/drafts/{draft.pk}/edit/", {"text": still_wrong})
    page = member_client.get(response.url).content.decode()
    assert "Saved and fact-checked: still held back" in page
    assert "being fact-checked" not in page.lower()
    assert still_wrong in page
    draft.refresh_from_db()
    assert (draft.status, draft.gate_verdict) == ("gated", "rejected")
    assert draft.gate_text_sha256 == text_sha256_of(still_wrong)


def test_each_edit_is_listed_on_the_drafts_page_with_who_and_when(member_client, account):
    draft = held_back(account)
    _csrf_post(member_client, f"/a/{account.slug}/drafts/{draft.pk}/edit/", {"text": TRUE})
    page = member_client.get(f"/a/{account.slug}/drafts/{draft.pk}/").content.decode()
    assert "Edited by owner" in page
    revision = DraftRevision.objects.get(draft=draft)
    assert (revision.source, revision.editor.username) == ("customer", "owner")
    assert f'datetime="{revision.created_at.isoformat()}"' in page


@pytest.mark.parametrize(
    ("text", "message"),
    [("   ", "cannot be empty"), ("x" * 2201, "2201 characters; the limit here is 2200")],
)
def test_bad_input_is_refused_with_a_clear_message_and_loses_nothing(member_client, account, text, message):
    draft = held_back(account, platform="instagram")
    response = _csrf_post(member_client, f"/a/{account.slug}/drafts/{draft.pk}/edit/", {"text": text})
    assert response.status_code == 400
    page = response.content.decode()
    assert message in page
    assert "Nothing was saved" in page
    # The customer's words are still in the box; the stored draft and its verdict are untouched.
    assert f">{text}</textarea>" in page
    stored = Draft.objects.get(pk=draft.pk)
    assert (stored.text, stored.status, stored.gate_verdict) == (draft.text, "gated", "rejected")
    assert not DraftRevision.objects.filter(draft=draft).exists()


# --- discarding --------------------------------------------------------------------------------


def test_discarding_a_held_back_draft_removes_it_for_good(member_client, account):
    draft = held_back(account)
    response = _csrf_post(member_client, f"/a/{account.slug}/drafts/{draft.pk}/reject/")
    assert response.status_code == 302
    page = member_client.get(response.url).content.decode()
    assert "Discarded. It will not be posted." in page
    assert "Held back by the fact check" not in page
    draft.refresh_from_db()
    assert draft.status == Draft.Status.REJECTED
    # The customer's own decision is the only thing called rejected.
    assert "Rejected by you" in member_client.get(f"/a/{account.slug}/drafts/{draft.pk}/").content.decode()


# --- tenancy, CSRF, roles -----------------------------------------------------------------------


@pytest.mark.parametrize("suffix", ["", "edit/", "reject/"])
def test_another_accounts_draft_is_404_through_my_slug_and_theirs(member_client, account, other_account, suffix):
    foreign = held_back(other_account)
    for slug in (account.slug, other_account.slug):
        url = f"/a/{slug}/drafts/{foreign.pk}/{suffix}"
        response = _csrf_post(member_client, url, {"text": TRUE}) if suffix else member_client.get(url)
        assert response.status_code == 404
    stored = Draft.objects.get(pk=foreign.pk)
    assert (stored.text, stored.status) == (foreign.text, "gated")


@pytest.mark.parametrize("suffix", ["edit/", "reject/"])
def test_edit_and_discard_without_a_csrf_token_are_refused(account, member, suffix):
    client = Client(enforce_csrf_checks=True)
    client.force_login(member)
    draft = held_back(account)
    response = client.post(f"/a/{account.slug}/drafts/{draft.pk}/{suffix}", {"text": TRUE})
    assert response.status_code == 403
    stored = Draft.objects.get(pk=draft.pk)
    assert (stored.text, stored.status, stored.gate_verdict) == (draft.text, "gated", "rejected")


def test_a_viewer_sees_why_but_cannot_edit_or_discard(account):
    viewer = factories.member_create(account=account, username="viewer", role=Role.VIEWER)
    client = Client(enforce_csrf_checks=True)
    client.force_login(viewer)
    draft = held_back(account)
    page = client.get(f"/a/{account.slug}/drafts/{draft.pk}/").content.decode()
    assert "Not supported" in page
    assert 'name="text"' not in page and "Discard" not in page
    assert _csrf_post(client, f"/a/{account.slug}/drafts/{draft.pk}/edit/", {"text": TRUE}).status_code == 403


def test_an_anonymous_visitor_is_sent_to_log_in(account):
    draft = held_back(account)
    response = Client().get(f"/a/{account.slug}/drafts/{draft.pk}/")
    assert response.status_code == 302 and response.url.startswith("/login/")


def test_approving_from_a_page_that_showed_older_text_is_refused(member_client, account):
    draft = factories.draft_create(account=account)
    shown = text_sha256_of(draft.text)
    # Another device edits the draft and the edit passes the gate.
    _csrf_post(member_client, f"/a/{account.slug}/drafts/{draft.pk}/edit/", {"text": TRUE})
    response = _csrf_post(member_client, f"/a/{account.slug}/drafts/{draft.pk}/approve/", {"text_sha256": shown})
    page = member_client.get(response.url).content.decode()
    assert "changed since you opened it" in page
    draft.refresh_from_db()
    assert draft.status == Draft.Status.GATED


# --- on a phone --------------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)")
def test_the_held_back_page_fits_a_390px_phone_without_sideways_scrolling(member_client, account, tmp_path):
    from playwright.sync_api import sync_playwright

    # A long unbroken word and a long URL are what usually push a phone layout sideways.
    draft = classified(account)
    Draft.objects.filter(pk=draft.pk).update(gate_reason="Held: " + "x" * 300 + " https://example.com/" + "a" * 200)
    page_file = tmp_path / "draft.html"
    page_file.write_text(member_client.get(f"/a/{account.slug}/drafts/{draft.pk}/").content.decode())

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
            page.goto(page_file.as_uri())
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
            for control in ("textarea#text", "button:has-text('Save and check')", "button:has-text('Discard')"):
                box = page.locator(control).bounding_box()
                assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        finally:
            browser.close()
