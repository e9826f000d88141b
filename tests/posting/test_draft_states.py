"""Awaiting approval and held back are written once (``DraftQuerySet``); a row in hand
(``Draft.is_awaiting_approval``, ``Draft.is_held_back``) says the same as the query."""

from __future__ import annotations

import pytest

from accounts.models import Account
from posting.models import Draft
from posting.selectors import drafts_awaiting_approval, drafts_held_back
from tests import factories

pytestmark = pytest.mark.django_db

# Every state a draft can be in (an approved draft always passed: a constraint says so).
STATES = [
    (Draft.Status.DRAFTED, ""),
    (Draft.Status.GATED, Draft.Verdict.PASSED),
    (Draft.Status.GATED, Draft.Verdict.REJECTED),
    (Draft.Status.GATED, Draft.Verdict.NO_SUBSTANCE),
    (Draft.Status.APPROVED, Draft.Verdict.PASSED),
    (Draft.Status.REJECTED, Draft.Verdict.PASSED),
    (Draft.Status.REJECTED, Draft.Verdict.REJECTED),
]


def test_the_query_and_the_row_agree_on_every_state(account: Account) -> None:
    drafts = []
    for n, (status, verdict) in enumerate(STATES):
        article = factories.article_create(url=f"https://news.example/states/{n}")
        drafts.append(factories.draft_create(account=account, article=article, status=status, gate_verdict=verdict))

    awaiting = set(drafts_awaiting_approval(account=account))
    held_back = set(drafts_held_back(account=account))

    assert awaiting == {d for d in drafts if d.is_awaiting_approval}
    assert held_back == {d for d in drafts if d.is_held_back}
    assert [(d.status, d.gate_verdict) for d in awaiting] == [(Draft.Status.GATED, Draft.Verdict.PASSED)]
    assert len(held_back) == 2


def test_another_accounts_drafts_are_not_awaiting_here(account: Account, other_account: Account) -> None:
    factories.draft_create(account=other_account)

    assert list(drafts_awaiting_approval(account=account)) == []
    assert Draft.objects.awaiting_approval().count() == 1
