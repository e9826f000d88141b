"""The trade contrast (posting/composer/contrast.py) with the real bundled model and taxonomy."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from posting import semantic
from posting.composer import contrast
from posting.composer.checking import ArticleFile, BusinessFile, article_file_load, business_file_load, business_topic
from posting.composer.evaluation import DATA_DIR
from posting.composer.meaning import article_vectors
from posting.composer.relevance import (
    COMBINED_MIN,
    MEANING_ALONE_MIN,
    _contrast_checked,
    relevance_score,
    relevance_signals,
)

pytestmark = pytest.mark.skipif(not semantic.available(), reason="the bundled sentence model is not installed")


def load(split: str, business: str, article_split: str, article: str) -> tuple[BusinessFile, ArticleFile]:
    return (
        business_file_load(DATA_DIR / split / "businesses" / f"{business}.json"),
        article_file_load(DATA_DIR / article_split / "articles" / article),
    )


# blind7's scaffolder (tuned-on) against blind5's chimney-fire story (another split's article, tuned
# on by no round for this business): "chimney", "roof", "fire" are the scaffolder's words, the story
# is a chimney sweep's. Let in before this round, on the words' evidence.
SCAFFOLDER_CHIMNEY = ("blind7", "ridgeline-scaffolding", "blind5", "chimneys-01-chimney-fires-rise-woodburners.txt")
# dev's hi-fi dealer and dev's vinyl-sales story (labelled relevant): the relevant article of the ten
# tuned-on splits nearest to being held back (closer to a record shop than to a hi-fi dealer).
HIFI_VINYL = ("dev", "the-listening-room", "dev", "audio-01-vinyl-sales-thirty-year-high.txt")


# blind10's archery club (tuned-on since precision round 2) and a seafront gym's personal trainers:
# off-topic, let in before the round on meaning alone (0.47), no word of the archery club's trade.
ARCHERY_GYM = ("blind10", "harnley-bowmen", "blind10", "fitness-01-outdoor-gym-personal-trainers.txt")
# blind6's pest controller and a leisure pool closed by rats in its plant room: relevant, let in on
# meaning alone only, and closer to another trade (the pool's) than to pest control, but by less
# than the meaning-alone bar.
PEST_POOL_RATS = ("blind6", "stowford-pest-control", "blind6", "leisure-01-pool-closed-rats-plant-room.txt")


@pytest.fixture
def no_taxonomy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(contrast, "TAXONOMY_VECTORS", tmp_path / "missing.npz")
    contrast.taxonomy.cache_clear()
    contrast._own_trade.cache_clear()
    yield
    contrast.taxonomy.cache_clear()
    contrast._own_trade.cache_clear()


def test_a_neighbouring_trades_article_let_in_on_the_words_is_held_back() -> None:
    business, article = load(*SCAFFOLDER_CHIMNEY)
    result = relevance_score(topic=business_topic(business), title=article.title, body=article.body)

    # It is exactly the case the contrast is for: words' evidence, combined score over the bar,
    # meaning under the meaning-alone bar.
    assert result.evidence and result.score >= COMBINED_MIN
    assert result.meaning is not None and result.meaning < MEANING_ALONE_MIN
    assert not result.relevant
    # Why it was left out names both trades ("why skipped" shows reason()).
    assert "closer to another trade (chimney sweep) than to ours (scaffolding firm)" in result.reason()


def test_the_same_pair_is_let_in_without_the_taxonomy(no_taxonomy: None) -> None:
    business, article = load(*SCAFFOLDER_CHIMNEY)
    result = relevance_score(topic=business_topic(business), title=article.title, body=article.body)

    assert result.relevant  # as before this round: the hold-back is what keeps it out


def test_an_on_topic_article_near_a_neighbouring_trade_is_kept() -> None:
    business, article = load(*HIFI_VINYL)
    topic = business_topic(business)
    vectors = article_vectors(title=article.title, body=article.body)
    assert topic.meaning is not None and vectors is not None
    found = contrast.trade_contrast(industry=business.industry, business=topic.meaning, vectors=vectors)

    assert found is not None
    assert found.own_trade == "hi-fi and audio dealer"
    assert found.other_trade == "record shop"
    assert contrast.CONTRAST_MIN <= found.margin < 0  # closer to the record shop, within the margin
    assert relevance_score(topic=topic, title=article.title, body=article.body).relevant


def test_an_article_let_in_on_meaning_alone_only_is_held_back_nearer_another_trade() -> None:
    business, article = load(*ARCHERY_GYM)
    result = relevance_score(topic=business_topic(business), title=article.title, body=article.body)

    # Meaning alone is what let it in: no words' evidence at the combined bar.
    assert result.meaning is not None and result.meaning >= MEANING_ALONE_MIN
    assert not (result.evidence and result.score >= COMBINED_MIN)
    assert not result.relevant
    # The club is placed on the taxonomy's archery club (added this round; a golf club before).
    assert "closer to another trade (gym and fitness centre) than to ours (archery club)" in result.reason()


def test_the_meaning_alone_hold_back_is_stricter_than_the_words_one() -> None:
    business, article = load(*ARCHERY_GYM)
    topic = business_topic(business)
    vectors = article_vectors(title=article.title, body=article.body)
    assert topic.meaning is not None and vectors is not None
    found = contrast.trade_contrast(industry=business.industry, business=topic.meaning, vectors=vectors)

    # Under the meaning-alone bar, over the words' one: let in on the words it would be kept.
    assert found is not None and contrast.CONTRAST_MIN <= found.margin < contrast.ALONE_CONTRAST_MIN
    assert found.held_back_alone and not found.held_back


def test_an_on_topic_article_let_in_on_meaning_alone_near_another_trade_is_kept() -> None:
    business, article = load(*PEST_POOL_RATS)
    topic = business_topic(business)
    vectors = article_vectors(title=article.title, body=article.body)
    assert topic.meaning is not None and vectors is not None
    found = contrast.trade_contrast(industry=business.industry, business=topic.meaning, vectors=vectors)
    result = relevance_score(topic=topic, title=article.title, body=article.body, vectors=vectors)

    assert result.meaning is not None and result.meaning >= MEANING_ALONE_MIN
    assert not (result.evidence and result.score >= COMBINED_MIN)
    assert found is not None and found.own_trade == "pest control"
    assert contrast.ALONE_CONTRAST_MIN <= found.margin < 0
    assert result.relevant


def test_an_article_let_in_both_ways_is_never_held_back() -> None:
    business, article = load(*SCAFFOLDER_CHIMNEY)
    topic = business_topic(business)
    vectors = article_vectors(title=article.title, body=article.body)
    assert topic.meaning is not None and vectors is not None
    held = relevance_score(topic=topic, title=article.title, body=article.body, vectors=vectors)
    # The same scores (the words' evidence at the combined bar), but its meaning at the
    # meaning-alone bar too: admitted both ways, whatever the trade.
    close = replace(held, relevant=True, short="", meaning=MEANING_ALONE_MIN)

    assert _contrast_checked(close, topic=topic, meaning=topic.meaning, vectors=vectors) is close


def test_the_bundled_taxonomy_is_built_from_its_text() -> None:
    text = contrast.TAXONOMY_TEXT.read_text()
    lines = contrast.taxonomy_lines(text)
    with np.load(contrast.TAXONOMY_VECTORS) as data:
        assert str(data["digest"]) == contrast.taxonomy_digest(text), "run scripts/trade_taxonomy.py"
        stored = data["vectors"].astype(np.float32)
    assert 150 <= len(lines) <= 450 and stored.shape == (len(lines), semantic.DIMENSIONS)
    # The vectors are the bundled model's for those lines (float16: three decimals).
    picked = [0, len(lines) // 2, len(lines) - 1]
    fresh = semantic.embed_batch([lines[i] for i in picked])
    assert np.allclose(fresh, stored[picked], atol=2e-3)


# blind16's seafront sauna (tuned-on since session 8) and its bay's bathing water downgraded
# (labelled relevant: its customers swim from the beach): the taxonomy has no sauna, so the
# sauna's nearest entry is a poor fit ("fireplace and stove shop"), and the story, nearer another
# trade than to that, was held back as another trade's.
SAUNA_BATHING_WATER = ("blind16", "the-salt-house-sauna", "blind16", "coast-01-bathing-water-downgraded.txt")


def test_no_contrast_for_a_trade_the_taxonomy_does_not_know() -> None:
    business, article = load(*SAUNA_BATHING_WATER)
    topic = business_topic(business)
    assert topic.meaning is not None
    _, fit = contrast._own_trade(business.industry, np.ascontiguousarray(topic.meaning.vectors).tobytes())
    assert fit < contrast.OWN_TRADE_FIT_MIN
    vectors = article_vectors(title=article.title, body=article.body)
    assert vectors is not None
    assert contrast.trade_contrast(industry=business.industry, business=topic.meaning, vectors=vectors) is None
    # Nothing holds it back: the rules let it in (the weighing, which has the last word since
    # session 16, reads the missing contrast as one signal among others; ``weighing.py``).
    assert relevance_signals(topic=topic, title=article.title, body=article.body)[0].relevant


def test_a_trade_the_taxonomy_knows_is_placed_well_over_the_fit_bar() -> None:
    business, _ = load(*HIFI_VINYL)
    topic = business_topic(business)
    assert topic.meaning is not None
    own, fit = contrast._own_trade(business.industry, np.ascontiguousarray(topic.meaning.vectors).tobytes())
    found = contrast.taxonomy()
    assert found is not None
    assert found[0][own] == "hi-fi and audio dealer"
    assert fit >= contrast.OWN_TRADE_FIT_MIN + 0.1
