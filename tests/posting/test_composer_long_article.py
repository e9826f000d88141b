"""A long article is read in time proportional to its length (issue 10; research keeps pages up
to 3 MB, and ``compose_check`` takes any file). Measured by the work done, not the clock: the
composer once read every sentence against the whole text before it, and a 90,000-word article
took four minutes (``scripts/bench_long_article.py`` shows the scaling; docs/BENCHMARKS.md)."""

from __future__ import annotations

import pytest

from posting.composer import extractive
from posting.composer.relevance import words_of

PARAGRAPH = (
    "The Kelford Guild of Millers said flour prices rose by 14 per cent this spring. "
    "The rise followed a wet harvest, the guild said, and Anna Price of Hollins Mill expects more. "
    "Price said she would also keep her loaves at £3.20 until June. "
    "Half of the bakeries surveyed said they had put their prices up."
)


def test_reading_an_article_looks_at_each_word_a_bounded_number_of_times(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[int] = []

    def counting_words_of(text: str) -> list[str]:
        read.append(len(text))
        return words_of(text)

    monkeypatch.setattr(extractive, "words_of", counting_words_of)
    body = "\n\n".join([PARAGRAPH] * 200)  # 800 sentences, about 9,000 words
    extractive._article_reading.cache_clear()
    reading = extractive._article_reading("Flour prices rise after a wet harvest", body)

    assert len(reading.sentences) == 800
    # Each sentence's words once, and the whole text once for the article's words: about twice the
    # text. Reading each sentence against all before it was 400 times the text.
    assert sum(read) < 3 * len(body)
    # What was read before still counts: "the guild", "also" and "Price" (a surname the article
    # gave in full) lean on earlier sentences, and from the second paragraph on "the bakeries"
    # does too: every sentence but the paragraphs' first, the first paragraph's last aside.
    assert sum(1 for fact in reading.facts if fact.refers_back) == 2 + 3 * 199
