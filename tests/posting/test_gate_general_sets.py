"""The generalisation sets written after the first two (tests/data/gate_general3/ to
gate_general8/) are complete and load with the project's loader: one table, one set a row.

These tests check each set's shape only and never run the gate. Each set was written by someone
who never read the gate, held out, and scored once before and once after a round of gate
changes (its README's History says when, and whether it is tuned-on since) with
`python manage.py gate_eval --set general --data-dir tests/data/<set>`. A test that scored a set
here would put its misses in front of whoever tunes the gate, and a held-out set would no
longer be one.
"""

import re
from collections import Counter
from pathlib import Path

import pytest

from posting.gate.generalisation import HONEST_TAGS, REJECTED_KINDS, GeneralArticle, general_set_load

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
# Oldest first: each set's articles must be new to every set before it.
SETS = (
    "gate_general",
    "gate_general2",
    "gate_general3",
    "gate_general4",
    "gate_general5",
    "gate_general6",
    "gate_general7",
    "gate_general8",
)
CHECKED = SETS[2:]


def _load(name: str) -> list[GeneralArticle]:
    return general_set_load(data_dir=DATA_DIR / name)


@pytest.mark.parametrize("name", CHECKED)
def test_the_set_has_at_least_40_articles_and_300_drafts(name: str) -> None:
    articles = _load(name)

    assert len(articles) >= 40
    assert sum(len(article.drafts) for article in articles) >= 300


@pytest.mark.parametrize("name", CHECKED)
def test_both_label_classes_every_rejected_kind_and_every_honest_tag_are_present(name: str) -> None:
    drafts = [draft for article in _load(name) for draft in article.drafts]
    honest = [draft for draft in drafts if draft.honest]
    rejected = [draft for draft in drafts if not draft.honest]
    kinds = Counter(draft.tags[0] for draft in rejected)
    tags = Counter(tag for draft in honest for tag in draft.tags)

    assert len(honest) == len(rejected)  # balanced, so the held-back rate and the catch rate weigh the same
    assert sorted(kinds) == sorted(REJECTED_KINDS)
    assert sorted(tags) == sorted(HONEST_TAGS)
    # The kinds other than short and swap share two slots per article; none is a token presence.
    for kind in REJECTED_KINDS:
        assert kinds[kind] >= 12, kind


@pytest.mark.parametrize("name", CHECKED)
def test_every_article_has_four_honest_and_four_rejected_drafts_with_one_short_and_one_swap(name: str) -> None:
    for article in _load(name):
        honest = sum(draft.honest for draft in article.drafts)
        kinds = Counter(draft.tags[0] for draft in article.drafts if not draft.honest)

        assert (honest, len(article.drafts) - honest) == (4, 4), article.name
        # The two kinds the targets name are measured on every article, not a few.
        assert (kinds["short"], kinds["swap"]) == (1, 1), article.name


@pytest.mark.parametrize("name", CHECKED)
def test_every_article_is_article_length_with_its_posting_business_named(name: str) -> None:
    for article in _load(name):
        words = len(article.source.body.split())

        assert 250 <= words <= 320, (article.name, words)
        assert article.source.own_names, article.name


@pytest.mark.parametrize("name", CHECKED)
def test_the_articles_are_new_not_copies_from_the_older_sets(name: str) -> None:
    articles = _load(name)
    titles = {article.source.title for article in articles}
    older = {article.source.title for other in SETS[: SETS.index(name)] for article in _load(other)}

    assert titles.isdisjoint(older)
    assert len(titles) == len(articles)


@pytest.mark.parametrize("name", CHECKED)
def test_the_readme_counts_are_the_sets_counts(name: str) -> None:
    articles = _load(name)
    drafts = [draft for article in articles for draft in article.drafts]
    kinds = Counter(draft.tags[0] for draft in drafts if not draft.honest)
    tags = Counter(tag for draft in drafts if draft.honest for tag in draft.tags)
    readme = (DATA_DIR / name / "README.md").read_text(encoding="utf-8")

    assert f"{len(drafts)} drafts over {len(articles)} articles" in readme
    for kind in REJECTED_KINDS:
        assert re.search(rf"\b{kind} {kinds[kind]}\b", readme), kind
    for tag in HONEST_TAGS:
        assert re.search(rf"\b{tag} {tags[tag]}\b", readme), tag
