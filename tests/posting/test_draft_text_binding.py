""" "Fact-checked" means this exact text: the verdict's digest, revisions, the admin, races."""

from __future__ import annotations

import threading
import time
from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.test import Client

from accounts.models import Account
from posting import services
from posting.errors import DraftStateError
from posting.gate.services import draft_gate
from posting.models import Draft, DraftRevision, text_sha256_of
from tests import factories
from tests.content_version import without_version_bumps

TRUE = "The shop employs 12 mechanics and stocks 400 bicycles."
FALSE = "The shop employs 40 mechanics and stocks 900 bicycles."


def gated(account: Account, text: str = TRUE, **fields) -> Draft:
    draft = factories.draft_create(account=account, text=text, status="drafted", gate_verdict="", **fields)
    return draft_gate(draft_id=draft.pk)


# --- the gate binds its verdict to the text it judged -------------------------------------


@pytest.mark.django_db
def test_the_gate_stores_the_digest_of_the_text_it_judged(account):
    draft = gated(account)
    assert draft.gate_verdict == Draft.Verdict.PASSED
    assert draft.gate_text_sha256 == text_sha256_of(TRUE)


@pytest.mark.django_db
def test_the_database_refuses_new_text_under_an_old_verdict(account):
    draft = gated(account)
    # A write that forgets to send the draft back to the gate, whatever path it takes.
    with pytest.raises(IntegrityError, match="draft_verdict_bound_to_text"), transaction.atomic():
        Draft.objects.filter(pk=draft.pk).update(text=FALSE)
    draft.refresh_from_db()
    assert draft.text == TRUE


@pytest.mark.django_db
def test_the_database_refuses_a_verdict_written_for_other_text(account):
    draft = factories.draft_create(account=account, text=TRUE, status="drafted", gate_verdict="")
    with pytest.raises(IntegrityError, match="draft_verdict_bound_to_text"), transaction.atomic():
        Draft.objects.filter(pk=draft.pk).update(
            status=Draft.Status.GATED, gate_verdict=Draft.Verdict.PASSED, gate_text_sha256=text_sha256_of(FALSE)
        )


@pytest.mark.django_db
def test_the_database_and_python_digests_agree_beyond_ascii(account):
    text = "Café Ñandú opened on 1 März — 12 mechanics 🚲 and “400” bicycles."
    draft = factories.draft_create(account=account, text=text)  # gated, passed, with text_sha256_of(text)
    assert Draft.objects.filter(pk=draft.pk, gate_text_sha256=text_sha256_of(text)).exists()


# --- approval ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_approval_is_refused_when_the_page_showed_other_text(account, member):
    draft = gated(account)
    stale = text_sha256_of("What the customer saw before another device edited it.")
    with pytest.raises(DraftStateError, match="changed since you opened it"):
        services.draft_approve(draft=draft, user=member, text_sha256=stale)
    draft.refresh_from_db()
    assert draft.status == Draft.Status.GATED


@pytest.mark.django_db
def test_approval_uses_the_text_the_caller_loaded_when_no_digest_is_given(account, member):
    draft = gated(account)
    loaded_earlier = Draft.objects.get(pk=draft.pk)
    # Meanwhile the text is edited and passes the gate again.
    services.draft_edit_and_gate(
        draft=draft, text="The shop stocks 400 bicycles.", editor=member, source=DraftRevision.Source.CUSTOMER
    )
    assert Draft.objects.get(pk=draft.pk).gate_verdict == Draft.Verdict.PASSED
    with pytest.raises(DraftStateError, match="changed since you opened it"):
        services.draft_approve(draft=loaded_earlier, user=member)
    assert Draft.objects.get(pk=draft.pk).status == Draft.Status.GATED


@pytest.mark.django_db
def test_a_draft_sent_back_to_the_gate_cannot_be_approved(account, member):
    draft = gated(account)
    services.draft_edit(draft=draft, text=FALSE, editor=member, source=DraftRevision.Source.CUSTOMER)
    with pytest.raises(DraftStateError, match="being fact-checked again"):
        services.draft_approve(draft=draft, user=member, text_sha256=text_sha256_of(TRUE))


# --- every text change sends the draft back to the gate and is recorded ---------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("source", "by_member"),
    [(DraftRevision.Source.CUSTOMER, True), (DraftRevision.Source.STAFF, True), (DraftRevision.Source.LLM, False)],
)
def test_each_kind_of_edit_clears_the_verdict_and_records_a_revision(
    account, member, source, by_member, django_capture_on_commit_callbacks
):
    draft = gated(account)
    editor = member if by_member else None
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        edited = services.draft_edit(draft=draft, text=FALSE, editor=editor, source=source)

    assert (edited.status, edited.gate_verdict, edited.gate_text_sha256, edited.gate_claims) == ("drafted", "", "", [])
    assert edited.edited_at is not None
    revision = DraftRevision.objects.get(draft=draft)
    assert (revision.text, revision.source, revision.editor) == (FALSE, source, editor)
    assert revision.previous_text_sha256 == text_sha256_of(TRUE)
    assert revision.created_at is not None
    assert len(without_version_bumps(callbacks)) == 1  # the gate task, once the edit is committed


@pytest.mark.django_db
def test_saving_the_same_text_changes_nothing_and_records_nothing(account, member):
    draft = gated(account)
    same = services.draft_edit(draft=draft, text=f"  {TRUE}\r\n", editor=member, source="customer")
    assert (same.status, same.gate_verdict) == ("gated", "passed")
    assert not DraftRevision.objects.filter(draft=draft).exists()


@pytest.mark.django_db
def test_edit_and_gate_returns_the_new_verdict_bound_to_the_new_text(account, member):
    draft = gated(account)
    edited = services.draft_edit_and_gate(draft=draft, text=FALSE, editor=member, source="customer")
    assert edited.status == Draft.Status.GATED
    assert edited.gate_verdict == Draft.Verdict.REJECTED
    assert edited.gate_text_sha256 == text_sha256_of(FALSE)


@pytest.mark.django_db
@pytest.mark.parametrize("status", [Draft.Status.APPROVED, Draft.Status.REJECTED])
def test_a_decided_draft_cannot_be_edited(account, member, status):
    draft = factories.draft_create(account=account, status=status)
    with pytest.raises(DraftStateError, match="can no longer be edited"):
        services.draft_edit(draft=draft, text=FALSE, editor=member, source="customer")
    draft.refresh_from_db()
    assert draft.text == "Harbour Bikes opened a second shop in Leith on Monday."


@pytest.mark.django_db
def test_the_composer_records_the_first_revision(account):
    from posting.composer.extractive import ComposedPost
    from posting.composer.services import draft_create

    article = factories.article_create()
    composed = ComposedPost(text=TRUE, composer="extractive", sources=[{"sentence": 2, "text": TRUE}])
    draft = draft_create(account=account, article=article, platform="facebook_page", composed=composed)

    revision = DraftRevision.objects.get(draft=draft)
    assert (revision.text, revision.source, revision.editor, revision.previous_text_sha256) == (
        TRUE,
        "composer",
        None,
        "",
    )


# --- the race: a verdict for old text never lands on new text ---------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_verdict_judged_on_old_text_never_lands_on_the_edited_text(account, member):
    """The gate reads text A; an edit to B commits while the gate is judging; A's verdict is dropped.

    Real PostgreSQL, two connections: the edit holds the row lock, so the gate's conditional
    update waits on it and re-checks its condition against the committed text B.
    """
    draft = factories.draft_create(account=account, text=TRUE, status="drafted", gate_verdict="")
    outcome: dict[str, object] = {}

    def gate_in_another_connection() -> None:
        try:
            outcome["draft"] = draft_gate(draft_id=draft.pk)
        except Exception as error:  # surfaced by the assertion below
            outcome["error"] = error
        finally:
            connection.close()

    with transaction.atomic():
        # given an edit in flight (row locked, text B not yet committed)
        Draft.objects.select_for_update().get(pk=draft.pk)
        Draft.objects.filter(pk=draft.pk).update(text=FALSE, edited_at=draft.created_at)
        # when the gate judges the committed text A and tries to store its verdict
        gate = threading.Thread(target=gate_in_another_connection)
        gate.start()
        _wait_for_a_lock_waiter()
    gate.join(timeout=30)

    # then nothing landed: the draft waits in the gate with the new text and no verdict
    assert "error" not in outcome, outcome.get("error")
    stored = Draft.objects.get(pk=draft.pk)
    assert (stored.text, stored.status, stored.gate_verdict, stored.gate_text_sha256) == (FALSE, "drafted", "", "")
    # and the next gate run judges the text that is really there
    assert draft_gate(draft_id=draft.pk).gate_verdict == Draft.Verdict.REJECTED


def _wait_for_a_lock_waiter() -> None:
    # pg_stat_activity is a snapshot taken once per transaction (this runs inside the edit's
    # transaction), so clear it before every look or a waiter that arrives later is never seen.
    with connection.cursor() as cursor:
        for _ in range(600):
            cursor.execute("SELECT pg_stat_clear_snapshot()")
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.05)
    pytest.fail("the gate never reached its conditional update")


# --- the admin: staff read everything, edit text only through the service ---------------------


@pytest.fixture
def staff_client(db) -> Client:
    staff = User.objects.create_superuser(username="support", password="correct horse battery staple")
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff)
    return client


class _FormFields(HTMLParser):
    """The named fields of the page's change form, as a browser would submit them."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        name = named.get("name")
        if tag == "input" and name and named.get("type") not in ("submit", "checkbox"):
            self.fields[name] = named.get("value") or ""
        elif tag == "textarea" and name:
            self._textarea = name
            self.fields[name] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "textarea":
            self._textarea = None

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.fields[self._textarea] += data


def _admin_change_form(client: Client, draft: Draft) -> dict[str, str]:
    page = client.get(f"/admin/posting/draft/{draft.pk}/change/")
    assert page.status_code == 200
    parser = _FormFields()
    parser.feed(page.content.decode())
    return parser.fields


@pytest.mark.django_db
def test_the_admin_shows_the_verdict_read_only_and_only_the_text_as_a_field(staff_client, account):
    draft = gated(account)
    fields = _admin_change_form(staff_client, draft)
    assert fields["text"].strip() == TRUE
    for gated_field in ("status", "gate_verdict", "gate_claims", "gate_reason", "gate_text_sha256", "decided_by"):
        assert gated_field not in fields
    page = staff_client.get(f"/admin/posting/draft/{draft.pk}/change/").content.decode()
    assert text_sha256_of(TRUE) in page  # shown, not editable


@pytest.mark.django_db
def test_a_staff_edit_in_the_admin_goes_back_to_the_gate_and_is_recorded(
    staff_client, account, django_capture_on_commit_callbacks
):
    draft = gated(account)
    fields = _admin_change_form(staff_client, draft)
    # A hand-crafted POST that also tries to set the verdict and approve: ignored.
    fields.update(text=FALSE, status="approved", gate_verdict="passed", gate_text_sha256=text_sha256_of(FALSE))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = staff_client.post(f"/admin/posting/draft/{draft.pk}/change/", fields)
    assert response.status_code == 302, response.content.decode()[:2000]

    draft.refresh_from_db()
    assert (draft.text, draft.status, draft.gate_verdict, draft.gate_text_sha256) == (FALSE, "drafted", "", "")
    assert len(without_version_bumps(callbacks)) == 1  # the gate task
    revision = DraftRevision.objects.get(draft=draft)
    assert (revision.source, revision.editor.username) == ("staff", "support")
    assert revision.previous_text_sha256 == text_sha256_of(TRUE)


@pytest.mark.django_db
def test_an_invalid_admin_edit_is_refused_with_the_reason_and_changes_nothing(staff_client, account):
    draft = gated(account, platform="instagram")
    fields = _admin_change_form(staff_client, draft)
    fields["text"] = "New! " + " ".join(f"#tag{i}" for i in range(31))
    response = staff_client.post(f"/admin/posting/draft/{draft.pk}/change/", fields)
    assert response.status_code == 200
    assert "at most 30 hashtags" in response.content.decode()
    draft.refresh_from_db()
    assert (draft.text, draft.gate_verdict) == (TRUE, "passed")
    assert not DraftRevision.objects.filter(draft=draft).exists()


@pytest.mark.django_db
def test_an_approved_drafts_text_is_read_only_in_the_admin(staff_client, account):
    draft = factories.draft_create(account=account, status="approved")
    fields = _admin_change_form(staff_client, draft)
    assert "text" not in fields
    fields["text"] = FALSE
    staff_client.post(f"/admin/posting/draft/{draft.pk}/change/", fields)
    draft.refresh_from_db()
    assert draft.text != FALSE


@pytest.mark.django_db
def test_the_admin_cannot_add_a_draft_or_change_a_revision(staff_client, account, member):
    draft = gated(account)
    services.draft_edit(draft=draft, text=FALSE, editor=member, source="customer")
    revision = DraftRevision.objects.get(draft=draft)
    assert staff_client.get("/admin/posting/draft/add/").status_code == 403
    assert staff_client.get("/admin/posting/draftrevision/add/").status_code == 403
    page = staff_client.get(f"/admin/posting/draftrevision/{revision.pk}/change/")
    assert page.status_code == 200  # viewable
    assert 'name="text"' not in page.content.decode()
    changes = staff_client.get(f"/admin/posting/draft/{draft.pk}/change/").content.decode()
    assert "Customer" in changes and "owner" in changes  # the revision inline: source and who
