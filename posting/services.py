"""Writes for the decisions on drafts: approve, reject, edit, and the record of every text.

Composing and gating live in ``posting.composer`` and ``posting.gate``; voice in
``posting.voice``. Each decision is a conditional update on the draft's status, so two
taps (or two devices) can never approve one draft twice.

"Fact-checked" means this exact text: the gate stores the SHA-256 of the text it judged
(``gate_text_sha256``), a database constraint keeps any verdict bound to the text it sits
on, and approval requires the stored digest to match the text the database holds. Every
text change goes through ``draft_edit`` (or ``draft_edit_and_gate``), which clears the
verdict and records a DraftRevision: who, when, from where.
"""

from __future__ import annotations

import zoneinfo

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from accounts.models import Account
from posting.errors import AccountSettingsInvalid, DraftInvalid, DraftStateError
from posting.gate.services import draft_gate
from posting.models import Draft, DraftRevision, TextSHA256, text_sha256_of
from posting.review.services import review_decided, review_edited
from publish.disconnect import (
    Disconnected,
    channel_for_disconnect,
    channel_token_revoke,
    channels_mark_disconnected,
    channels_sharing_connection,
)
from publish.limits import platform_limit_broken
from publish.models import Publication
from publish.services import publication_enqueue, publication_schedule, publications_withdraw

# Drafts whose text may still change: once approved or rejected, the text is final.
EDITABLE_STATUSES = (Draft.Status.DRAFTED, Draft.Status.GATED)


@transaction.atomic
def draft_approve(*, draft: Draft, user: User, text_sha256: str | None = None, post_now: bool = False) -> Draft:
    """Approve a passed draft and queue it on the account's channel for its platform, in the
    next free posting slot (or due at once with ``post_now``: the headless pipeline).

    ``text_sha256`` is the digest of the text the customer was shown (the approve form
    carries it); None means the text of ``draft`` as the caller loaded it. Approval lands
    only if the verdict was written for exactly that text and the row still holds it.

    Raises DraftStateError if the draft is no longer awaiting approval or its text is not
    the one that was fact-checked, and publish.errors.NoConnectedChannel if there is
    nowhere to publish it or publish.errors.NoFreeSlot if the queue is full (the approval
    is then rolled back, so the customer can act and approve again), and, after the commit,
    publish.errors.PublishNotEnqueued if the broker is down (the approval stands).
    """
    expected = text_sha256 if text_sha256 is not None else text_sha256_of(draft.text)
    approved = (
        Draft.objects.filter(pk=draft.pk, account_id=draft.account_id)
        .awaiting_approval()
        .filter(gate_text_sha256=expected)
        .filter(
            # Hashed by the database on the row it updates: whatever wrote the text since
            # the gate judged it, this approval cannot land on text that was not checked.
            gate_text_sha256=TextSHA256("text"),
        )
        .update(status=Draft.Status.APPROVED, decided_by=user, decided_at=timezone.now())
    )
    if approved != 1:
        raise DraftStateError(_why_not_approvable(draft=draft, expected=expected))
    draft.refresh_from_db()
    # How this approval was made (time since first shown, what was opened): review discipline.
    review_decided(draft=draft, user=user, decision="approved")
    publication: Publication = publication_schedule(draft=draft, post_now=post_now)
    if publication.scheduled_for <= timezone.now():
        # Due now: hand it to a worker. A post in a later slot waits in the database for the
        # every-minute publish_due job, so no timer (and no restart) decides when it goes out.
        publication_enqueue(publication_id=publication.pk)
    return draft


@transaction.atomic
def draft_back_to_drafts(*, draft: Draft) -> Draft:
    """Take an approved draft out of the queue before it goes out: awaiting approval again.

    The publication moves first (SCHEDULED → WITHDRAWN, a conditional move); if a worker
    claimed it already, nothing changes and DraftStateError says it is too late.
    """
    if not publications_withdraw(account_id=draft.account_id, draft_id=draft.pk):
        raise DraftStateError("Too late to take it back: this post is already going out (or has gone out).")
    returned = Draft.objects.filter(pk=draft.pk, account_id=draft.account_id, status=Draft.Status.APPROVED).update(
        status=Draft.Status.GATED, decided_by=None, decided_at=None
    )
    if returned != 1:
        raise DraftStateError("This draft is no longer approved.")
    draft.refresh_from_db()
    return draft


@transaction.atomic
def draft_reject(*, draft: Draft, user: User, reason: str = "") -> Draft:
    """The customer's own "no": the draft (passed or held back) will never be posted.

    ``reason`` (optional, trimmed to 500 characters) is kept: History shows it and the
    composer reads the account's recent ones as "don't" (``selectors.account_rejection_reasons``).
    """
    rejected = Draft.objects.filter(pk=draft.pk, account_id=draft.account_id, status__in=EDITABLE_STATUSES).update(
        status=Draft.Status.REJECTED,
        decided_by=user,
        decided_at=timezone.now(),
        rejection_reason=" ".join((reason or "").split())[:500],
    )
    if rejected != 1:
        raise DraftStateError("This draft can no longer be rejected.")
    draft.refresh_from_db()
    review_decided(draft=draft, user=user, decision="rejected")
    return draft


@transaction.atomic
def draft_reject_undo(*, draft: Draft) -> Draft:
    """Undo a rejection: the draft goes back to where the gate left it (awaiting approval, or
    held back), its verdict untouched, the reason dropped. A conditional update."""
    undone = (
        Draft.objects.filter(pk=draft.pk, account_id=draft.account_id, status=Draft.Status.REJECTED)
        .exclude(gate_verdict="")
        .update(status=Draft.Status.GATED, decided_by=None, decided_at=None, rejection_reason="")
    )
    if undone != 1:
        raise DraftStateError("This draft is no longer rejected, so there is nothing to undo.")
    draft.refresh_from_db()
    return draft


@transaction.atomic
def draft_edit(*, draft: Draft, text: str, editor: User | None, source: str) -> Draft:
    """Replace a draft's text, record who changed it, and send it back to the factual gate.

    The verdict is cleared in the same write, so the old verdict can never stand for the
    new text; the gate task is enqueued once the edit is committed. ``source`` is a
    DraftRevision.Source (a customer, staff in the admin, a model rewrite); ``editor`` is
    None when the system wrote the text. Text equal to the current text changes nothing.

    Raises DraftInvalid for text the platform would refuse and DraftStateError once the
    draft is approved or rejected.
    """
    # A real cycle: the tasks module imports the services it runs (posting.tasks ->
    # posting.composer.services -> posting.services), so the task is imported when used.
    from posting.tasks import draft_gate_task

    edited, changed = _draft_text_replace(draft=draft, text=text, editor=editor, source=source)
    if changed:
        transaction.on_commit(lambda: draft_gate_task.delay(edited.pk))
    return edited


def draft_edit_and_gate(*, draft: Draft, text: str, editor: User | None, source: str) -> Draft:
    """Like draft_edit, then judge the new text at once and return the draft with its verdict.

    For the customer's page: the result is known when the page comes back, never "being
    checked". Not one transaction on purpose: the edit commits first, and the gate (which
    may wait seconds on a model) holds no transaction open. If the gate itself fails the
    draft stays DRAFTED and the gate sweep judges it later.
    """
    edited, changed = _draft_text_replace(draft=draft, text=text, editor=editor, source=source)
    if not changed and edited.status != Draft.Status.DRAFTED:
        return edited
    return draft_gate(draft_id=edited.pk)


def draft_revision_record(
    *, draft: Draft, editor: User | None = None, source: str, previous_text: str | None = None
) -> DraftRevision:
    """Record the draft's current text as a revision: the composer calls it for the first text.

    ``previous_text`` is the text it replaced (None for a new draft).
    """
    return DraftRevision.objects.create(
        draft=draft,
        text=draft.text,
        previous_text_sha256="" if previous_text is None else text_sha256_of(previous_text),
        editor=editor,
        source=DraftRevision.Source(source),
    )


@transaction.atomic
def _draft_text_replace(*, draft: Draft, text: str, editor: User | None, source: str) -> tuple[Draft, bool]:
    """Write the new text with its revision; (the draft as now stored, whether the text changed)."""
    text = draft_text_validate(platform=draft.platform, text=text)
    source = DraftRevision.Source(source)
    # Locked so the revision records the text this write really replaced, even when two
    # devices save at once.
    current = Draft.objects.select_for_update().filter(pk=draft.pk, account_id=draft.account_id).first()
    if current is None or current.status not in EDITABLE_STATUSES:
        raise DraftStateError("This draft can no longer be edited: it was approved or rejected.")
    if text == current.text:
        return current, False
    Draft.objects.filter(pk=current.pk).update(
        text=text,
        status=Draft.Status.DRAFTED,
        gate_verdict="",
        gate_claims=[],
        gate_reason="",
        gate_text_sha256="",
        gated_at=None,
        edited_at=timezone.now(),
    )
    previous_text = current.text
    current.refresh_from_db()
    draft_revision_record(draft=current, editor=editor, source=source, previous_text=previous_text)
    if source == DraftRevision.Source.CUSTOMER:
        review_edited(draft=current)
    return current, True


def _why_not_approvable(*, draft: Draft, expected: str) -> str:
    current = Draft.objects.filter(pk=draft.pk, account_id=draft.account_id).first()
    if current is None or current.status in (Draft.Status.APPROVED, Draft.Status.REJECTED):
        return "This draft is no longer waiting for approval."
    if current.status == Draft.Status.DRAFTED:
        return "This draft was edited and is being fact-checked again; approve it once it passes."
    if current.gate_verdict != Draft.Verdict.PASSED:
        return "This draft was held back by the fact check, so it cannot be approved. Edit it or discard it."
    if current.gate_text_sha256 != expected:
        return "This draft changed since you opened it. Read the new text before you approve it."
    return "This draft's text is not the text that was fact-checked, so it cannot be approved."


def draft_text_validate(*, platform: str, text: str) -> str:
    text = (text or "").replace("\r\n", "\n").strip()
    if not text:
        raise DraftInvalid("The post cannot be empty.")
    if broken := platform_limit_broken(platform=platform, text=text):
        raise DraftInvalid(broken)
    return text


def account_settings_update(*, account: Account, timezone_name: str, paused: bool, use_article_images: bool) -> Account:
    """The owner's settings: time zone, posting paused or not, use of article images.

    Raises AccountSettingsInvalid (nothing saved) for a zone name that zoneinfo does not know.
    Pausing holds publishing (the due sweep skips paused accounts) and composing; posts
    already queued keep their slots and go out at the next one after resuming.
    """
    timezone_name = (timezone_name or "").strip()
    if timezone_name not in zoneinfo.available_timezones():
        raise AccountSettingsInvalid(f"“{timezone_name[:60]}” is not a time zone we know: pick one from the list.")
    Account.objects.filter(pk=account.pk).update(
        timezone=timezone_name, paused=paused, use_article_images=use_article_images
    )
    account.refresh_from_db()
    return account


def channel_disconnect(*, account: Account, channel_id: int, user: User) -> Disconnected:
    """The owner disconnects a channel, with any channel posting through the same token
    (publish/disconnect.py). Our token is revoked at the platform first, outside any
    transaction (a network call); then one transaction marks the channels disconnected with
    their tokens deleted, withdraws their queued publications and returns those drafts to
    Drafts (awaiting approval, their fact check kept).

    Raises Channel.DoesNotExist for another account's channel and DisconnectRefused when
    nothing changed (already disconnected, or the platform did not answer).
    """
    channel = channel_for_disconnect(account=account, channel_id=channel_id)
    together = channels_sharing_connection(channel=channel)
    revoke = channel_token_revoke(channel=channel)
    with transaction.atomic():
        result = channels_mark_disconnected(channels=together, user=user, revoke=revoke)
        Draft.objects.filter(account=account, pk__in=result.withdrawn_draft_ids, status=Draft.Status.APPROVED).update(
            status=Draft.Status.GATED, decided_by=None, decided_at=None
        )
    return result
