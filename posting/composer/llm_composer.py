"""The LLM composer: a post written by the model from numbered article sentences.

The model must answer with structured output: the post text and its claims, each citing
the numbers of the sentences that support it. Anything that does not hold together (a
refusal, non-JSON, a claim citing no sentence or a sentence that does not exist, a caption
over the platform's limits) is a ``ComposeError`` and the caller falls back to the
extractive composer. The factual gate still checks every draft either way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from accounts.models import Account, Platform
from posting.composer.extractive import INSTAGRAM, ComposedPost, is_sombre, is_unwelcome, voice_traits
from posting.gate.core import PASSED, gate_evaluate, sentences_split
from posting.llm import LLMError, LLMUnavailable, llm_complete_json, usage_mark_malformed
from posting.models import LLMUsage
from posting.voice.stats import voice_describe
from publish.limits import MAX_CHARS, MAX_HASHTAGS, MAX_MENTIONS, platform_limit_broken

MAX_PROMPT_SENTENCES = 120
# The model's first post, and one retry told why the gate turned it down.
LLM_ATTEMPTS = 2
MAX_PROMPT_CHARS = 16_000
PLATFORM_RULES = {
    "facebook_page": (
        "Facebook Page post. The article link is attached separately: do not include any URL. "
        "Aim for 1-3 short sentences."
    ),
    INSTAGRAM: (
        f"Instagram caption: at most {MAX_CHARS[Platform.INSTAGRAM]:,} characters, "
        f"at most {MAX_HASHTAGS[Platform.INSTAGRAM]} hashtags, at most {MAX_MENTIONS[Platform.INSTAGRAM]} @mentions, "
        "no URLs (links are not clickable in captions)."
    ),
}
LINK_IN_BIO_RE = re.compile(r"link in (?:our |my |the )?bio", re.IGNORECASE)
# The facts that could leak from an exemplar into a post: numbers, and names (capitalised
# words in mid-sentence, so that "Come" opening a sentence does not count as a name).
FACT_TOKEN_RE = re.compile(r"\d[\d,.]*%?|(?<![#@\w])[A-Z][a-zA-Z]{2,}")
EXEMPLAR_FACT_RE = re.compile(r"\d[\d,.]*%?|(?<=[a-z,;:] )[A-Z][a-zA-Z]{2,}")

POST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "claims": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "sentences": {"type": "array", "items": {"type": "integer"}},
                },
                "required": ["text", "sentences"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["text", "claims"],
    "additionalProperties": False,
}

SYSTEM_PROMPT = """You write social media posts for a small business about articles in its industry.
Rules:
- Every fact in the post (numbers, dates, prices, names, places, who did what) must come from the
  numbered ARTICLE sentences. Never add facts, never round or convert numbers, never invent superlatives.
- Do not make claims about the business itself (its history, products, prices or achievements).
- The PAST POSTS are STYLE ONLY: copy their tone, length, emoji and hashtag habits and sign-offs, but
  never use any fact, number, name, date or claim from them.
- List every factual claim of your post in "claims", each with the numbers of the article sentences
  that support it. Hashtags and calls to action are not claims.
Answer with JSON only."""


class ComposeError(Exception):
    """The LLM path produced no usable post; ``usage`` is the model call, if one was made.

    ``unavailable`` says the model could not be reached or kept refusing service (throttled,
    5xx, timeout) rather than answering badly: asking again in the same run would only wait.
    """

    def __init__(self, message: str, *, usage: LLMUsage | None = None, unavailable: bool = False) -> None:
        super().__init__(message)
        self.usage = usage
        self.unavailable = unavailable


def compose_with_llm(
    *,
    account: Account | None,
    title: str,
    body: str,
    platform: str,
    stats: dict[str, Any],
    style_guide: str,
    exemplars: list[str],
    gate_feedback: str = "",
    business: str = "",
    bio_link: bool | None = None,
) -> tuple[ComposedPost, LLMUsage]:
    """One post from the model (``account`` None: a business known only from a file, as in
    ``compose_check``; then ``business`` names it). ``gate_feedback`` is why the factual gate turned down its
    previous post for this article: the retry is told, so it can keep to the article."""
    sentences = sentences_split(body)[:MAX_PROMPT_SENTENCES]
    if not sentences:
        raise ComposeError("The article has no sentences to compose from.")
    business = business or (account.name if account else "")
    if bio_link is None:
        bio_link = bool(account and account.instagram_bio_link)
    prompt = _user_prompt(
        title=title,
        sentences=sentences,
        platform=platform,
        stats=stats,
        style_guide=style_guide,
        exemplars=exemplars,
        business=business,
        gate_feedback=gate_feedback,
        bio_link=bio_link,
    )
    try:
        result = llm_complete_json(
            account=account,
            purpose="compose",
            system=SYSTEM_PROMPT,
            user=prompt,
            schema_name="social_post",
            schema=POST_SCHEMA,
        )
    except LLMError as exc:
        raise ComposeError(str(exc), usage=exc.usage, unavailable=isinstance(exc, LLMUnavailable)) from None
    post = _validated_post(
        result.data,
        platform=platform,
        sentence_count=len(sentences),
        usage=result.usage,
        bio_link=bio_link,
    )
    leaked = _leaked_from_exemplars(text=post.text, article=f"{title}\n{body}", exemplars=exemplars)
    if leaked:
        message = f"The model's post used facts from past posts (style only): {', '.join(leaked[:3])}."
        usage_mark_malformed(usage=result.usage, detail=message)
        raise ComposeError(message, usage=result.usage)
    return post, result.usage


@dataclass(frozen=True)
class GatedOutcome:
    """What the model path produced: a post that passed the gate, or why there is none."""

    post: ComposedPost | None
    usage: LLMUsage | None
    fallback_reason: str
    unavailable: bool = False


def compose_with_llm_gated(
    *,
    account: Account | None,
    title: str,
    body: str,
    platform: str,
    stats: dict[str, Any],
    style_guide: str,
    exemplars: list[str],
    own_names: Sequence[str],
    sign_offs: Sequence[str],
    business: str = "",
    bio_link: bool | None = None,
) -> GatedOutcome:
    """The model's post only if it passes the factual gate; one retry told the gate's reasons.

    No post the gate turns down is ever returned: the caller uses the offline composer
    instead, with ``fallback_reason`` saying why.
    """
    feedback = ""
    usage: LLMUsage | None = None
    reason = ""
    for _attempt in range(LLM_ATTEMPTS):
        try:
            post, usage = compose_with_llm(
                account=account,
                title=title,
                body=body,
                platform=platform,
                stats=stats,
                style_guide=style_guide,
                exemplars=exemplars,
                gate_feedback=feedback,
                business=business,
                bio_link=bio_link,
            )
        except ComposeError as exc:
            return GatedOutcome(None, exc.usage or usage, str(exc)[:500], exc.unavailable)
        verdict = gate_evaluate(text=post.text, title=title, body=body, own_names=own_names, sign_offs=sign_offs)
        if verdict.verdict == PASSED:
            return GatedOutcome(post, usage, "")
        feedback = verdict.reason
        reason = f"The model's post failed the factual gate twice; last: {verdict.reason}"
    return GatedOutcome(None, usage, reason[:500])


def _user_prompt(
    *,
    title: str,
    sentences: list[str],
    platform: str,
    stats: dict[str, Any],
    style_guide: str,
    exemplars: list[str],
    business: str,
    gate_feedback: str = "",
    bio_link: bool = False,
) -> str:
    numbered: list[str] = []
    used = 0
    for number, sentence in enumerate(sentences, start=1):
        used += len(sentence)
        if used > MAX_PROMPT_CHARS:
            break
        numbered.append(f"[{number}] {sentence}")
    voice = " ".join(voice_describe(stats, platform_label="past")) if stats.get("post_count") else "Not known yet."
    parts = [
        f"BUSINESS: {business}",
        f"PLATFORM: {PLATFORM_RULES.get(platform, PLATFORM_RULES['facebook_page'])} {_link_rule(platform, bio_link)}",
        f"VOICE: {voice}",
    ]
    lead = sentences[0] if sentences else ""
    rules = _voice_rules(stats, platform=platform, sombre=is_sombre(title, lead), unwelcome=is_unwelcome(title, lead))
    if rules:
        parts.append("VOICE RULES:\n" + "\n".join(f"- {rule}" for rule in rules))
    if style_guide:
        parts.append(f"STYLE GUIDE: {style_guide}")
    if exemplars:
        quoted = "\n".join(f"- {json.dumps(text, ensure_ascii=False)}" for text in exemplars)
        parts.append(f"PAST POSTS (STYLE ONLY, their facts must not appear in the post):\n{quoted}")
    parts.append(f"ARTICLE HEADLINE: {title}")
    parts.append("ARTICLE (numbered sentences):\n" + "\n".join(numbered))
    if gate_feedback:
        parts.append(
            "YOUR PREVIOUS POST FAILED THE FACT CHECK. Keep every fact word for word as the article states it. "
            f"The checker said: {gate_feedback}"
        )
    return "\n\n".join(parts)


def _voice_rules(stats: dict[str, Any], *, platform: str, sombre: bool = False, unwelcome: bool = False) -> list[str]:
    """The voice's habits as instructions: the same decisions the offline composer follows
    (on bad news, as it does: a serious tone and none of the business's cheerful emoji; on
    unwelcome news, a price rise or a cut, it is passed on, not recommended)."""
    if not stats.get("post_count"):
        return []
    traits = voice_traits(stats=stats, platform=platform, sombre=sombre)
    rules = [
        {"we": 'Write as "we" (the business).', "I": 'Write as "I" (the owner).'}.get(
            traits.person, 'Do not write "we" or "I": the business never speaks of itself.'
        ),
        'Speak to the reader as "you".' if traits.you else 'Do not address the reader as "you".',
        "End with one short question to the reader." if traits.question else "Ask no questions.",
        f"Use these emoji: {' '.join(traits.emoji)}." if traits.emoji else "Use no emoji.",
        f"Hashtags: only from {' '.join(traits.hashtags)}." if traits.hashtags else "Use no hashtags.",
        f"About {traits.target_chars} characters long.",
    ]
    if sombre:
        rules.append("The article is bad news for someone: keep the tone serious; do not celebrate or recommend it.")
    elif unwelcome:
        rules.append(
            "The article is news customers will not welcome (a rise in what they pay, a cut, a delay): "
            "pass it on plainly; do not present it as good news."
        )
    if traits.sign_off:
        rules.append(f"End with the sign-off: {traits.sign_off}")
    if traits.calls_to_action:
        rules.append(f"The business's usual call to action: {traits.calls_to_action[0]}")
    return rules


def _leaked_from_exemplars(*, text: str, article: str, exemplars: list[str]) -> list[str]:
    """Numbers and names in the post that come from the past posts, not the article."""
    if not exemplars:
        return []
    article_lower = article.lower()
    from_exemplars = {token.lower() for exemplar in exemplars for token in EXEMPLAR_FACT_RE.findall(exemplar)}
    return [
        token
        for token in dict.fromkeys(FACT_TOKEN_RE.findall(text))
        if token.lower() in from_exemplars and token.lower() not in article_lower
    ]


def _link_rule(platform: str, bio_link: bool) -> str:
    if platform != INSTAGRAM:
        return ""
    return "You may end with 'Link in bio.'" if bio_link else "Never mention a link in bio: the account has none."


def _validated_post(
    data: dict[str, Any], *, platform: str, sentence_count: int, usage: LLMUsage, bio_link: bool = False
) -> ComposedPost:
    def reject(reason: str) -> ComposeError:
        message = f"The model's post was unusable: {reason}."
        usage_mark_malformed(usage=usage, detail=message)
        return ComposeError(message, usage=usage)

    text = data.get("text")
    claims = data.get("claims")
    if not isinstance(text, str) or not text.strip():
        raise reject("no post text")
    if not isinstance(claims, list) or not claims:
        raise reject("no claims listed")
    sources: list[dict[str, Any]] = []
    for claim in claims:
        cited = claim.get("sentences") if isinstance(claim, dict) else None
        if not isinstance(claim.get("text"), str) or not isinstance(cited, list) or not cited:
            raise reject("a claim cites no sentence")
        if not all(isinstance(n, int) and 1 <= n <= sentence_count for n in cited):
            raise reject("a claim cites a sentence the article does not have")
        sources.append({"text": claim["text"], "sentences": sorted(set(cited))})
    text = text.strip()
    if "http://" in text or "https://" in text:
        raise reject("it contains a URL")
    if broken := platform_limit_broken(platform=platform, text=text):
        raise reject(broken)
    if platform == INSTAGRAM and not bio_link and LINK_IN_BIO_RE.search(text):
        raise reject("it points to a link in bio the account does not have")
    return ComposedPost(text=text, composer="llm", sources=sources)
