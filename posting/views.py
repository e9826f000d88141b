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
from django.views.decorators.http import require_POST

from posting import selectors, services
from posting.access import member_required
from posting.composer.selectors import skipped_stories_recent
from posting.errors import DraftInvalid, DraftStateError
from posting.models import Account, Draft, Membership
from publish.errors import NoConnectedChannel
from publish.models import Publication

DECIDING_ROLES = {Membership.Role.OWNER, Membership.Role.EDITOR}


@login_required
def home(request: HttpRequest) -> HttpResponse:
    accounts = list(selectors.accounts_for_member(user=request.user))
    if len(accounts) == 1:
        return redirect("drafts", slug=accounts[0].slug)
    return render(request, "posting/home.html", {"accounts": accounts})


@member_required
def drafts(request: HttpRequest, account: Account) -> HttpResponse:
    awaiting = selectors.drafts_awaiting_approval(account=account)
    held_back = (
        Draft.objects.filter(account=account, status=Draft.Status.GATED)
        .exclude(gate_verdict=Draft.Verdict.PASSED)
        .select_related("article")[:20]
    )
    context = {
        "account": account,
        "awaiting": awaiting,
        "held_back": held_back,
        "can_decide": _can_decide(request, account),
        "in_gate": Draft.objects.filter(account=account, status=Draft.Status.DRAFTED).count(),
        "skipped": skipped_stories_recent(account=account),
    }
    return render(request, "posting/drafts.html", context)


@require_POST
@member_required
def draft_approve(request: HttpRequest, account: Account, draft_id: int) -> HttpResponse:
    draft = _decidable_draft(request, account, draft_id)
    try:
        services.draft_approve(draft=draft, user=request.user)
    except DraftStateError as exc:
        messages.error(request, str(exc))
    except NoConnectedChannel as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "Approved. We will show it under History once the platform confirms it is live.")
    return redirect("drafts", slug=account.slug)


@require_POST
@member_required
def draft_reject(request: HttpRequest, account: Account, draft_id: int) -> HttpResponse:
    draft = _decidable_draft(request, account, draft_id)
    try:
        services.draft_reject(draft=draft, user=request.user)
    except DraftStateError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "Rejected. It will not be posted.")
    return redirect("drafts", slug=account.slug)


@member_required
def draft_edit(request: HttpRequest, account: Account, draft_id: int) -> HttpResponse:
    draft = _decidable_draft(request, account, draft_id)
    error = ""
    if request.method == "POST":
        try:
            services.draft_edit(draft=draft, user=request.user, text=request.POST.get("text", ""))
        except (DraftInvalid, DraftStateError) as exc:
            error = str(exc)
        else:
            messages.success(request, "Saved. The edit is being fact-checked against the article again.")
            return redirect("drafts", slug=account.slug)
    status = 400 if error else 200
    text = request.POST.get("text", draft.text) if error else draft.text
    return render(
        request,
        "posting/draft_edit.html",
        {"account": account, "draft": draft, "text": text, "error": error},
        status=status,
    )


@member_required
def history(request: HttpRequest, account: Account) -> HttpResponse:
    publications = (
        Publication.objects.filter(account=account)
        .select_related("channel", "draft__article")
        .prefetch_related("attempts")
        .order_by("-created_at")[:100]
    )
    landed = sum(1 for p in publications if p.status == Publication.Status.LANDED)
    return render(request, "posting/history.html", {"account": account, "publications": publications, "landed": landed})


def _can_decide(request: HttpRequest, account: Account) -> bool:
    return selectors.membership_role(user=request.user, account=account) in DECIDING_ROLES


def _decidable_draft(request: HttpRequest, account: Account, draft_id: int) -> Draft:
    draft = get_object_or_404(Draft, pk=draft_id, account=account)
    if not _can_decide(request, account):
        raise PermissionDenied("Viewers cannot approve, reject or edit drafts.")
    return draft
