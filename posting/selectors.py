"""Reads for the posting app (an account's drafts, their sentences and history, the funnel)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import QuerySet
from django.http import Http404

from accounts.models import Account
from posting.models import Draft, DraftRevision, VoiceProfile
from publish.models import Publication
from research.selectors import articles_usable_for_account


def drafts_awaiting_approval(*, account: Account) -> QuerySet[Draft]:
    return (
        Draft.objects.filter(account=account)
        .awaiting_approval()
        .select_related("article", "composition")
        .order_by("-created_at")
    )


def drafts_held_back(*, account: Account) -> QuerySet[Draft]:
    """Drafts the factual gate held back that the customer has not discarded yet."""
    return Draft.objects.filter(account=account).held_back().select_related("article").order_by("-created_at")


def draft_for_member(*, account: Account, draft_id: int) -> Draft:
    """One draft of the account; 404 for any other account's draft, as for an unknown id."""
    try:
        return Draft.objects.select_related("article", "account").get(pk=draft_id, account=account)
    except Draft.DoesNotExist:
        raise Http404("No such draft") from None


# What the customer reads for each kind of sentence the gate did not check.
NOT_A_CLAIM = {
    "hashtags": "Hashtags",
    "call_to_action": "A call to action",
    "greeting": "A greeting",
    "question": "A question to your readers",
    "sign_off": "Your sign-off",
    "own_name": "Your business's name",
    "link": "A link",
    "emoji": "Emoji",
    "mention": "A mention",
}


@dataclass(frozen=True)
class DraftSentence:
    """One sentence of a draft as the gate saw it, in words for the customer."""

    text: str
    kind: str  # "claim", or the kind of non-claim: "hashtags", "call_to_action", ...
    checked: bool
    supported: bool
    label: str  # "Supported", "Not supported" or "Not checked"
    why: str  # the gate's plain reason; for a sentence not checked, what kind it is
    nearest: str  # the article sentence the gate compared it with, if any

    @property
    def state(self) -> str:
        """For styling: passed, held or unchecked."""
        if not self.checked:
            return "unchecked"
        return "passed" if self.supported else "held"


def draft_sentences(*, draft: Draft) -> list[DraftSentence]:
    """Every sentence the gate recorded for the draft, in order, each with its class.

    Entries written before the gate classified sentences have no "class": they were claims.
    """
    sentences: list[DraftSentence] = []
    entries = draft.gate_claims if isinstance(draft.gate_claims, list) else []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        kind = str(entry.get("class") or "claim")
        checked = kind == "claim"
        supported = bool(entry.get("supported"))
        reason = str(entry.get("reason") or "").strip()
        raw_evidence = entry.get("evidence")
        evidence = raw_evidence if isinstance(raw_evidence, list) else []
        nearest = next((str(e["text"]) for e in evidence if isinstance(e, dict) and e.get("text")), "")
        if checked:
            label = "Supported" if supported else "Not supported"
            why = "" if supported else reason or "The article does not support this sentence."
        else:
            label = "Not checked"
            kind_words = NOT_A_CLAIM.get(kind, kind.replace("_", " ").capitalize())
            why = reason or f"{kind_words}: not a claim about the article."
        sentences.append(
            DraftSentence(
                text=str(entry.get("text", "")),
                kind=kind,
                checked=checked,
                supported=supported,
                label=label,
                why=why,
                nearest=nearest,
            )
        )
    return sentences


def draft_state_label(*, draft: Draft) -> str:
    """Where the draft stands, in the customer's words: the gate holds back, only people reject."""
    if draft.status == Draft.Status.DRAFTED:
        return "Being fact-checked"
    if draft.status == Draft.Status.APPROVED:
        return "Approved"
    if draft.status == Draft.Status.REJECTED:
        return "Rejected by you"
    if draft.gate_verdict == Draft.Verdict.PASSED:
        return "Fact-checked"
    return "Held back"


def draft_revisions(*, draft: Draft) -> QuerySet[DraftRevision]:
    """Every write of the draft's text, oldest first, with who made it."""
    return DraftRevision.objects.filter(draft=draft).select_related("editor").order_by("created_at", "pk")


def account_funnel(*, account: Account, start: datetime | None = None, end: datetime | None = None) -> dict[str, int]:
    """Articles → drafts → gated → passed → approved → published → landed for one account.

    The one funnel: the operator's page, the daily metrics and ``manage.py pipeline`` all
    read it. Each stage counts in [start, end) by the time that stage happened (a bound
    left out is open), so a day's row says what the pipeline did that day. Articles are
    usable ones from the account's subscribed sources; published means the platform
    accepted the write and gave us an id; landed is ``Publication.objects.landed()``.
    """

    def between(field: str) -> dict[str, datetime]:
        bounds: dict[str, datetime] = {}
        if start is not None:
            bounds[f"{field}__gte"] = start
        if end is not None:
            bounds[f"{field}__lt"] = end
        return bounds

    drafts = Draft.objects.filter(account=account)
    gated = drafts.filter(gated_at__isnull=False, **between("gated_at"))
    approved = drafts.filter(status=Draft.Status.APPROVED, decided_at__isnull=False, **between("decided_at"))
    publications = Publication.objects.filter(account=account)
    return {
        "articles": articles_usable_for_account(account=account).filter(**between("created_at")).count(),
        "drafts": drafts.filter(**between("created_at")).count(),
        "gated": gated.count(),
        "passed": gated.filter(gate_verdict=Draft.Verdict.PASSED).count(),
        "approved": approved.count(),
        "published": publications.filter(published_at__isnull=False, **between("published_at")).count(),
        "landed": publications.landed(start=start, end=end).count(),
    }


def account_sign_offs(*, account: Account) -> list[str]:
    """The sign-offs learned from the account's past posts, on any platform: the business's own
    standing words, which the gate does not ask the article to support and the composer may
    use on a platform that has no sign-off of its own yet."""
    sign_offs: list[str] = []
    for stats in VoiceProfile.objects.filter(account=account).values_list("stats", flat=True):
        learned = stats.get("sign_offs") if isinstance(stats, dict) else None
        if isinstance(learned, list):
            sign_offs.extend(str(sign_off) for sign_off in learned)
    return sign_offs
