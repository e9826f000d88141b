"""Reads for the posting app (an account's drafts, their sentences and history, the funnel)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from django.core.paginator import Paginator
from django.db.models import Model, QuerySet
from django.http import Http404
from django.utils import timezone

from accounts.models import Account, Platform
from posting.models import Draft, DraftRevision, VoiceProfile
from publish import limits, slots
from publish import selectors as publish_selectors
from publish.models import Publication
from publish.outcomes import publication_outcome
from research.selectors import articles_usable_for_account


def drafts_awaiting_approval(*, account: Account) -> QuerySet[Draft]:
    return (
        Draft.objects.filter(account=account)
        .awaiting_approval()
        .select_related("article__source", "composition")
        # The page shows the article's title, date and outlet, never its full text.
        .defer("article__text")
        .order_by("-created_at")
    )


# Cards per page on Drafts, Queue and History: a page a phone scrolls through, and a fixed
# amount of rendering per request however many rows the account has (issue 11: fast).
PAGE_SIZE = 20


@dataclass(frozen=True)
class Pager:
    """Where a page of cards sits: "Newer" goes towards page 1, "Older" away from it."""

    number: int
    pages: int
    count: int
    newer: int | None
    older: int | None

    @property
    def several(self) -> bool:
        return self.pages > 1


def page_of[Row: Model](
    rows: QuerySet[Row], *, number: str | int | None, size: int = PAGE_SIZE
) -> tuple[list[Row], Pager]:
    """One page of an ordered queryset (two queries: the count and the page). A page number
    that is not a number reads page 1, and one past the end the last page: a stale link
    (drafts decided since) still shows cards, never an error."""
    paginator = Paginator(rows, size)
    page = paginator.get_page(number)
    pager = Pager(
        number=page.number,
        pages=paginator.num_pages,
        count=paginator.count,
        newer=page.previous_page_number() if page.has_previous() else None,
        older=page.next_page_number() if page.has_next() else None,
    )
    return list(page.object_list), pager


def drafts_awaiting_page(*, account: Account, number: str | int | None = None) -> tuple[list[Draft], Pager]:
    """One page of the drafts awaiting approval, newest first."""
    return page_of(drafts_awaiting_approval(account=account), number=number)


def account_rejection_reasons(*, account: Account, limit: int = 10) -> list[str]:
    """The customer's latest distinct reasons for rejecting drafts, newest first: the
    composer's "don't" list."""
    reasons: list[str] = []
    rows = (
        Draft.objects.filter(account=account, status=Draft.Status.REJECTED)
        .exclude(rejection_reason="")
        .order_by("-decided_at")
        .values_list("rejection_reason", flat=True)[: limit * 3]
    )
    for reason in rows:
        if reason not in reasons:
            reasons.append(reason)
    return reasons[:limit]


def drafts_rejected_recent(*, account: Account, limit: int = 20) -> QuerySet[Draft]:
    """What the customer rejected lately, with the reason when given (History)."""
    return (
        Draft.objects.filter(account=account, status=Draft.Status.REJECTED, decided_at__isnull=False)
        .select_related("decided_by")
        .order_by("-decided_at")[:limit]
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


@dataclass(frozen=True)
class DraftPreview:
    """What the customer needs to see a draft as its platform will show it, and its source."""

    platform: str
    chars: int
    max_chars: int
    hashtags: int
    max_hashtags: int | None
    # Instagram folds a caption after its first lines behind "more".
    caption_head: str
    caption_rest: str
    link_domain: str
    link_title: str
    image_url: str
    outlet: str
    article_title: str
    article_url: str
    article_published_at: datetime | None

    @property
    def over_limit(self) -> bool:
        return self.chars > self.max_chars or (self.max_hashtags is not None and self.hashtags > self.max_hashtags)


# Instagram shows about this many characters of a caption before "more".
INSTAGRAM_FOLD_CHARS = 125


def draft_preview(*, draft: Draft) -> DraftPreview:
    """The preview of a draft whose article (and its source) were loaded with it: no query."""
    article = draft.article
    source = article.source
    outlet = (source.title or urlsplit(source.url).hostname or "") if source is not None else ""
    head, rest = draft.text, ""
    if draft.platform == Platform.INSTAGRAM and len(draft.text) > INSTAGRAM_FOLD_CHARS:
        cut = draft.text.rfind(" ", 0, INSTAGRAM_FOLD_CHARS)
        cut = cut if cut > 0 else INSTAGRAM_FOLD_CHARS
        head, rest = draft.text[:cut], draft.text[cut:]
    return DraftPreview(
        platform=draft.platform,
        chars=len(draft.text),
        max_chars=limits.MAX_CHARS[draft.platform],
        hashtags=limits.hashtags_count(draft.text),
        max_hashtags=limits.MAX_HASHTAGS.get(draft.platform),
        caption_head=head,
        caption_rest=rest,
        link_domain=urlsplit(draft.link_url).hostname or "" if draft.link_url else "",
        link_title=article.title,
        image_url=draft.image_url,
        outlet=outlet or (urlsplit(article.canonical_url).hostname or ""),
        article_title=article.title,
        article_url=article.canonical_url,
        article_published_at=article.published_at,
    )


def history_rows(*, account: Account, number: str | int | None = None) -> tuple[list[dict[str, object]], str, Pager]:
    """One page of History's rows (a publication, its outcome in plain words with the next
    step, its latest engagement, their times already told in the account's zone), the zone,
    and where the page sits."""
    publications, pager = page_of(
        Publication.objects.filter(account=account)
        .select_related("channel")
        # "engagement": reconcile's snapshots of each post (newest first, by their ordering),
        # read through the relation: posting never imports reconcile.
        .prefetch_related("attempts", "engagement")
        .order_by("-created_at", "-pk"),
        number=number,
    )
    zone = slots.account_zone(account)
    rows: list[dict[str, object]] = []
    for p in publications:
        engagement = next(iter(p.engagement.all()), None)
        rows.append(
            {
                "p": p,
                "outcome": publication_outcome(publication=p, zone=zone),
                "engagement": engagement,
                # Formatted here, once, rather than by the template's timezone and date filters.
                "landed_at": local_day_time(p.landed_at, zone) if p.landed_at else "",
                "engagement_at": local_day_time(engagement.fetched_at, zone) if engagement is not None else "",
                "paused_until": local_day_time(p.channel.paused_until, zone) if p.channel.paused_until else "",
            }
        )
    return rows, zone.key, pager


def local_day_time(at: datetime, zone: ZoneInfo) -> str:
    """A time as History tells it, in the customer's zone: "1 Dec, 14:00"."""
    local = at.astimezone(zone)
    return f"{local.day} {local:%b, %H:%M}"


def local_short(at: datetime, zone: ZoneInfo) -> str:
    """A time as the customer reads it on the queue: "Tue 1 Dec, 10:00" in their zone."""
    local = at.astimezone(zone)
    return f"{local:%a} {local.day} {local:%b, %H:%M}"


def queue_page(*, account: Account, move_choices: int, number: str | int | None = None) -> dict[str, object]:
    """What goes out when (one page of it), in the account's time zone, and the posting times
    per platform: the Queue page's reads (the customer's page and the operator's read-only
    support view)."""
    account = Account.objects.prefetch_related("posting_slots").get(pk=account.pk)
    zone = slots.account_zone(account)
    now = timezone.now()
    queued, pager = page_of(publish_selectors.publications_queued(account_id=account.pk), number=number)
    # The free slots offered for "Move" are the channel's, computed once per channel, not per post.
    free_by_channel: dict[int, list[tuple[str, str]]] = {}
    for publication in queued:
        if publication.channel_id not in free_by_channel:
            # Formatted once per channel: every post on it offers the same times.
            free_by_channel[publication.channel_id] = [
                (at.isoformat(), local_short(at, zone))
                for at in slots.slots_free(account=account, channel=publication.channel, after=now, limit=move_choices)
            ]
    rows = [
        {
            "publication": p,
            "free": free_by_channel[p.channel_id],
            "at": local_short(p.scheduled_for, zone),
            "paused_until": local_day_time(p.channel.paused_until, zone) if p.channel.paused_until else "",
        }
        for p in queued
    ]
    rhythms = [
        {"platform": platform, "rhythm": slots.account_rhythm(account=account, platform=platform.value)}
        for platform in Platform
    ]
    return {"account": account, "zone": str(zone.key), "rows": rows, "rhythms": rhythms, "pager": pager}
