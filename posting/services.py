"""Writes for the customer's decisions on drafts: approve, reject, edit.

Composing and gating live in ``posting.composer`` and ``posting.gate``; voice in
``posting.voice``. Each decision is a conditional update on the draft's status, so two
taps (or two devices) can never approve one draft twice.
"""

from __future__ import annotations

import re

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from posting.errors import DraftInvalid, DraftStateError
from posting.models import Draft, Platform
from publish.models import Publication

# Platform limits a human edit must respect (reference: meta-graph-api.md §3).
MAX_LENGTH = {Platform.FACEBOOK_PAGE: 63_206, Platform.INSTAGRAM: 2_200}
MAX_HASHTAGS = {Platform.INSTAGRAM: 30}
MAX_MENTIONS = {Platform.INSTAGRAM: 20}


@transaction.atomic
def draft_approve(*, draft: Draft, user: AbstractBaseUser) -> Draft:
    """Approve a passed draft and schedule it on the account's channel for its platform.

    Raises DraftStateError if the draft is no longer awaiting approval and
    publish.errors.NoConnectedChannel if there is nowhere to publish it (the approval
    is then rolled back, so the customer can connect and approve again), and, after the
    commit, publish.errors.PublishNotEnqueued if the broker is down (the approval stands).
    """
    from publish.services import publication_enqueue, publication_schedule

    approved = Draft.objects.filter(
        pk=draft.pk,
        account_id=draft.account_id,
        status=Draft.Status.GATED,
        gate_verdict=Draft.Verdict.PASSED,
    ).update(status=Draft.Status.APPROVED, decided_by=user, decided_at=timezone.now())
    if approved != 1:
        raise DraftStateError("This draft is no longer waiting for approval.")
    draft.refresh_from_db()
    publication: Publication = publication_schedule(draft=draft)
    publication_enqueue(publication_id=publication.pk)
    return draft


@transaction.atomic
def draft_reject(*, draft: Draft, user: AbstractBaseUser) -> Draft:
    rejected = Draft.objects.filter(
        pk=draft.pk, account_id=draft.account_id, status__in=[Draft.Status.GATED, Draft.Status.DRAFTED]
    ).update(status=Draft.Status.REJECTED, decided_by=user, decided_at=timezone.now())
    if rejected != 1:
        raise DraftStateError("This draft can no longer be rejected.")
    draft.refresh_from_db()
    return draft


@transaction.atomic
def draft_edit(*, draft: Draft, user: AbstractBaseUser, text: str) -> Draft:
    """Replace a draft's text; the edit goes back through the factual gate before approval."""
    from posting.tasks import draft_gate_task

    text = draft_text_validate(platform=draft.platform, text=text)
    edited = Draft.objects.filter(
        pk=draft.pk, account_id=draft.account_id, status__in=[Draft.Status.GATED, Draft.Status.DRAFTED]
    ).update(
        text=text,
        status=Draft.Status.DRAFTED,
        gate_verdict="",
        gate_claims=[],
        gate_reason="",
        gated_at=None,
        edited_at=timezone.now(),
        decided_by=user,
    )
    if edited != 1:
        raise DraftStateError("This draft can no longer be edited.")
    draft.refresh_from_db()
    transaction.on_commit(lambda: draft_gate_task.delay(draft.pk))
    return draft


def draft_text_validate(*, platform: str, text: str) -> str:
    text = (text or "").replace("\r\n", "\n").strip()
    if not text:
        raise DraftInvalid("The post cannot be empty.")
    limit = MAX_LENGTH.get(Platform(platform), 63_206)
    if len(text) > limit:
        raise DraftInvalid(f"The post is {len(text)} characters; the limit here is {limit}.")
    hashtags = len(re.findall(r"(?<!\w)#\w+", text))
    if platform in MAX_HASHTAGS and hashtags > MAX_HASHTAGS[Platform(platform)]:
        raise DraftInvalid(f"Instagram allows at most 30 hashtags; this post has {hashtags}.")
    mentions = len(re.findall(r"(?<![\w@])@\w+", text))
    if platform in MAX_MENTIONS and mentions > MAX_MENTIONS[Platform(platform)]:
        raise DraftInvalid(f"Instagram allows at most 20 @mentions; this post has {mentions}.")
    return text
