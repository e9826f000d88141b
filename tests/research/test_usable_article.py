"""A usable article is written once (``research.models.article_usable_q``); the row-in-hand
form (``Article.is_usable``) and the account's usable articles say the same."""

from __future__ import annotations

import pytest

from research.models import Article, Delivery, article_usable_q
from research.selectors import articles_usable_for_account, usable_article_counts
from research.services import source_subscribe
from tests import factories

pytestmark = pytest.mark.django_db


def test_the_query_the_row_and_the_account_selectors_agree_on_every_extraction_outcome() -> None:
    account = factories.account_create(name="Usable Co", slug="usable-co")
    source = source_subscribe(account=account, url="https://news.example/feed.xml", title="News")
    for number, status in enumerate(Article.Extraction.values):
        article = Article.objects.create(
            canonical_url=f"https://news.example/{status}",
            extraction_status=status,
            text=f"Story {number} about {status} pages.",
            fingerprint=number * 1_000_003,
        )
        Delivery.objects.create(source=source, article=article)

    usable = set(Article.objects.filter(article_usable_q()))

    assert usable == {a for a in Article.objects.all() if a.is_usable}
    assert {a.extraction_status for a in usable} == {"ok"}
    assert set(articles_usable_for_account(account=account)) == usable
    since = min(a.created_at for a in usable)
    assert usable_article_counts(account_ids=[account.pk], since=since) == {account.pk: len(usable)}
