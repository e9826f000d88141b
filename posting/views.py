"""The customer's pages: drafts awaiting approval (one tap each) and what landed.

Views parse input, call one service and respond; every object is loaded through the
account that ``member_required`` resolved, never by id alone.
"""

from __future__ import annotations

import zoneinfo
from datetime import datetime
from typing import Any, cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.html import format_html_join
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.access import AuthenticatedHttpRequest, member_may_change_settings, member_may_edit, member_required
from accounts.models import Account, Platform
from accounts.selectors import accounts_for_member
from notifications import selectors as notification_selectors
from notifications import services as notification_services
from notifications.errors import NotificationSettingsInvalid
from posting import cards, page_cache, selectors, services
from posting.composer.selectors import article_drafted, skipped_article, skipped_stories_recent
from posting.composer.services import skipped_article_draft
from posting.errors import AccountSettingsInvalid, DraftInvalid, DraftStateError
from posting.models import Draft, DraftRevision
from posting.review.services import Opened, approval_pace_note_for, review_opened, reviews_shown
from posting.templatetags.drafts_ui import first_words as _first_words
from publish import services as publish_services
from publish import slots
from publish.disconnect import DisconnectRefused, channel_queued_count, channels_sharing_connection
from publish.errors import NoConnectedChannel, NoFreeSlot, PublishNotEnqueued, QueueChangeRefused
from publish.limits import MAX_CHARS
from publish.models import Channel, PostingSlot, Publication

# How many free posting times the "Move" list offers per post.
MOVE_CHOICES = 12
# The last decision, offered for undo on the next drafts page (or in place, with JavaScript).
UNDO_SESSION_KEY = "landed_undo"
UNDO_APPROVE = "approve"
UNDO_REJECT = "reject"
TIME_ZONES = sorted(zoneinfo.available_timezones())


@login_required
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    accounts = list(accounts_for_member(user=request.user))
    if len(accounts) == 1:
        return redirect("drafts", slug=accounts[0].slug)
    return render(request, "posting/home.html", {"accounts": accounts})


@require_GET
@member_required
def drafts(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    return page_cache.cached_page(
        request,
        account=account,
        page="drafts",
        render=lambda: _drafts_page(request, account),
        undo_session_key=UNDO_SESSION_KEY,
    )


def _drafts_page(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    awaiting, pager = selectors.drafts_awaiting_page(account=account, number=request.GET.get("page"))
    can_decide = _can_decide(request, account)
    if can_decide:
        reviews_shown(drafts=awaiting)  # review discipline: when each was first put before an approver
    context = {
        "account": account,
        "undo": request.session.pop(UNDO_SESSION_KEY, None),
        "cards": cards.draft_cards_html(request, account=account, drafts=awaiting, can_decide=can_decide),
        "pager": pager,
        "held_back": selectors.drafts_held_back(account=account)[:20],
        "can_decide": can_decide,
        "in_gate": Draft.objects.filter(account=account, status=Draft.Status.DRAFTED).count(),
        "skipped": skipped_stories_recent(account=account),
    }
    return render(request, "posting/drafts.html", context)


@require_POST
@member_required
def skipped_draft(request: AuthenticatedHttpRequest, account: Account, article_id: int) -> HttpResponse:
    """Draft it anyway: draft an article relevance skipped, judged by the gate at once."""
    _require_decider(request, account)
    article = skipped_article(account=account, article_id=article_id)
    if article is None:
        if article_drafted(account=account, article_id=article_id):
            return _already_drafted(request, account)
        raise Http404("No skipped article with that id.")
    done = skipped_article_draft(account=account, article=article, user=request.user)
    drafts = done.drafts
    if not drafts and article_drafted(account=account, article_id=article_id):
        return _already_drafted(request, account)
    title = _first_words(article.title, 12)
    refused = "; ".join(f"{platform}: {reason}" for platform, reason in done.refused)
    if not drafts:
        messages.error(request, f"Could not draft \u201c{title}\u201d ({refused or 'nothing to draft'}).")
        return redirect("drafts", slug=account.slug)
    passed = [d for d in drafts if d.gate_verdict == Draft.Verdict.PASSED]
    where = " and ".join(str(d.get_platform_display()) for d in drafts)
    said = f"Drafted \u201c{title}\u201d for {where}."
    if refused:
        said += f" Not for {refused}."
    if len(passed) < len(drafts):
        said += " The fact check held back what it could not confirm: see why under Held back."
    if done.taught:
        said += " We will look for more news like it."
    messages.success(request, said)
    return redirect("drafts", slug=account.slug)


def _already_drafted(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    # A second tap, or another member was quicker: what they asked for is there.
    messages.info(request, "Already drafted: it is in your drafts.")
    return redirect("drafts", slug=account.slug)


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
    except (DraftStateError, NoConnectedChannel, NoFreeSlot) as exc:
        return _decided(request, account, draft, error=str(exc))
    except PublishNotEnqueued:
        # The approval is committed; only the hand-off to the queue failed (logged), and the
        # publish sweep sends it when the queue is back.
        said = "Approved and queued; it will go out when the queue is back."
    else:
        said = _approved_message(account, draft)
        note = approval_pace_note_for(draft=draft)
        if note:
            # Review discipline: a gentle word when this approval came faster than reading speed.
            messages.info(request, note)
    return _decided(request, account, draft, said=said, undo=UNDO_APPROVE)


@require_POST
@member_required
def draft_reject(request: AuthenticatedHttpRequest, account: Account, draft_id: int) -> HttpResponse:
    draft = _decidable_draft(request, account, draft_id)
    held_back = draft.is_held_back
    try:
        services.draft_reject(draft=draft, user=request.user, reason=request.POST.get("reason", ""))
    except DraftStateError as exc:
        if _inplace(request):
            return _decided(request, account, draft, error=str(exc))
        messages.error(request, str(exc))
        return redirect("draft", slug=account.slug, draft_id=draft.pk)
    said = "Discarded. It will not be posted." if held_back else "Rejected. It will not be posted."
    return _decided(request, account, draft, said=said, undo=UNDO_REJECT)


@require_POST
@member_required
def drafts_bulk(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    """Approve or reject the selected drafts, each exactly as the page showed it (id:digest)."""
    _require_decider(request, account)
    decision = request.POST.get("decision")
    if decision not in (UNDO_APPROVE, UNDO_REJECT):
        messages.error(request, "Choose Approve selected or Reject selected.")
        return redirect("drafts", slug=account.slug)
    picked: list[tuple[int, str]] = []
    for value in request.POST.getlist("draft"):
        raw_id, _, digest = value.partition(":")
        if raw_id.isdigit():
            picked.append((int(raw_id), digest))
    if not picked:
        messages.error(request, "Select at least one draft first.")
        return redirect("drafts", slug=account.slug)
    by_id = {d.pk: d for d in Draft.objects.filter(account=account, pk__in=[i for i, _ in picked])}
    done: list[int] = []
    refused: list[str] = []
    for draft_id, digest in picked:
        draft = by_id.get(draft_id)
        if draft is None:
            continue  # Not this account's: ignored, exactly as a 404 would.
        try:
            if decision == UNDO_APPROVE:
                services.draft_approve(draft=draft, user=request.user, text_sha256=digest or None)
            else:
                services.draft_reject(draft=draft, user=request.user, reason=request.POST.get("reason", ""))
        except PublishNotEnqueued:
            done.append(draft_id)
        except (DraftStateError, NoConnectedChannel, NoFreeSlot) as exc:
            refused.append(f"“{_first_words(draft.text)}”: {exc}")
        else:
            done.append(draft_id)
    verb = "Approved" if decision == UNDO_APPROVE else "Rejected"
    if done:
        messages.success(
            request,
            f"{verb} {len(done)} draft{'s' if len(done) != 1 else ''}."
            + (" See when each goes out on the Queue page." if decision == UNDO_APPROVE else ""),
        )
        _undo_remember(request, action=decision, draft_ids=done)
    for line in refused:
        messages.error(request, f"Not {verb.lower()}: {line}")
    return redirect("drafts", slug=account.slug)


@require_POST
@member_required
def drafts_undo(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    """Undo the last approve (back to drafts, if it has not gone out) or reject."""
    _require_decider(request, account)
    action = request.POST.get("action")
    ids = [int(i) for i in request.POST.getlist("draft") if i.isdigit()]
    undone = 0
    refused: list[str] = []
    for draft in Draft.objects.filter(account=account, pk__in=ids):
        try:
            if action == UNDO_APPROVE:
                services.draft_back_to_drafts(draft=draft)
            elif action == UNDO_REJECT:
                services.draft_reject_undo(draft=draft)
            else:
                break
        except DraftStateError as exc:
            refused.append(f"“{_first_words(draft.text)}”: {exc}")
        else:
            undone += 1
    request.session.pop(UNDO_SESSION_KEY, None)
    if _inplace(request) and len(ids) == 1:
        draft = get_object_or_404(Draft, pk=ids[0], account=account)
        if undone and draft.is_awaiting_approval:
            (card,) = cards.draft_cards_html(request, account=account, drafts=[draft], can_decide=True)
            return HttpResponse(card)
        said = "Undone: back in drafts." if undone else ""
        return _decided(request, account, draft, said=said, error="; ".join(refused))
    if undone:
        messages.success(request, f"Undone: {undone} draft{'s' if undone != 1 else ''} back in drafts.")
    for line in refused:
        messages.error(request, f"Could not undo {line}")
    if not undone and not refused:
        messages.error(request, "Nothing to undo.")
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


@require_GET
@member_required
def history(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    return page_cache.cached_page(
        request,
        account=account,
        page="history",
        render=lambda: _history_page(request, account),
        undo_session_key=UNDO_SESSION_KEY,
    )


def _history_page(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    rows, zone, pager = selectors.history_rows(account=account, number=request.GET.get("page"))
    # Every landed post of the account, by the one definition, not just the rows shown.
    landed = Publication.objects.filter(account=account).landed().count()
    context = {
        "account": account,
        "rows": rows,
        "zone": zone,
        "pager": pager,
        "landed": landed,
        "rejected": selectors.drafts_rejected_recent(account=account),
        "can_decide": _can_decide(request, account),
    }
    return render(request, "posting/history.html", context)


@require_GET
@member_required
def queue(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    """What goes out when, in the account's time zone, and the posting times per platform."""
    return page_cache.cached_page(
        request,
        account=account,
        page="queue",
        render=lambda: _queue_page(request, account),
        undo_session_key=UNDO_SESSION_KEY,
    )


def _queue_page(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    page = selectors.queue_page(account=account, move_choices=MOVE_CHOICES, number=request.GET.get("page"))
    # Every post on a channel offers the same free times: their <option>s are built once per
    # channel, not once per post by the template.
    options: dict[int, str] = {}
    for row in cast(list[dict[str, Any]], page["rows"]):
        channel_id = row["publication"].channel_id
        if channel_id not in options:
            options[channel_id] = format_html_join("", '<option value="{}">{}</option>', row["free"])
        row["free_options"] = options[channel_id]
    context = {
        **page,
        "weekdays": PostingSlot.Weekday.choices,
        "can_decide": _can_decide(request, account),
        "is_owner": _may_change_settings(request, account),
    }
    return render(request, "posting/queue.html", context)


@require_POST
@member_required
def queue_move(request: AuthenticatedHttpRequest, account: Account, publication_id: int) -> HttpResponse:
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
def queue_post_now(request: AuthenticatedHttpRequest, account: Account, publication_id: int) -> HttpResponse:
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
def queue_back_to_drafts(request: AuthenticatedHttpRequest, account: Account, publication_id: int) -> HttpResponse:
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
def queue_times(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    """The owner sets a platform's posting days and times; queued posts keep theirs."""
    if not _may_change_settings(request, account):
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
def account_settings(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    """Settings: every member's own emails for this account; the owner's account-wide
    settings (time zone, pause/resume posting, article images) below, for the owner only."""
    is_owner = _may_change_settings(request, account)
    error = ""
    if request.method == "POST":
        if not is_owner:
            raise PermissionDenied("Only the owner changes settings.")
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
    return _settings_page(request, account, error=error, status=400 if error else 200)


@require_POST
@member_required
def notification_settings(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    """A member's own emails for this account (any role: they are nobody else's)."""
    membership = notification_selectors.membership_of(user=request.user, account=account)
    try:
        notification_services.notification_settings_update(
            membership=membership,
            digest=request.POST.get("digest") == "on",
            digest_hour=request.POST.get("digest_hour", ""),
            same_day=request.POST.get("same_day") == "on",
        )
    except NotificationSettingsInvalid as exc:
        return _settings_page(request, account, notifications_error=str(exc), status=400)
    messages.success(request, "Your emails for this business are saved.")
    return redirect("settings", slug=account.slug)


def _settings_page(
    request: AuthenticatedHttpRequest, account: Account, *, error: str = "", notifications_error: str = "", status: int
) -> HttpResponse:
    membership = notification_selectors.membership_of(user=request.user, account=account)
    context = {
        "account": account,
        "zones": TIME_ZONES,
        "error": error,
        "is_owner": _may_change_settings(request, account),
        "notifications": notification_selectors.member_preferences(membership=membership),
        "notifications_error": notifications_error,
        "hours": [(hour, f"{hour:02d}:00") for hour in range(24)],
        "email": request.user.email,
    }
    return render(request, "posting/settings.html", context, status=status)


@require_http_methods(["GET", "POST"])
@member_required
def channel_disconnect(request: AuthenticatedHttpRequest, account: Account, channel_id: int) -> HttpResponse:
    """The owner disconnects a channel: a confirm page (GET), then the disconnect (POST)."""
    if not _may_change_settings(request, account):
        raise PermissionDenied("Only the owner disconnects channels.")
    channel = get_object_or_404(Channel, pk=channel_id, account=account)
    if request.method == "POST":
        try:
            result = services.channel_disconnect(account=account, channel_id=channel.pk, user=request.user)
        except DisconnectRefused as exc:
            messages.error(request, str(exc))
            return redirect("channels:page", slug=account.slug)
        names = " and ".join(str(c) for c in result.channels)
        said = f"Disconnected {names}. Posts already made stay on the History page."
        if result.withdrawn_draft_ids:
            count = len(result.withdrawn_draft_ids)
            said += f" {count} queued post{'s' if count != 1 else ''} went back to Drafts."
        said += " " + ("Our access was revoked at Facebook." if result.revoke.revoked else result.revoke.detail)
        messages.success(request, said)
        return redirect("channels:page", slug=account.slug)
    if channel.status == Channel.Status.DISCONNECTED:
        messages.info(request, f"{channel} is already disconnected.")
        return redirect("channels:page", slug=account.slug)
    together = channels_sharing_connection(channel=channel)
    context = {
        "account": account,
        "channel": channel,
        "also": together[1:],
        "queued": channel_queued_count(channels=together),
    }
    return render(request, "posting/channel_disconnect.html", context)


@require_POST
@member_required
def history_retry(request: AuthenticatedHttpRequest, account: Account, publication_id: int) -> HttpResponse:
    _require_decider(request, account)
    get_object_or_404(Publication, pk=publication_id, account=account)
    try:
        publish_services.publication_retry(account_id=account.pk, publication_id=publication_id)
    except QueueChangeRefused as exc:
        messages.error(request, str(exc))
    except PublishNotEnqueued:
        messages.success(request, "Sending it again as soon as our queue is back, within minutes.")
    else:
        messages.success(request, "Sending it again now. This page shows when the platform confirms it is live.")
    return redirect("history", slug=account.slug)


def _inplace(request: AuthenticatedHttpRequest) -> bool:
    """The page's script sent this form and swaps in the fragment we return (no reload)."""
    return request.headers.get("X-Landed-Inplace") == "1"


def _decided(
    request: AuthenticatedHttpRequest,
    account: Account,
    draft: Draft,
    *,
    said: str = "",
    error: str = "",
    undo: str = "",
) -> HttpResponse:
    """The answer to one decision: a card that replaces the draft's (in place) or, without
    JavaScript, a message and the drafts page with the same undo offer."""
    if _inplace(request):
        context = {"account": account, "draft": draft, "said": said, "error": error, "undo": undo}
        return render(request, "posting/_decided.html", context, status=409 if error else 200)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, said)
        if undo:
            _undo_remember(request, action=undo, draft_ids=[draft.pk])
    return redirect("drafts", slug=account.slug)


def _undo_remember(request: AuthenticatedHttpRequest, *, action: str, draft_ids: list[int]) -> None:
    request.session[UNDO_SESSION_KEY] = {"action": action, "ids": draft_ids}


def _approved_message(account: Account, draft: Draft) -> str:
    publication = Publication.objects.filter(draft=draft).order_by("-pk").first()
    if publication is None or publication.slot_at is None:
        return "Approved. We will show it under History once the platform confirms it is live."
    return f"Approved: it goes out {_local(account, publication.slot_at)}. Change that on the Queue page."


def _local(account: Account, at: datetime) -> str:
    zone = slots.account_zone(account)
    local = at.astimezone(zone)
    return f"{local:%a} {local.day} {local:%b, %H:%M} ({zone.key})"


def _may_change_settings(request: AuthenticatedHttpRequest, account: Account) -> bool:
    return member_may_change_settings(request, account)


def _require_decider(request: AuthenticatedHttpRequest, account: Account) -> None:
    if not _can_decide(request, account):
        raise PermissionDenied("Viewers cannot change the queue.")


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
    return member_may_edit(request, account)


def _decidable_draft(request: AuthenticatedHttpRequest, account: Account, draft_id: int) -> Draft:
    draft = get_object_or_404(Draft, pk=draft_id, account=account)
    if not _can_decide(request, account):
        raise PermissionDenied("Viewers cannot approve, reject or edit drafts.")
    return draft
