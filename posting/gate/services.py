"""Writes of the factual gate: a draft's verdict, claims and evidence, stored once.

The gate reads the article's full extracted text (``article.text``), never its headline
alone (docs/ARCHITECTURE.md lesson 5). Gating is safe to run twice: only a draft still in DRAFTED,
with the very text that was judged, takes the verdict; an edit made meanwhile sends the
draft back to DRAFTED with new text, so a stale verdict can never land on it. The verdict
is stored with the SHA-256 of the judged text (``gate_text_sha256``), and a database
constraint refuses any verdict whose digest is not that of the text on the row.
"""

from __future__ import annotations

import logging

from django.utils import timezone

from accounts.models import Account
from posting.gate.core import REJECTED, ClaimResult, GateResult, SentenceJudge, gate_evaluate
from posting.llm import llm_claim_judge
from posting.models import Draft, text_sha256_of
from posting.selectors import account_sign_offs

logger = logging.getLogger(__name__)

# How many drafts one sweep gates; the next tick takes the rest.
PENDING_BATCH = 200


def draft_gate(*, draft_id: int) -> Draft:
    """Judge one draft against its article and store the verdict (status GATED).

    A draft no longer in DRAFTED is returned untouched. Raises Draft.DoesNotExist for an
    unknown id.
    """
    draft = Draft.objects.select_related("article", "account").get(pk=draft_id)
    if draft.status != Draft.Status.DRAFTED:
        return draft

    judged_text = draft.text
    result = _draft_judge(draft)
    # The judge may have spent seconds on an LLM: claim the draft only now, and only if it
    # still holds the text that was judged (no transaction is held open meanwhile). The
    # digest is of the judged text, never re-read: if the text changed, nothing lands.
    Draft.objects.filter(pk=draft.pk, status=Draft.Status.DRAFTED, text=judged_text).update(
        status=Draft.Status.GATED,
        gate_verdict=result.verdict,
        gate_claims=[claim.as_dict() for claim in result.claims],
        gate_reason=result.reason,
        gate_text_sha256=text_sha256_of(judged_text),
        gated_at=timezone.now(),
    )
    draft.refresh_from_db()
    return draft


def drafts_gate_pending() -> dict[str, int]:
    """Gate every draft waiting for the gate (oldest first, one batch per run)."""
    counts = {"gated": 0, "passed": 0, "rejected": 0, "no_substance": 0}
    pending = Draft.objects.filter(status=Draft.Status.DRAFTED).order_by("created_at", "pk")
    for draft_id in pending.values_list("pk", flat=True)[:PENDING_BATCH]:
        try:
            draft = draft_gate(draft_id=draft_id)
        except Draft.DoesNotExist:
            continue  # deleted since the sweep listed it
        if draft.status != Draft.Status.GATED or draft.gate_verdict not in counts:
            continue
        counts["gated"] += 1
        counts[draft.gate_verdict] += 1
    return counts


def _draft_judge(draft: Draft) -> GateResult:
    article = draft.article
    if not article.text.strip():
        return GateResult(
            verdict=REJECTED,
            claims=[],
            reason=(
                "Held back: we could not read the article's full text (no extracted text; extraction "
                f"status: {article.get_extraction_status_display()}), so nothing in this draft could be "
                "checked. We never check a draft against the headline alone."
            ),
        )
    try:
        return gate_evaluate(
            text=draft.text,
            title=article.title,
            body=article.text,
            own_names=_own_names(draft.account),
            sign_offs=account_sign_offs(account=draft.account),
            judge=_judge_for(draft),
        )
    except Exception as error:
        # A draft the gate cannot read is a rejected draft with the reason on it, where the
        # operator and the customer see it, not a task retrying forever.
        logger.exception("factual gate failed on draft %s", draft.pk)
        return GateResult(
            verdict=REJECTED,
            claims=[
                ClaimResult(
                    text=draft.text[:300], supported=False, evidence=[], reason="The fact check could not read it."
                )
            ],
            reason=f"The fact check could not check this draft ({type(error).__name__}); edit it or discard it.",
        )


def _own_names(account: Account) -> list[str]:
    """The account's name and the names and handles it lists: never claims on their own."""
    listed = account.own_names if isinstance(account.own_names, list) else []
    return [account.name, *(str(name) for name in listed)]


def _judge_for(draft: Draft) -> SentenceJudge | None:
    """The LLM judge when a model is configured, else None (the gate's own checks stand alone)."""
    return llm_claim_judge(account=draft.account)
