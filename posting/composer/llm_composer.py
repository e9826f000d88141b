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
from typing import Any

from posting.composer.extractive import CAPTION_LIMIT, INSTAGRAM, ComposedPost
from posting.gate.core import sentences_split
from posting.llm import LLMError, LLMUnavailable, llm_complete_json, usage_mark_malformed
from posting.models import Account, LLMUsage
from posting.voice.stats import HASHTAG_RE, MENTION_RE, voice_describe

MAX_PROMPT_SENTENCES = 120
MAX_PROMPT_CHARS = 16_000
PLATFORM_RULES = {
    "facebook_page": (
        "Facebook Page post. The article link is attached separately: do not include any URL. "
        "Aim for 1-3 short sentences."
    ),
    INSTAGRAM: (
        "Instagram caption: at most 2,200 characters, at most 30 hashtags, at most 20 @mentions, no URLs "
        "(links are not clickable in captions; you may say 'Link in bio')."
    ),
}
MAX_HASHTAGS = 30
MAX_MENTIONS = 20
FACEBOOK_LIMIT = 63_206
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
    account: Account,
    title: str,
    body: str,
    platform: str,
    stats: dict[str, Any],
    style_guide: str,
    exemplars: list[str],
) -> tuple[ComposedPost, LLMUsage]:
    sentences = sentences_split(body)[:MAX_PROMPT_SENTENCES]
    if not sentences:
        raise ComposeError("The article has no sentences to compose from.")
    prompt = _user_prompt(
        title=title,
        sentences=sentences,
        platform=platform,
        stats=stats,
        style_guide=style_guide,
        exemplars=exemplars,
        business=account.name,
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
    post = _validated_post(result.data, platform=platform, sentence_count=len(sentences), usage=result.usage)
    leaked = _leaked_from_exemplars(text=post.text, article=f"{title}\n{body}", exemplars=exemplars)
    if leaked:
        message = f"The model's post used facts from past posts (style only): {', '.join(leaked[:3])}."
        usage_mark_malformed(usage=result.usage, detail=message)
        raise ComposeError(message, usage=result.usage)
    return post, result.usage


def _user_prompt(
    *,
    title: str,
    sentences: list[str],
    platform: str,
    stats: dict[str, Any],
    style_guide: str,
    exemplars: list[str],
    business: str,
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
        f"PLATFORM: {PLATFORM_RULES.get(platform, PLATFORM_RULES['facebook_page'])}",
        f"VOICE: {voice}",
    ]
    if style_guide:
        parts.append(f"STYLE GUIDE: {style_guide}")
    if exemplars:
        quoted = "\n".join(f"- {json.dumps(text, ensure_ascii=False)}" for text in exemplars)
        parts.append(f"PAST POSTS (STYLE ONLY, their facts must not appear in the post):\n{quoted}")
    parts.append(f"ARTICLE HEADLINE: {title}")
    parts.append("ARTICLE (numbered sentences):\n" + "\n".join(numbered))
    return "\n\n".join(parts)


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


def _validated_post(data: dict[str, Any], *, platform: str, sentence_count: int, usage: LLMUsage) -> ComposedPost:
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
    if len(text) > FACEBOOK_LIMIT:
        raise reject(f"post over {FACEBOOK_LIMIT} characters")
    if platform == INSTAGRAM:
        if len(text) > CAPTION_LIMIT:
            raise reject(f"caption over {CAPTION_LIMIT} characters")
        if len(HASHTAG_RE.findall(text)) > MAX_HASHTAGS:
            raise reject(f"more than {MAX_HASHTAGS} hashtags")
        if len(MENTION_RE.findall(text)) > MAX_MENTIONS:
            raise reject(f"more than {MAX_MENTIONS} mentions")
    return ComposedPost(text=text, composer="llm", sources=sources)
