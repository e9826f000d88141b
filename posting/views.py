"""The customer's pages: drafts awaiting approval (one tap each) and what landed.

Views parse input, call one service and respond; every object is loaded through the
account that ``member_required`` resolved, never by id alone.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from accounts.access import AuthenticatedHttpRequest, member_required
from accounts.models import Account, Platform
from accounts.selectors import accounts_for_member, member_may_edit
from posting import selectors, services
from posting.composer.selectors import skipped_stories_recent
from posting.errors import DraftInvalid, DraftStateError
from posting.models import Draft, DraftRevision
from publish.errors import NoConnectedChannel, PublishNotEnqueued
from publish.limits import MAX_CHARS
from publish.models import Publication
from review.services import Opened, approval_pace_note_for, review_opened, reviews_shown


@login_required
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    accounts = list(accounts_for_member(user=request.user))
    if len(accounts) == 1:
        return redirect("drafts", slug=accounts[0].slug)
    return render(request, "posting/home.html", {"accounts": accounts})


@member_required
def drafts(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    awaiting = list(selectors.drafts_awaiting_approval(account=account))
    if _can_decide(request, account):
        reviews_shown(drafts=awaiting)  # review discipline: when each was first put before an approver
    context = {
        "account": account,
        "awaiting": awaiting,
        "held_back": selectors.drafts_held_back(account=account)[:20],
        "can_decide": _can_decide(request, account),
        "in_gate": Draft.objects.filter(account=account, status=Draft.Status.DRAFTED).count(),
        "skipped": skipped_stories_recent(account=account),
    }
    return render(request, "posting/drafts.html", context)


@require_GET
@member_required
def draft_detail(request: AuthenticatedHttpRequest, account: Account, draft_id: int) -> HttpResponse:
    """One draft: its text, each sentence's check, its changes, and what the customer can do."""
    draft = selectors.draft_for_member(account=account, draft_id=draft_id)
    if draft.status == Draft.Status.GATED and _can_decide(request, account):
        # This page shows every sentence with its evidence: opening it is reading the evidence.
        reviews_shown(drafts=[draft])
        review_opened(draft=draft, what=Opened.EVIDENCE)
    return _draft_page(request, account, draft)


@require_POST
@member_required
def draft_approve(request: AuthenticatedHttpRequest, account: Account, draft_id: int) -> HttpResponse:
    draft = _decidable_draft(request, account, draft_id)
    try:
        # The digest of the text the page showed: approval means "this text", not "whatever it is now".
        services.draft_approve(draft=draft, user=request.user, text_sha256=request.POST.get("text_sha256") or None)
    except DraftStateError as exc:
        messages.error(request, str(exc))
    except NoConnectedChannel as exc:
        messages.error(request, str(exc))
    except PublishNotEnqueued:
        # The approval is committed; only the hand-off to the queue failed (logged), and the
        # publish sweep sends it when the queue is back.
        messages.success(request, "Approved and queued; it will go out when the queue is back.")
    else:
        messages.success(request, "Approved. We will show it under History once the platform confirms it is live.")
        note = approval_pace_note_for(draft=draft)
        if note:
            messages.info(request, note)
    return redirect("drafts", slug=account.slug)


@require_POST
@member_required
def draft_reject(request: AuthenticatedHttpRequest, account: Account, draft_id: int) -> HttpResponse:
    draft = _decidable_draft(request, account, draft_id)
    held_back = draft.is_held_back
    try:
        services.draft_reject(draft=draft, user=request.user)
    except DraftStateError as exc:
        messages.error(request, str(exc))
        return redirect("draft", slug=account.slug, draft_id=draft.pk)
    messages.success(request, "Discarded. It will not be posted." if held_back else "Rejected. It will not be posted.")
    return redirect("drafts", slug=account.slug)


@member_required
def draft_edit(request: AuthenticatedHttpRequest, account: Account, draft_id: int) -> HttpResponse:
    """Save the customer's text and fact-check it at once; the page shows the verdict."""
    draft = _decidable_draft(request, account, draft_id)
    if request.method != "POST":
        return redirect("draft", slug=account.slug, draft_id=draft.pk)
    text = request.POST.get("text", "")
    before = draft.text
    try:
        draft = services.draft_edit_and_gate(
            draft=draft, text=text, editor=request.user, source=DraftRevision.Source.CUSTOMER
        )
    except (DraftInvalid, DraftStateError) as exc:
        # Nothing was saved: show the page again with the customer's own words in the box.
        draft.refresh_from_db()
        return _draft_page(request, account, draft, text=text, error=str(exc), status=400)
    messages.success(request, _edit_outcome(draft, changed=draft.text != before))
    return redirect("draft", slug=account.slug, draft_id=draft.pk)


@member_required
def history(request: HttpRequest, account: Account) -> HttpResponse:
    publications = (
        Publication.objects.filter(account=account)
        .select_related("channel", "draft__article")
        .prefetch_related("attempts")
        .order_by("-created_at")[:100]
    )
    # Every landed post of the account, by the one definition, not just the rows shown.
    landed = Publication.objects.filter(account=account).landed().count()
    return render(request, "posting/history.html", {"account": account, "publications": publications, "landed": landed})


def _draft_page(
    request: AuthenticatedHttpRequest,
    account: Account,
    draft: Draft,
    *,
    text: str | None = None,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    can_decide = _can_decide(request, account)
    context = {
        "account": account,
        "draft": draft,
        "state_label": selectors.draft_state_label(draft=draft),
        "sentences": selectors.draft_sentences(draft=draft),
        "revisions": selectors.draft_revisions(draft=draft),
        "can_approve": can_decide and draft.is_awaiting_approval,
        "can_edit": can_decide and draft.status in services.EDITABLE_STATUSES,
        "max_length": MAX_CHARS[Platform(draft.platform)],
        "text": draft.text if text is None else text,
        "error": error,
    }
    return render(request, "posting/draft.html", context, status=status)


def _edit_outcome(draft: Draft, *, changed: bool) -> str:
    """What the customer reads after saving: the verdict itself, never "being checked" once decided."""
    if draft.status == Draft.Status.DRAFTED:
        # The gate could not run in this request; the sweep will judge it within minutes.
        return "Saved. The fact check could not finish just now; it will run again within a few minutes."
    prefix = "Saved and fact-checked" if changed else "Nothing changed"
    if draft.gate_verdict == Draft.Verdict.PASSED:
        return f"{prefix}: every claim is supported by the article. You can approve it now."
    return f"{prefix}: still held back. See which sentences the article does not support below."


def _can_decide(request: AuthenticatedHttpRequest, account: Account) -> bool:
    return member_may_edit(user=request.user, account=account)


def _decidable_draft(request: AuthenticatedHttpRequest, account: Account, draft_id: int) -> Draft:
    draft = get_object_or_404(Draft, pk=draft_id, account=account)
    if not _can_decide(request, account):
        raise PermissionDenied("Viewers cannot approve, reject or edit drafts.")
    return draft
