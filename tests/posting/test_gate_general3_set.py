"""The third generalisation set (tests/data/gate_general3/) is complete and loads with the project's loader.

These tests check the set's shape only and never run the gate. The set was held out (scored once
before and once after round 4) and is tuned-on since round 5 (its README's History); its scores are
`python manage.py gate_eval --set general --data-dir tests/data/gate_general3` and
`scripts/gate_fit.py`, not a test that would fail on one draft.
"""

import re
from collections import Counter
from pathlib import Path

from posting.gate.generalisation import HONEST_TAGS, REJECTED_KINDS, GeneralArticle, general_set_load

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
SET_DIR = DATA_DIR / "gate_general3"


def _load() -> list[GeneralArticle]:
    return general_set_load(data_dir=SET_DIR)


def test_the_set_has_at_least_40_articles_and_300_drafts() -> None:
    articles = _load()

    assert len(articles) >= 40
    assert sum(len(article.drafts) for article in articles) >= 300


def test_both_label_classes_every_rejected_kind_and_every_honest_tag_are_present() -> None:
    drafts = [draft for article in _load() for draft in article.drafts]
    honest = [draft for draft in drafts if draft.honest]
    rejected = [draft for draft in drafts if not draft.honest]
    kinds = Counter(draft.tags[0] for draft in rejected)
    tags = Counter(tag for draft in honest for tag in draft.tags)

    assert len(honest) == len(rejected)  # balanced, so the held-back rate and the catch rate weigh the same
    assert sorted(kinds) == sorted(REJECTED_KINDS)
    assert sorted(tags) == sorted(HONEST_TAGS)
    # The two kinds the targets name are not a token presence: one of each per article.
    assert kinds["short"] >= 40
    assert kinds["swap"] >= 40


def test_every_article_has_four_honest_and_four_rejected_drafts() -> None:
    for article in _load():
        honest = sum(draft.honest for draft in article.drafts)

        assert (honest, len(article.drafts) - honest) == (4, 4), article.name


def test_every_article_is_article_length_with_its_posting_business_named() -> None:
    for article in _load():
        words = len(article.source.body.split())

        assert 250 <= words <= 700, (article.name, words)
        assert article.source.own_names, article.name


def test_the_articles_are_new_not_copies_from_the_older_sets() -> None:
    titles = {article.source.title for article in _load()}
    older = {
        article.source.title
        for name in ("gate_general", "gate_general2")
        for article in general_set_load(data_dir=DATA_DIR / name)
    }

    assert titles.isdisjoint(older)
    assert len(titles) == len(_load())


def test_the_readme_counts_are_the_sets_counts() -> None:
    articles = _load()
    drafts = [draft for article in articles for draft in article.drafts]
    kinds = Counter(draft.tags[0] for draft in drafts if not draft.honest)
    readme = (SET_DIR / "README.md").read_text(encoding="utf-8")

    assert f"{len(drafts)} drafts over {len(articles)} articles" in readme
    for kind in REJECTED_KINDS:
        assert re.search(rf"\b{kind} {kinds[kind]}\b", readme), kind
