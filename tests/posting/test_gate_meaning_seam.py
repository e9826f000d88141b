"""The one place a meaning layer may act on the factual gate (``core._settle_by_meaning``).

Issue 9, session 6 (scripts/gate_semantic_probe.py, docs/BENCHMARKS.md): the bundled sentence
model could not tell the gate's false vetoes from its true ones, so the seam settles nothing and
the gate is the lexical gate, with or without the model. What these tests hold is the seam's
contract for whatever fills it next (an entailment model, a judge): it sees only claims held by
their wording alone, with the word pair or the uncovered words that held them, and never a claim
a hard check vetoed (a number, a negation), nor one the article has nothing like.

The article and the drafts are made up for these tests.
"""

from __future__ import annotations

from typing import Any

import pytest

from posting import semantic
from posting.gate import core
from posting.gate.core import PASSED, REJECTED, ClaimResult, GateResult, gate_evaluate

TITLE = "Hillside museum reopens after repairs"
BODY = """Hillside Museum reopened on Saturday after a year of roof repairs.
The museum welcomed 4,000 people on its open day, the curator said.
Entry stays free for children under 12."""
OWN_NAMES = ["Hillside Traders"]


def gate(text: str) -> GateResult:
    return gate_evaluate(text=text, title=TITLE, body=BODY, own_names=OWN_NAMES)


@pytest.fixture
def seam(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Record what reaches the seam; the lexical verdict stands."""
    calls: list[dict[str, Any]] = []

    def record(claim: core.Claim, source: core.SourceText, open_failures: list[Any]) -> None:
        candidate, failure = open_failures[0]
        calls.append(
            {
                "claim": claim.text,
                "swap": (failure.swap[0].raw, failure.swap[1].raw) if failure.swap else None,
                "uncovered": [token.raw for token in failure.uncovered],
                "evidence": [source.sentences[index] for index in candidate.indexes],
            }
        )
        return None

    monkeypatch.setattr(core, "_settle_by_meaning", record)
    return calls


def test_a_word_in_another_words_slot_reaches_the_seam_with_its_pair(seam: list[dict[str, Any]]) -> None:
    result = gate("The museum welcomed 4,000 visitors on its open day.")
    assert result.verdict == REJECTED
    assert result.claims[0].reason.startswith('The article says "people", not "visitors".')
    assert seam == [
        {
            "claim": "The museum welcomed 4,000 visitors on its open day.",
            "swap": ("visitors", "people"),
            "uncovered": ["visitors"],
            "evidence": ["The museum welcomed 4,000 people on its open day, the curator said."],
        }
    ]


@pytest.mark.parametrize(
    "draft",
    [
        "The museum welcomed 4,500 people on its open day.",  # a number the article lacks
        "The museum did not welcome 4,000 people on its open day.",  # a negation
        "The gift shop sells local honey and postcards.",  # nothing in the article like it
        "The museum welcomed 4,000 people on its open day.",  # supported: nothing to settle
    ],
)
def test_what_the_hard_checks_settle_never_reaches_the_seam(seam: list[dict[str, Any]], draft: str) -> None:
    gate(draft)
    assert seam == []


def test_what_the_seam_settles_is_the_claims_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    def settle(claim: core.Claim, source: core.SourceText, open_failures: list[Any]) -> ClaimResult:
        candidate, _ = open_failures[0]
        return ClaimResult(
            text=claim.text,
            supported=True,
            evidence=core._evidence(source, candidate.indexes),
            reason="Supported by the cited sentences (the same meaning in other words).",
        )

    monkeypatch.setattr(core, "_settle_by_meaning", settle)
    assert gate("The museum welcomed 4,000 visitors on its open day.").verdict == PASSED
    # A number the article lacks is still held: the seam is never asked.
    assert gate("The museum welcomed 4,500 visitors on its open day.").verdict == REJECTED


@pytest.mark.parametrize("model_present", [True, False])
def test_the_gate_is_the_lexical_gate_with_or_without_the_model(
    monkeypatch: pytest.MonkeyPatch, model_present: bool
) -> None:
    if not model_present:
        monkeypatch.setattr(semantic, "_model", None)
        monkeypatch.setattr(semantic, "PACKAGE", "no_such_model_package")
        assert semantic.available() is False
    else:
        assert semantic.available() is True
    assert gate("The museum welcomed 4,000 visitors on its open day.").verdict == REJECTED
    assert gate("The museum welcomed 4,000 people on its open day.").verdict == PASSED
