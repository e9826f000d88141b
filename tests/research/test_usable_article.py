"""A usable article is written once (``research.models.article_usable_q``); the row-in-hand
form (``Article.is_usable``) and the research run's count say the same."""

from __future__ import annotations

import pytest

from research.models import Article, article_usable_q

pytestmark = pytest.mark.django_db


def test_the_query_and_the_row_agree_on_every_extraction_outcome() -> None:
    original = Article.objects.create(canonical_url="https://news.example/original", extraction_status="ok")
    for status in Article.Extraction.values:
        for duplicate_of in (None, original):
            Article.objects.create(
                canonical_url=f"https://news.example/{status}/{duplicate_of is not None}",
                extraction_status=status,
                duplicate_of=duplicate_of,
            )

    usable = set(Article.objects.filter(article_usable_q()))

    assert usable == {a for a in Article.objects.all() if a.is_usable}
    assert {(a.extraction_status, a.duplicate_of_id) for a in usable} == {("ok", None)}
    assert len(usable) == 2
