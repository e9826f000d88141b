"""The extractive composer: a post made of the article's own sentences, in the account's voice.

No language model. The factual gate checks every number and proper noun of a draft against
the article body, so the sentences are quoted verbatim: never paraphrased, never trimmed
(cutting "sales rose 5%, but not in Europe" at the comma would change its meaning). The
voice shapes only what carries no facts: how long, emoji, hashtags, the sign-off.
Pure functions: no Django.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from posting.gate.core import sentences_split
from posting.voice.stats import HASHTAG_RE, MENTION_RE

FACEBOOK = "facebook_page"
INSTAGRAM = "instagram"
# Body length (before emoji, hashtags and sign-off) when the account has no voice yet.
DEFAULT_TARGET_CHARS = {FACEBOOK: 280, INSTAGRAM: 400}
TARGET_BOUNDS = {FACEBOOK: (120, 700), INSTAGRAM: (120, 1200)}
CAPTION_LIMIT = 2_200
MAX_SENTENCES = 3
MIN_SENTENCE_CHARS = 40
MAX_SENTENCE_CHARS = 400
INSTAGRAM_CTA = "Link in bio."

# Boilerplate that extraction sometimes leaves in a body: never worth posting.
BOILERPLATE_RE = re.compile(
    r"click here|subscribe|sign up|newsletter|cookie|all rights reserved|\u00a9|advertisement|"
    r"follow us|read more|learn more|find out more|for more information|photo:|image:|credit:|getty images|"
    r"share this",
    re.IGNORECASE,
)
# A sentence opening like this leans on the one before it; it cannot open a post.
NEEDS_CONTEXT_RE = re.compile(
    r"^(?:he|she|it|they|this|these|that|those|his|her|its|their|but|and|or|so|also|however|meanwhile|"
    r"still|yet|then|instead|here|there)\b",
    re.IGNORECASE,
)
# The article's author speaking ("I had the chance", "our parser"): posted by the business,
# it would read as the business's own claim.
FIRST_PERSON_RE = re.compile(r"\b(?:I|I'm|I've|[Ww]e|[Ww]e're|[Ww]e've|[Mm]y|[Oo]ur|us)\b")
NUMBER_RE = re.compile(r"\d")
CAPITALISED_RE = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-zA-Z]+")
STOPWORDS = {
    "the",
    "a",
    "an",
    "and",
    "or",
    "of",
    "to",
    "in",
    "on",
    "for",
    "with",
    "is",
    "are",
    "was",
    "be",
    "by",
    "at",
    "as",
    "from",
    "how",
    "why",
    "what",
    "new",
    "its",
    "it",
    "this",
    "that",
}


@dataclass(frozen=True)
class ComposedPost:
    text: str
    composer: str
    # Extractive: [{"sentence": n, "text": ...}] (1-based, as the gate numbers them).
    # LLM: [{"text": claim, "sentences": [n, ...]}].
    sources: list[dict[str, Any]] = field(default_factory=list)


def compose_extractive(
    *, title: str, body: str, platform: str, stats: dict[str, Any], industry: str = ""
) -> ComposedPost | None:
    """The article's most informative 1-3 consecutive sentences, decorated in the account's voice.

    None when no sentence of the body is fit to post (all boilerplate, fragments or too long).
    """
    sentences = sentences_split(body)
    chosen = _choose_sentences(sentences, title=title, target=_target_chars(platform, stats))
    if not chosen:
        return None
    core = " ".join(sentences[i] for i in chosen)
    text = _decorate(core, platform=platform, stats=stats, industry=industry)
    return ComposedPost(
        text=text,
        composer="extractive",
        sources=[{"sentence": i + 1, "text": sentences[i]} for i in chosen],
    )


def _target_chars(platform: str, stats: dict[str, Any]) -> int:
    low, high = TARGET_BOUNDS.get(platform, TARGET_BOUNDS[FACEBOOK])
    median = (stats.get("length") or {}).get("median")
    if not median:
        return DEFAULT_TARGET_CHARS.get(platform, DEFAULT_TARGET_CHARS[FACEBOOK])
    return max(low, min(high, int(median)))


def _choose_sentences(sentences: list[str], *, title: str, target: int) -> list[int]:
    """Indexes of the best opening sentence and the ones that follow it while they fit."""
    title_words = _content_words(title)
    scored = [
        (_score(sentence, index, len(sentences), title_words), index)
        for index, sentence in enumerate(sentences)
        if _can_open(sentence)
    ]
    if not scored:
        return []
    _, best = max(scored, key=lambda pair: (pair[0], -pair[1]))
    chosen = [best]
    length = len(sentences[best])
    for index in range(best + 1, min(best + MAX_SENTENCES, len(sentences))):
        sentence = sentences[index]
        # Followers may lean on the opener ("It opens in May."), but must still be clean.
        if not _is_clean(sentence) or length + 1 + len(sentence) > target:
            break
        chosen.append(index)
        length += 1 + len(sentence)
    return chosen


def _is_clean(sentence: str) -> bool:
    return (
        MIN_SENTENCE_CHARS <= len(sentence) <= MAX_SENTENCE_CHARS
        and sentence[-1] in ".!\"'\u201d\u2019)"
        and not BOILERPLATE_RE.search(sentence)
        and not MENTION_RE.search(sentence)
        and not HASHTAG_RE.search(sentence)
        and not FIRST_PERSON_RE.search(sentence)
        and "http" not in sentence
    )


def _can_open(sentence: str) -> bool:
    return (
        _is_clean(sentence)
        and sentence[0].isupper()
        and not NEEDS_CONTEXT_RE.match(sentence)
        and not sentence.startswith(("\u201c", '"', "'"))
    )


def _score(sentence: str, index: int, count: int, title_words: set[str]) -> float:
    """Informative = concrete (numbers, names), on the story's topic, and early in the article."""
    numbers = min(len(NUMBER_RE.findall(sentence)), 3)
    names = min(len(CAPITALISED_RE.findall(sentence)), 4)
    overlap = min(len(_content_words(sentence) & title_words), 4)
    lead = 2.0 * (1 - index / max(count, 1)) + (1.0 if index == 0 else 0.0)
    length_fit = 1.0 if 80 <= len(sentence) <= 240 else 0.0
    return 0.6 * numbers + 0.5 * names + 1.0 * overlap + lead + length_fit


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2 and w not in STOPWORDS}


def _decorate(core: str, *, platform: str, stats: dict[str, Any], industry: str) -> str:
    """Add what carries no facts: emoji, call to action, sign-off, hashtags, per the voice."""
    emoji = stats.get("emoji") or {}
    if emoji.get("rate", 0) >= 0.5 and emoji.get("top"):
        symbol = emoji["top"][0]
        core = f"{symbol} {core}" if emoji.get("placement") == "start" else f"{core} {symbol}"
    blocks = [core]
    if platform == INSTAGRAM:
        blocks.append(INSTAGRAM_CTA)
    sign_offs = stats.get("sign_offs") or []
    if sign_offs:
        blocks.append(sign_offs[0])
    hashtags = _hashtags(platform=platform, stats=stats, industry=industry)
    if hashtags:
        blocks.append(" ".join(hashtags))
    # Hashtags, then the sign-off, give way before the quoted sentences ever would.
    while len(blocks) > 1 and len("\n\n".join(blocks)) > CAPTION_LIMIT:
        blocks.pop()
    return "\n\n".join(blocks)


def _hashtags(*, platform: str, stats: dict[str, Any], industry: str) -> list[str]:
    tags = stats.get("hashtags") or {}
    if tags.get("rate", 0) >= 0.3 and tags.get("top"):
        return list(tags["top"][: max(1, min(int(tags.get("typical") or 1), 30))])
    # No voice yet: one topical tag helps an Instagram post be found; Facebook needs none.
    if platform == INSTAGRAM and not stats.get("post_count") and industry:
        tag = re.sub(r"\W", "", industry.title())
        return [f"#{tag}"] if tag else []
    return []
