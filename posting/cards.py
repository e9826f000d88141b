"""The drafts page's cards, each rendered once per version of its draft and then reused.

A card is the most expensive thing the customer's pages render (the platform preview, the
evidence, three forms), and it changes only when its draft does. Its HTML is cached under a
key made of everything it shows: the draft's text digest, state, verdict and when the gate
last ran (its claims), its links and image, its article and outlet, the account and whether
the viewer may decide. Any change makes a new key, so nothing is ever invalidated by hand and
a stale card cannot be served; old keys age out of the cache.

The cached HTML holds a stand-in where each form's CSRF token goes; it is replaced with the
viewer's own token on every request, so no viewer ever receives another's token.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from django.core.cache import cache
from django.core.exceptions import ObjectDoesNotExist
from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.template import Context, Engine
from django.utils.safestring import SafeString, mark_safe

from accounts.models import Account
from posting import selectors
from posting.models import Draft, text_sha256_of

CARD_TEMPLATE = "posting/_draft_card.html"
# A day: a draft waits at most a few days, and every change to one makes a new key anyway.
CARD_CACHE_SECONDS = 24 * 60 * 60
# Not a token: where the viewer's CSRF token is put back into a cached card.
CSRF_STAND_IN = "landed-csrf-stand-in-7c1f0e"
_template_digest: str | None = None


def _card_template_digest() -> str:
    """The card template's own digest, in every key: a deploy that changes the card never
    serves cards rendered by the old one (should the cache outlive the process)."""
    global _template_digest
    if _template_digest is None:
        source = Engine.get_default().get_template(CARD_TEMPLATE).source
        _template_digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    return _template_digest


def card_key(*, account: Account, draft: Draft, can_decide: bool) -> str:
    """Everything the card shows, digested: a new version of any of it is a new key."""
    article = draft.article
    source = article.source
    try:
        relevance = draft.composition.relevance
    except ObjectDoesNotExist:  # a draft composed before compositions were recorded
        relevance = None
    parts = (
        _card_template_digest(),
        account.pk,
        account.slug,
        can_decide,
        draft.pk,
        text_sha256_of(draft.text),
        draft.status,
        draft.gate_verdict,
        draft.gate_text_sha256,
        draft.gated_at.isoformat() if draft.gated_at else "",
        draft.platform,
        draft.link_url,
        draft.image_url,
        article.pk,
        article.title,
        article.canonical_url,
        article.published_at.isoformat() if article.published_at else "",
        source.title if source is not None else "",
        source.url if source is not None else "",
        repr(relevance),
    )
    digest = hashlib.sha256("\x1f".join(str(part) for part in parts).encode()).hexdigest()
    return f"landed:draft-card:{digest}"


def _render(*, account: Account, draft: Draft, can_decide: bool) -> str:
    context = {
        "account": account,
        "d": draft,
        "preview": selectors.draft_preview(draft=draft),
        "can_decide": can_decide,
        "csrf_token": CSRF_STAND_IN,
    }
    return Engine.get_default().get_template(CARD_TEMPLATE).render(Context(context))


def draft_cards_html(
    request: HttpRequest, *, account: Account, drafts: Sequence[Draft], can_decide: bool
) -> list[SafeString]:
    """The cards of these drafts, in order: cached ones read in one cache call, the others
    rendered and stored. Drafts come with their article, source and composition loaded."""
    keys = [card_key(account=account, draft=draft, can_decide=can_decide) for draft in drafts]
    cached: dict[str, str] = cache.get_many(keys) if keys else {}
    missing: dict[str, str] = {}
    for key, draft in zip(keys, drafts, strict=True):
        if key not in cached and key not in missing:
            missing[key] = _render(account=account, draft=draft, can_decide=can_decide)
    if missing:
        cache.set_many(missing, timeout=CARD_CACHE_SECONDS)
    token = get_token(request) if can_decide else ""
    # The card's HTML was escaped by the template when rendered; the token is Django's own
    # (letters and digits), put back where the stand-in was.
    return [mark_safe((cached.get(key) or missing[key]).replace(CSRF_STAND_IN, token)) for key in keys]  # noqa: S308
