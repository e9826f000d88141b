"""Checking a business's drafts from outside: a business file and article files, no database rows.

Behind ``manage.py relevance_rank`` and ``manage.py compose_check`` (public interfaces) and
the composer's evaluation. The voice is learned in memory from the file's past posts, the
same way ``voice_learn`` learns it from stored ones; the article is judged by the same
relevance and composed by the same composer as in the product.

A business file is JSON ``{"name", "industry", "own_names": [..], "facebook_posts": [..],
"instagram_posts": [..]}``, and may add ``"topics": [..]``, what the business chose to post about
(its Voice page's topics); an article file is the headline on line 1, a blank line, then the body
(as ``gate_check --source``).

One difference from the product, on purpose: ``compose_check`` on Instagram always prints
a draft. In the product an Instagram draft needs a usable image (the account's setting
that allows the article's lead image, and a lead image); an article file has no image and
the command has no account setting, so it shows the caption Landed would write.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from posting.composer.extractive import FACEBOOK, INSTAGRAM, ComposedPost, compose_extractive, voice_for_platform
from posting.composer.llm_composer import compose_with_llm_gated
from posting.composer.meaning import business_description, business_meaning
from posting.composer.relevance import BusinessTopic, relevance_score, topic_build
from posting.composer.relevance_judge import BusinessBrief, RelevanceJudge
from posting.gate.core import NO_SUBSTANCE, gate_evaluate
from posting.llm import llm_configured
from posting.voice.stats import voice_exemplars, voice_stats

PLATFORMS = (FACEBOOK, INSTAGRAM)
MAX_FILE_BYTES = 2 * 1024 * 1024
# Characters no text file holds (binary data read as Windows-1252).
CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class CheckInputError(ValueError):
    """A business or article file that cannot be used; the message says which and why."""


@dataclass(frozen=True)
class BusinessFile:
    name: str
    industry: str
    own_names: list[str]
    facebook_posts: list[str]
    instagram_posts: list[str]
    # Optional in the file (not one of BUSINESS_KEYS): the topics the business chose.
    topics: list[str] = field(default_factory=list)
    # Never read from a file: what the customer taught by "Draft it anyway" (models.TaughtArticle,
    # relevance.taught_text), read for closeness after the posts as the product reads it
    # (meaning.BusinessMeaning.taught; scripts/taught_eval.py).
    taught: list[str] = field(default_factory=list)

    def posts(self, platform: str) -> list[str]:
        return self.instagram_posts if platform == INSTAGRAM else self.facebook_posts

    @property
    def names(self) -> list[str]:
        return [self.name, *self.own_names]


@dataclass(frozen=True)
class ArticleFile:
    name: str
    title: str
    body: str


BUSINESS_KEYS = ("name", "industry", "own_names", "facebook_posts", "instagram_posts")


def business_file_load(path: Path) -> BusinessFile:
    """Every key of the public format must be there (``""`` or ``[]`` for none): a file that
    lost a key by mistake is told so, rather than ranked as a business that never posts."""
    data = _json_load(path)
    if not isinstance(data, dict):
        raise CheckInputError(f"{path}: the business file must be a JSON object.")
    name = data.get("name")
    if "name" in data and (not isinstance(name, str) or not name.strip()):
        raise CheckInputError(f'{path}: "name" must be a non-empty string.')
    industry = data.get("industry", "")
    if not isinstance(industry, str):
        raise CheckInputError(f'{path}: "industry" must be a string ("" when unknown).')
    lists = {}
    for key in ("own_names", "facebook_posts", "instagram_posts", "topics"):
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise CheckInputError(f'{path}: "{key}" must be a list of strings ([] when there are none).')
        lists[key] = [item for item in value if item.strip()]
    # Only the name is required: a business with no industry, no own names or no posts on a
    # platform is a real business (a new customer), and other tools write these files; an
    # absent list or industry is read as empty rather than failing the whole run.
    if "name" not in data:
        raise CheckInputError(
            f"{path}: missing 'name'; a business file has "
            f'{", ".join(repr(key) for key in BUSINESS_KEYS)} ("" or [] for none).'
        )
    return BusinessFile(name=str(name).strip(), industry=industry.strip(), **lists)


def article_file_load(path: Path) -> ArticleFile:
    text = _text_load(path)
    head, _, body = text.strip().partition("\n")
    if not head.strip():
        raise CheckInputError(f"{path}: the article file is empty (headline on line 1, a blank line, then the body).")
    return ArticleFile(name=path.name, title=head.strip(), body=body.strip())


def articles_dir_load(path: Path, *, empty: list[str] | None = None) -> list[ArticleFile]:
    """Every file in the folder (hidden ones aside) is an article. An empty file is kept as an
    article with nothing in it (it ranks last, not relevant) and its name added to ``empty``,
    so that one blank file does not cost the ranking of all the others."""
    if not path.is_dir():
        raise CheckInputError(f"{path}: not a directory of article files.")
    files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        raise CheckInputError(f"{path}: no article files in it.")
    articles = []
    for file in files:
        if not _text_load(file).strip():
            if empty is not None:
                empty.append(file.name)
            articles.append(ArticleFile(name=file.name, title="", body=""))
            continue
        articles.append(article_file_load(file))
    return articles


def business_topic(business: BusinessFile, *, vocabularies: bool = True, meaning: bool = True) -> BusinessTopic:
    """What the business is about; ``meaning=False``: by its words alone (the model aside)."""
    posts = [*business.facebook_posts, *business.instagram_posts]
    description = business_description(industry=business.industry, names=business.names, topics=business.topics)
    return topic_build(
        industry=business.industry,
        own_names=business.names,
        past_posts=posts,
        topics=business.topics,
        vocabularies=vocabularies,
        meaning=business_meaning(posts=list(dict.fromkeys(posts)), description=description, taught=business.taught)
        if meaning
        else None,
    )


def business_stats(business: BusinessFile, platform: str) -> dict[str, Any]:
    """The voice on ``platform``, with what it borrows from the business's other platforms
    (extractive.voice_for_platform: everything when it has no posts, else only the person)."""
    posts = business.posts(platform)
    names = business.names
    others = [voice_stats(business.posts(p), own_names=names) for p in PLATFORMS if p != platform and business.posts(p)]
    return voice_for_platform(voice_stats(posts, own_names=names) if posts else None, others)


def relevance_rank(
    *, business: BusinessFile, articles: list[ArticleFile], vocabularies: bool = True, use_llm: bool | None = None
) -> list[dict[str, Any]]:
    """Best first: ``{"article", "score", "relevant", "matched"}`` per article, and ``"judged"``
    (the model's yes/no and reason) for a borderline one the model was asked about. ``score`` is
    what relevant follows (``Relevance.rank``): the weighed likelihood, or the words' share.

    ``use_llm`` None: the model has its say on borderline articles when a key is configured
    (``relevance_judge.py``); False: the offline decision always (what the evaluation measures)."""
    topic = business_topic(business, vocabularies=vocabularies)
    judge = _judge(business, topic=topic, use_llm=use_llm, limit=len(articles))
    rows = []
    for article in articles:
        relevance = relevance_score(topic=topic, title=article.title, body=article.body)
        if judge is not None:
            relevance = judge.decide(relevance, title=article.title, body=article.body)
        row: dict[str, Any] = {
            "article": article.name,
            "score": relevance.rank,
            "relevant": relevance.relevant,
            "matched": relevance.matched,
        }
        if relevance.judged is not None:
            row["judged"] = {"share": relevance.judged, "reason": relevance.judge_reason}
        rows.append(row)
    # Best first means the articles Landed would draft first, then the ones it would skip, each by
    # score: a skipped article can outscore a drafted one (its words showed no sign of the trade, or
    # the drafted one was admitted by its closeness in meaning alone), and a reader taking the top
    # of the list must get what the night would draft.
    return sorted(rows, key=lambda row: (not row["relevant"], -row["score"], row["article"]))


def _judge(business: BusinessFile, *, topic: BusinessTopic, use_llm: bool | None, limit: int) -> RelevanceJudge | None:
    if use_llm is False or not llm_configured():
        return None
    posts = (
        topic.meaning.own_posts if topic.meaning is not None else (*business.facebook_posts, *business.instagram_posts)
    )
    brief = BusinessBrief(name=business.name, industry=business.industry, posts=posts, topics=tuple(business.topics))
    return RelevanceJudge(account=None, business=brief, limit=limit)


def compose_check(
    *, business: BusinessFile, article: ArticleFile, platform: str, use_llm: bool | None = None
) -> dict[str, Any]:
    """``{"draft", "gate": {"verdict", "claims"}, "relevant", ...}``: the draft Landed would write.

    ``use_llm`` None: the model when a key is configured; False: the offline composer always
    (the evaluation measures that one, whatever the environment holds)."""
    if platform not in PLATFORMS:
        raise CheckInputError(f"Unknown platform {platform!r}: use one of {', '.join(PLATFORMS)}.")
    topic = business_topic(business)
    relevance = relevance_score(topic=topic, title=article.title, body=article.body)
    judge = _judge(business, topic=topic, use_llm=use_llm, limit=1)
    if judge is not None:
        relevance = judge.decide(relevance, title=article.title, body=article.body)
    stats = business_stats(business, platform)
    sign_offs = [s for p in PLATFORMS for s in (voice_stats(business.posts(p)).get("sign_offs") or [])]
    composed: ComposedPost | None = None
    fallback_reason = ""
    if use_llm is None:
        use_llm = llm_configured()
    if use_llm:
        outcome = compose_with_llm_gated(
            account=None,
            business=business.name,
            bio_link=False,
            title=article.title,
            body=article.body,
            platform=platform,
            stats=stats,
            style_guide="",
            exemplars=voice_exemplars(business.posts(platform)),
            own_names=business.names,
            sign_offs=sign_offs,
        )
        composed, fallback_reason = outcome.post, outcome.fallback_reason
    if composed is None:
        composed = compose_extractive(
            title=article.title,
            body=article.body,
            platform=platform,
            stats=stats,
            topic=topic,
            own_names=business.names,
        )
    if composed is None:
        return {
            "draft": "",
            "gate": {"verdict": NO_SUBSTANCE, "claims": []},
            "relevant": relevance.relevant,
            "score": relevance.rank,
            "composer": "none",
            "fallback_reason": fallback_reason or "No sentence of the article is usable in a post.",
        }
    result = gate_evaluate(
        text=composed.text, title=article.title, body=article.body, own_names=business.names, sign_offs=sign_offs
    )
    return {
        "draft": composed.text,
        "gate": {"verdict": result.verdict, "claims": [claim.as_dict() for claim in result.claims]},
        "relevant": relevance.relevant,
        "score": relevance.rank,
        "composer": composed.composer,
        "fallback_reason": fallback_reason,
    }


def _text_load(path: Path) -> str:
    """UTF-8 (with or without a byte-order mark); failing that, Windows-1252, the usual
    encoding of text saved by older Windows editors, when it reads as text. Line endings
    become "\\n" whatever wrote them."""
    if not path.is_file():
        raise CheckInputError(f"{path}: no such file.")
    data = path.read_bytes()
    if len(data) > MAX_FILE_BYTES:
        raise CheckInputError(f"{path}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MB.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError:
            text = ""
        if not text or CONTROL_RE.search(text):
            raise CheckInputError(f"{path}: not UTF-8 text (nor Windows-1252 text).") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _json_load(path: Path) -> Any:
    try:
        return json.loads(_text_load(path))
    except json.JSONDecodeError as exc:
        raise CheckInputError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}).") from None
