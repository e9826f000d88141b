"""The customer's pages: drafts awaiting approval (one tap each) and what landed.

Views parse input, call one service and respond; every object is loaded through the
account that ``member_required`` resolved, never by id alone.
"""

from __future__ import annotations

import zoneinfo
from datetime import datetime

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from posting import selectors, services
from posting.access import member_required
from posting.composer.selectors import skipped_stories_recent
from posting.errors import AccountSettingsInvalid, DraftInvalid, DraftStateError
from posting.models import Account, Draft, DraftRevision, Membership, Platform
from publish import selectors as publish_selectors
from publish import services as publish_services
from publish import slots
from publish.errors import NoConnectedChannel, NoFreeSlot, PublishNotEnqueued, QueueChangeRefused
from publish.limits import MAX_CHARS
from publish.models import PostingSlot, Publication

DECIDING_ROLES = {Membership.Role.OWNER, Membership.Role.EDITOR}
# How many free posting times the "Move" list offers per post.
MOVE_CHOICES = 12
TIME_ZONES = sorted(zoneinfo.available_timezones())


@login_required
def home(request: HttpRequest) -> HttpResponse:
    accounts = list(selectors.accounts_for_member(user=request.user))
    if len(accounts) == 1:
        return redirect("drafts", slug=accounts[0].slug)
    return render(request, "posting/home.html", {"accounts": accounts})


@member_required
def drafts(request: HttpRequest, account: Account) -> HttpResponse:
    context = {
        "account": account,
        "awaiting": selectors.drafts_awaiting_approval(account=account),
        "held_back": selectors.drafts_held_back(account=account)[:20],
        "can_decide": _can_decide(request, account),
        "in_gate": Draft.objects.filter(account=account, status=Draft.Status.DRAFTED).count(),
        "skipped": skipped_stories_recent(account=account),
    }
    return render(request, "posting/drafts.html", context)


@require_GET
@member_required
def draft_detail(request: HttpRequest, account: Account, draft_id: int) -> HttpResponse:
    """One draft: its text, each sentence's check, its changes, and what the customer can do."""
    draft = selectors.draft_for_member(account=account, draft_id=draft_id)
    return _draft_page(request, account, draft)


@require_POST
@member_required
def draft_approve(request: HttpRequest, account: Account, draft_id: int) -> HttpResponse:
    draft = _decidable_draft(request, account, draft_id)
    try:
        # The digest of the text the page showed: approval means "this text", not "whatever it is now".
        services.draft_approve(draft=draft, user=request.user, text_sha256=request.POST.get("text_sha256") or None)
    except (DraftStateError, NoConnectedChannel, NoFreeSlot) as exc:
        messages.error(request, str(exc))
    except PublishNotEnqueued:
        # The approval is committed; only the hand-off to the queue failed (logged), and the
        # publish sweep sends it when the queue is back.
        messages.success(request, "Approved and queued; it will go out when the queue is back.")
    else:
        messages.success(request, _approved_message(account, draft))
    return redirect("drafts", slug=account.slug)


@require_POST
@member_required
def draft_reject(request: HttpRequest, account: Account, draft_id: int) -> HttpResponse:
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
def draft_edit(request: HttpRequest, account: Account, draft_id: int) -> HttpResponse:
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


@require_GET
@member_required
def queue(request: HttpRequest, account: Account) -> HttpResponse:
    """What goes out when, in the account's time zone, and the posting times per platform."""
    account = Account.objects.prefetch_related("posting_slots").get(pk=account.pk)
    zone = slots.account_zone(account)
    now = timezone.now()
    queued = list(publish_selectors.publications_queued(account_id=account.pk))
    # The free slots offered for "Move" are the channel's, computed once per channel, not per post.
    free_by_channel = {}
    for publication in queued:
        if publication.channel_id not in free_by_channel:
            free_by_channel[publication.channel_id] = slots.slots_free(
                account=account, channel=publication.channel, after=now, limit=MOVE_CHOICES
            )
    rows = [{"publication": p, "free": free_by_channel[p.channel_id]} for p in queued]
    rhythms = [
        {"platform": platform, "rhythm": slots.account_rhythm(account=account, platform=platform.value)}
        for platform in Platform
    ]
    context = {
        "account": account,
        "zone": str(zone.key),
        "rows": rows,
        "rhythms": rhythms,
        "weekdays": PostingSlot.Weekday.choices,
        "can_decide": _can_decide(request, account),
        "is_owner": _is_owner(request, account),
    }
    return render(request, "posting/queue.html", context)


@require_POST
@member_required
def queue_move(request: HttpRequest, account: Account, publication_id: int) -> HttpResponse:
    _require_decider(request, account)
    try:
        slot_at = datetime.fromisoformat(request.POST.get("slot_at", ""))
        if slot_at.tzinfo is None:
            raise ValueError("no zone")
    except ValueError:
        messages.error(request, "Pick a time from the list to move the post to.")
        return redirect("queue", slug=account.slug)
    try:
        publication = publish_services.publication_move(
            account_id=account.pk, publication_id=publication_id, slot_at=slot_at
        )
    except Publication.DoesNotExist:
        raise Http404("No such post in your queue") from None
    except QueueChangeRefused as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Moved: it goes out {_local(account, publication.scheduled_for)}.")
    return redirect("queue", slug=account.slug)


@require_POST
@member_required
def queue_post_now(request: HttpRequest, account: Account, publication_id: int) -> HttpResponse:
    _require_decider(request, account)
    try:
        publish_services.publication_post_now(account_id=account.pk, publication_id=publication_id)
    except Publication.DoesNotExist:
        raise Http404("No such post in your queue") from None
    except QueueChangeRefused as exc:
        messages.error(request, str(exc))
    except PublishNotEnqueued:
        messages.success(request, "Posting now: it goes out as soon as our queue is back, within minutes.")
    else:
        messages.success(request, "Posting now. It shows under History once the platform confirms it is live.")
    return redirect("queue", slug=account.slug)


@require_POST
@member_required
def queue_back_to_drafts(request: HttpRequest, account: Account, publication_id: int) -> HttpResponse:
    _require_decider(request, account)
    publication = get_object_or_404(Publication, pk=publication_id, account=account)
    try:
        services.draft_back_to_drafts(draft=publication.draft)
    except DraftStateError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "Back in drafts: it will not go out unless you approve it again.")
    return redirect("queue", slug=account.slug)


@require_POST
@member_required
def queue_times(request: HttpRequest, account: Account) -> HttpResponse:
    """The owner sets a platform's posting days and times; queued posts keep theirs."""
    if not _is_owner(request, account):
        raise PermissionDenied("Only the owner changes posting times.")
    try:
        platform = Platform(request.POST.get("platform", ""))
    except ValueError:
        messages.error(request, "Pick a platform to set posting times for.")
        return redirect("queue", slug=account.slug)
    try:
        rhythm = slots.rhythm_parse(weekdays=request.POST.getlist("weekdays"), times=request.POST.get("times", ""))
    except slots.SlotsInvalid as exc:
        # Nothing was saved; the times in force stay.
        messages.error(request, f"Posting times not changed: {exc}")
        return redirect("queue", slug=account.slug)
    slots.account_rhythm_set(account=account, platform=platform.value, rhythm=rhythm)
    messages.success(request, f"{platform.label} posting times saved.")
    return redirect("queue", slug=account.slug)


@member_required
def account_settings(request: HttpRequest, account: Account) -> HttpResponse:
    """The owner's settings: time zone, pause/resume posting, article images."""
    if not _is_owner(request, account):
        raise PermissionDenied("Only the owner changes settings.")
    error = ""
    if request.method == "POST":
        try:
            services.account_settings_update(
                account=account,
                timezone_name=request.POST.get("timezone", ""),
                paused=request.POST.get("paused") == "on",
                use_article_images=request.POST.get("use_article_images") == "on",
            )
        except AccountSettingsInvalid as exc:
            error = str(exc)
        else:
            messages.success(request, "Settings saved.")
            return redirect("settings", slug=account.slug)
    context = {"account": account, "zones": TIME_ZONES, "error": error}
    return render(request, "posting/settings.html", context, status=400 if error else 200)


def _approved_message(account: Account, draft: Draft) -> str:
    publication = Publication.objects.filter(draft=draft).order_by("-pk").first()
    if publication is None or publication.slot_at is None:
        return "Approved. We will show it under History once the platform confirms it is live."
    return f"Approved: it goes out {_local(account, publication.slot_at)}. Change that on the Queue page."


def _local(account: Account, at: datetime) -> str:
    zone = slots.account_zone(account)
    local = at.astimezone(zone)
    return f"{local:%a} {local.day} {local:%b, %H:%M} ({zone.key})"


def _is_owner(request: HttpRequest, account: Account) -> bool:
    return selectors.membership_role(user=request.user, account=account) == Membership.Role.OWNER


def _require_decider(request: HttpRequest, account: Account) -> None:
    if not _can_decide(request, account):
        raise PermissionDenied("Viewers cannot change the queue.")


def _draft_page(
    request: HttpRequest, account: Account, draft: Draft, *, text: str | None = None, error: str = "", status: int = 200
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


def _can_decide(request: HttpRequest, account: Account) -> bool:
    return selectors.membership_role(user=request.user, account=account) in DECIDING_ROLES


def _decidable_draft(request: HttpRequest, account: Account, draft_id: int) -> Draft:
    draft = get_object_or_404(Draft, pk=draft_id, account=account)
    if not _can_decide(request, account):
        raise PermissionDenied("Viewers cannot approve, reject or edit drafts.")
    return draft
