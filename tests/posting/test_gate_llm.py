"""The gate's LLM judge through the real ``openai`` client against a local chat-completions server."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from accounts.models import Account
from posting.gate.services import draft_gate
from posting.llm import JUDGE_PROMPT_VERSION
from posting.models import Draft, LLMUsage
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
    llm.script(Reply.ok({"verdict": "supported", "sentences": [3], "reason": "Restates sentence 3."}))
    draft = drafted(account, PARAPHRASE)

    gated = draft_gate(draft_id=draft.pk)

    assert gated.gate_verdict == Draft.Verdict.PASSED
    (request,) = llm.requests
    prompt = request.body["messages"][-1]["content"]
    assert PARAPHRASE in prompt
    assert "[3] Owner Jane Smith said demand rose 20 percent in 2025" in prompt
    # Structured output: the verdict is one of three, with the sentence numbers relied on.
    schema = request.body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["verdict"]["enum"] == ["supported", "contradicted", "not_stated"]
    assert schema["required"] == ["verdict", "sentences", "reason"]
    assert LLMUsage.objects.get().purpose == "gate_judge"
    (claim,) = gated.gate_claims
    assert claim["evidence"] == [{"sentence": 3, "text": BODY.splitlines()[2]}]
    assert claim["judge"] == {
        "prompt_version": JUDGE_PROMPT_VERSION,
        "verdict": "supported",
        "sentences": [3],
        "reason": "Restates sentence 3.",
    }


@pytest.mark.django_db
def test_the_judge_can_reject_and_its_reason_is_kept(llm: LLMServer, account: Account) -> None:
    llm.script(
        Reply.ok({"verdict": "not_stated", "sentences": [3], "reason": "The article gives no comparison with before."})
    )
    draft = drafted(account, PARAPHRASE)

    gated = draft_gate(draft_id=draft.pk)

    assert gated.gate_verdict == Draft.Verdict.REJECTED
    reason = gated.gate_claims[0]["reason"]
    assert reason.startswith("The article doesn't say this: The article gives no comparison with before.")
    assert 'Nearest sentence in the article: "Owner Jane Smith said demand rose 20 percent' in reason


@pytest.mark.django_db
def test_a_contradiction_found_by_the_judge_holds_the_draft_back(llm: LLMServer, account: Account) -> None:
    llm.script(Reply.ok({"verdict": "contradicted", "sentences": [3], "reason": "Demand rose, it did not fall."}))
    draft = drafted(account, "Jane Smith told reporters that shoppers wanted fewer electric cargo bikes than before.")

    gated = draft_gate(draft_id=draft.pk)

    assert gated.gate_verdict == Draft.Verdict.REJECTED
    assert gated.gate_claims[0]["reason"].startswith("The article contradicts this: Demand rose, it did not fall.")
    assert gated.gate_claims[0]["judge"]["verdict"] == "contradicted"


@pytest.mark.django_db
def test_a_wrong_number_is_vetoed_without_asking_the_model(llm: LLMServer, account: Account) -> None:
    llm.script(Reply.ok({"verdict": "supported", "sentences": [2], "reason": "Looks fine."}))
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
    llm.script(Reply.slow(0.3, {"verdict": "supported", "sentences": [3], "reason": "Restates sentence 3."}))
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


@pytest.mark.django_db
def test_a_supported_answer_citing_a_sentence_without_the_claims_number_is_vetoed(
    llm: LLMServer, account: Account
) -> None:
    # given a paraphrase the gate cannot settle alone, and a model that says "supported"
    # citing the mechanics sentence, which has no 20 percent and no Jane Smith
    llm.script(Reply.ok({"verdict": "supported", "sentences": [2], "reason": "Sentence 2 says so."}))
    draft = drafted(account, "Jane Smith said shoppers wanted 20 percent more electric cargo bikes in 2025.")

    gated = draft_gate(draft_id=draft.pk)

    # then the hard check on numbers and names still vetoes it
    assert len(llm.requests) == 1
    assert gated.gate_verdict == Draft.Verdict.REJECTED
    claim = gated.gate_claims[0]
    assert claim["reason"].startswith("The article doesn't mention")
    assert claim["judge"]["vetoed"] is True
    assert claim["evidence"] == [{"sentence": 2, "text": BODY.splitlines()[1]}]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("reply", "recorded"),
    [
        (Reply.ok({"verdict": "supported", "sentences": [99], "reason": "See sentence 99."}), "cited sentence 99"),
        (Reply.ok('{"verdict": "supported", "sentences": [3'), "no usable answer"),
        (Reply.ok({"verdict": "probably", "sentences": [3], "reason": "Hmm."}), "no usable answer"),
    ],
)
def test_an_answer_the_gate_cannot_use_leaves_its_own_verdict_and_is_recorded(
    llm: LLMServer, account: Account, reply: Reply, recorded: str
) -> None:
    llm.script(reply)
    draft = drafted(account, PARAPHRASE)

    gated = draft_gate(draft_id=draft.pk)

    # The gate's own checks could not support the paraphrase: held back, never passed on a bad answer.
    assert gated.gate_verdict == Draft.Verdict.REJECTED
    claim = gated.gate_claims[0]
    assert claim["judge"]["prompt_version"] == JUDGE_PROMPT_VERSION
    assert "no usable answer" in claim["judge"]["error"]
    assert LLMUsage.objects.get().status == LLMUsage.Status.MALFORMED
    assert recorded in claim["judge"]["error"] or recorded in LLMUsage.objects.get().detail


def test_gate_eval_with_judge_and_no_key_says_what_is_missing(settings) -> None:
    settings.OPENAI_API_KEY = ""

    with pytest.raises(CommandError, match="--judge needs a language model: set OPENAI_API_KEY"):
        call_command("gate_eval", "--split", "style", "--judge")


@pytest.mark.django_db
def test_gate_eval_with_judge_scores_the_judged_gate_against_the_endpoint(
    llm: LLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # given a one-article set and a model that answers "not stated" to everything
    split = tmp_path / "dev"
    split.mkdir()
    (split / "01-shop.txt").write_text(
        f"title: {TITLE}\nown_names: Harbour Bikes\n\n{BODY}\n\n== claims\n"
        f"ok para | {PARAPHRASE}\nnumber | The new shop employs 15 mechanics.\n",
        encoding="utf-8",
    )
    llm.script(Reply.ok({"verdict": "not_stated", "sentences": [3], "reason": "Not said."}))

    # when gate_eval scores it with the judge
    with pytest.raises(CommandError):
        call_command("gate_eval", "--split", "dev", "--data-dir", str(tmp_path), "--judge", "--json")

    # then the judged gate has its own column, and the model was asked only about the paraphrase
    printed = json.loads(capsys.readouterr().out)
    scores = printed["splits"]["dev"]
    assert set(scores) >= {"gate", "gate_judge"}
    assert scores["gate_judge"]["by_error_kind"] == {"number": 1.0}
    assert len(llm.requests) == 1
