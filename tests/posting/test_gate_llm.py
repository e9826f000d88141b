"""The gate's LLM judge through the real ``openai`` client against a local chat-completions server."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from django.db import connection

from posting.gate.services import draft_gate
from posting.models import Account, Draft, LLMUsage
from tests import factories
from tests.llm_server import LLMServer, Reply, serve_llm

TITLE = "Harbour Bikes opens a second shop"
BODY = (
    "The cycle retailer opened a second shop in Leith on Monday, its owner said.\n"
    "The new shop employs 12 mechanics and stocks 400 bicycles.\n"
    "Owner Jane Smith said demand rose 20 percent in 2025, mostly for electric cargo bikes."
)
# Same facts, other words: the gate's own word overlap is not enough, so the judge decides.
PARAPHRASE = "Jane Smith told reporters that shoppers wanted far more electric cargo bikes than before."


@pytest.fixture
def llm(settings) -> Iterator[LLMServer]:
    yield from serve_llm(settings, timeout_s=0.5, max_retries=1)


def drafted(account: Account, text: str) -> Draft:
    article = factories.article_create(url="https://news.example/second-shop", title=TITLE, text=BODY)
    return factories.draft_create(account=account, article=article, text=text, status="drafted", gate_verdict="")


@pytest.mark.django_db
def test_with_a_key_the_judge_decides_a_paraphrase_from_the_evidence_sentences(
    llm: LLMServer, account: Account
) -> None:
    llm.script(Reply.ok({"supported": True, "reason": "Restates sentence 3."}))
    draft = drafted(account, PARAPHRASE)

    gated = draft_gate(draft_id=draft.pk)

    assert gated.gate_verdict == Draft.Verdict.PASSED
    (request,) = llm.requests
    prompt = request.body["messages"][-1]["content"]
    assert PARAPHRASE in prompt
    assert "demand rose 20 percent in 2025" in prompt
    assert LLMUsage.objects.get().purpose == "gate_judge"


@pytest.mark.django_db
def test_the_judge_can_reject_and_its_reason_is_kept(llm: LLMServer, account: Account) -> None:
    llm.script(Reply.ok({"supported": False, "reason": "The article gives no comparison with before."}))
    draft = drafted(account, PARAPHRASE)

    gated = draft_gate(draft_id=draft.pk)

    assert gated.gate_verdict == Draft.Verdict.REJECTED
    assert "no comparison with before" in gated.gate_claims[0]["reason"]


@pytest.mark.django_db
def test_a_wrong_number_is_vetoed_without_asking_the_model(llm: LLMServer, account: Account) -> None:
    llm.script(Reply.ok({"supported": True, "reason": "Looks fine."}))
    draft = drafted(account, "The new shop employs 15 mechanics and stocks 400 bicycles.")

    gated = draft_gate(draft_id=draft.pk)

    assert gated.gate_verdict == Draft.Verdict.REJECTED
    assert llm.requests == []


@pytest.mark.django_db
@pytest.mark.parametrize("reply", [Reply.throttled(), Reply.garbage_body(), Reply.refusal()])
def test_a_failing_model_leaves_the_gates_own_checks_in_charge(llm: LLMServer, account: Account, reply: Reply) -> None:
    llm.script(reply)
    quote = drafted(account, "Owner Jane Smith said demand rose 20 percent in 2025.")

    gated = draft_gate(draft_id=quote.pk)

    # The quote is covered word for word, so the gate passes it on its own checks; the
    # paraphrase it could not judge alone would have been rejected, never passed.
    assert gated.status == Draft.Status.GATED
    assert gated.gate_verdict == Draft.Verdict.PASSED


@pytest.mark.django_db(transaction=True)
def test_an_edit_made_while_the_model_judges_is_never_stamped_with_the_old_verdict(
    llm: LLMServer, account: Account
) -> None:
    # given a judge that takes a moment, and a customer who edits the draft meanwhile
    llm.script(Reply.slow(0.3, {"supported": True, "reason": "Restates sentence 3."}))
    draft = drafted(account, PARAPHRASE)

    def customer_edits() -> None:
        try:
            deadline = time.monotonic() + 5
            while not llm.requests and time.monotonic() < deadline:
                time.sleep(0.01)
            Draft.objects.filter(pk=draft.pk).update(text="Demand rose 90 percent in 2025.")
        finally:
            connection.close()

    editor = threading.Thread(target=customer_edits)
    editor.start()

    # when the gate finishes judging the old text
    gated = draft_gate(draft_id=draft.pk)
    editor.join()

    # then the verdict for the old text is dropped; the new text waits for its own gating
    assert gated.status == Draft.Status.DRAFTED
    assert gated.text == "Demand rose 90 percent in 2025."
    assert gated.gate_verdict == ""
    assert draft_gate(draft_id=draft.pk).gate_verdict == Draft.Verdict.REJECTED
