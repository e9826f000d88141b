"""The factual gate's judgement, as pure functions: no database, no network."""

from __future__ import annotations

import pytest

from posting.gate.core import gate_evaluate, sentences_split, tokenize

TITLE = "Council approves Harbour Road cycle lane"
BODY = """The city council on Tuesday approved a £3.5bn transport plan that includes a cycle lane along Harbour Road.
The lane will run 2.4 miles from the ferry terminal to Riverside Park and is due to open on Oct. 3, 2025.
Councillor Jane Moss said the scheme would cut car journeys in the area by 20%.
Local shop owners did not support the plan at first, fearing the loss of parking.
The bike maker Trek sponsored the consultation, and Giant supplied 40 loan bikes for the trial.
During the trial the number of cyclists on Harbour Road rose from 900 to 1,400 a day.
Residents voted 7-2 in favour at a public meeting."""
OWN_NAMES = ["Harbour Bikes", "@harbourbikes"]


def gate(text: str, **kwargs: object):
    kwargs.setdefault("own_names", OWN_NAMES)
    return gate_evaluate(text=text, title=TITLE, body=BODY, **kwargs)  # type: ignore[arg-type]


def norms(text: str) -> set[str]:
    return {token.norm for token in tokenize(text)}


def test_it_normalises_magnitudes_percentages_and_month_abbreviations() -> None:
    assert norms("3.5bn") & norms("3,500,000,000") == {"3500000000"}
    assert norms("$3.5 billion") & norms("3500000000") == {"3500000000"}
    assert norms("20%") == norms("20 percent") == norms("20 per cent")
    assert "october" in norms("Oct. 3") and "october_3" in norms("3 October")


def test_a_claim_quoted_from_the_body_passes_with_its_evidence_sentence() -> None:
    result = gate("The lane will run 2.4 miles from the ferry terminal to Riverside Park.")

    assert result.verdict == "passed"
    (claim,) = result.claims
    assert claim.supported
    assert claim.evidence == [{"sentence": 2, "text": sentences_split(BODY)[1]}]


def test_a_trimmed_quote_with_a_normalised_number_passes() -> None:
    assert gate("The council approved a £3,500,000,000 transport plan.").verdict == "passed"
    assert gate("The lane is due to open on 3 October 2025.").verdict == "passed"


def test_a_claim_supported_only_by_the_body_passes_but_the_headline_alone_would_reject_it() -> None:
    # given a claim whose facts are in the article's body and not in its headline
    claim = "Giant supplied 40 loan bikes for the trial."

    # when the gate reads the full text, and when it is fed only the headline
    full = gate_evaluate(text=claim, title=TITLE, body=BODY)
    headline_only = gate_evaluate(text=claim, title="", body=TITLE)

    # then the full text supports it and the headline alone could not
    assert full.verdict == "passed"
    assert headline_only.verdict == "rejected"


def test_hashtags_calls_to_action_and_own_names_are_not_claims() -> None:
    text = (
        "Big day for riders! 🚲 Giant supplied 40 loan bikes for the trial.\n"
        "Read more: https://example.com/lane\nWhat do you think? Link in bio. "
        "Visit Harbour Bikes today! #cycling #harbourbikes @harbourbikes"
    )

    result = gate(text)

    assert result.verdict == "passed"
    assert [(claim.sentence_class, claim.text) for claim in result.claims] == [
        ("exclamation", "Big day for riders! 🚲"),
        ("claim", "Giant supplied 40 loan bikes for the trial."),
        ("call_to_action", "Read more: https://example.com/lane"),
        ("question", "What do you think?"),
        ("call_to_action", "Link in bio."),
        ("call_to_action", "Visit Harbour Bikes today!"),
        ("hashtags", "#cycling #harbourbikes @harbourbikes"),
    ]
    assert result.claims[2].reason == "Not checked: a call to action."
    assert all(claim.supported and claim.evidence == [] for claim in result.claims if claim.sentence_class != "claim")


@pytest.mark.parametrize(
    "text",
    [
        "Near the ferry terminal the lane will run alongside the water.",
        "Round the park the lane will run on the old towpath.",
        "Up the hill from Riverside Park the lane will carry on as a shared path.",
    ],
)
def test_a_sentence_opening_with_a_place_is_a_claim_not_an_order(text: str) -> None:
    """ "Near", "round" and "up" are verbs too ("to near the shore"); at a sentence's start they name a
    place, and what follows is the article's fact to check (a drafted sea-kayak post held "Near the
    beach the water can look calm..." as a call to action, leaving it nothing checkable)."""
    result = gate(text)

    assert [claim.sentence_class for claim in result.claims] == ["claim"]


@pytest.mark.parametrize("text", ["#bike #lanes 🚲", "#bike 🚲 #lanes", "🚲 #bike #lanes"])
def test_tags_with_the_business_emoji_among_them_are_tags_not_a_claim(text: str) -> None:
    """Instagram captions end "#fish #chips 🐟": words the article uses, but a line of tags, not a
    claim the article has to support."""
    result = gate(text)

    assert result.verdict == "no_substance"
    assert {claim.sentence_class for claim in result.claims} <= {"hashtags", "emoji"}
    assert "hashtags" in {claim.sentence_class for claim in result.claims}


@pytest.mark.parametrize(
    "text",
    [
        "Big news, stay tuned! 🚲 #cycling",
        "What do you think? 🤔",
        "Happy riding! #harbourbikes",
    ],
)
def test_a_post_with_nothing_checkable_has_no_substance(text: str) -> None:
    result = gate(text)

    assert result.verdict == "no_substance"
    assert result.claims and all(claim.sentence_class != "claim" for claim in result.claims)
    assert all(claim.reason.startswith("Not checked: ") for claim in result.claims)


@pytest.mark.parametrize(
    ("claim", "why"),
    [
        ("The council approved a £4.5bn transport plan.", "4,500,000,000"),
        ("The lane is due to open on Oct. 5, 2025.", "date"),
        ("Trek supplied 40 loan bikes for the trial.", "Giant"),
        ("Local shop owners supported the plan from the start.", "opposite"),
        ("During the trial the number of cyclists rose from 1,400 to 900 a day.", "other way round"),
        ("It will be the longest cycle lane in the country.", "longest"),
        ("The lane will be lit by solar-powered street lights at night.", 'never mentions "lit"'),
        ("We at Harbour Bikes have 20 years of experience.", "about the business"),
        ("We at Harbour Bikes have 25 years of experience.", "25"),
        ("Harbour Bikes will service the loan bikes for free.", "about the business"),
        ("Residents voted 2-7 against the plan at a public meeting.", "2-7"),
        ("The number of cyclists on Harbour Road fell during the trial.", "opposite"),
    ],
)
def test_it_rejects_an_unsupported_claim_and_says_why(claim: str, why: str) -> None:
    result = gate(claim)

    assert result.verdict == "rejected"
    assert not result.claims[0].supported
    assert why in result.claims[0].reason
    assert why in result.reason or "not supported" in result.reason


def test_one_bad_claim_rejects_the_draft_and_the_good_ones_keep_their_evidence() -> None:
    result = gate("Giant supplied 40 loan bikes for the trial. The lane will open on Oct. 9, 2025.")

    assert result.verdict == "rejected"
    assert [claim.supported for claim in result.claims] == [True, False]
    assert result.claims[0].evidence[0]["sentence"] == 5


def test_an_empty_article_rejects_every_claim() -> None:
    result = gate_evaluate(text="Giant supplied 40 loan bikes for the trial.", title=TITLE, body="")

    assert result.verdict == "rejected"
    assert "no text" in result.claims[0].reason


def test_the_judge_decides_a_paraphrase_but_never_overrides_the_hard_veto() -> None:
    calls: list[tuple[str, list[str]]] = []

    def judge(claim: str, evidence: list[str]) -> tuple[bool, str]:
        calls.append((claim, evidence))
        return True, "paraphrase of the evidence"

    paraphrase = gate("Moss believes the scheme will mean fewer car trips around here.", judge=judge)
    wrong_number = gate("The council approved a £9bn transport plan.", judge=judge)

    assert paraphrase.verdict == "passed"
    assert calls and calls[0][1] == [sentences_split(BODY)[2]]
    assert wrong_number.verdict == "rejected"
    assert len(calls) == 1  # the vetoed claim never reached the judge


def test_a_judge_that_says_no_rejects_and_a_broken_judge_leaves_the_gates_own_checks() -> None:
    def skeptic(claim: str, evidence: list[str]) -> tuple[bool, str]:
        return False, "the evidence says something else"

    def broken(claim: str, evidence: list[str]) -> tuple[bool, str]:
        raise TimeoutError("model did not answer")

    quote = "Giant supplied 40 loan bikes for the trial."
    paraphrase = "Moss believes the scheme will mean fewer car trips around here."

    # The judge is asked only about what the gate's own checks cannot settle: a paraphrase.
    assert "something else" in gate(paraphrase, judge=skeptic).claims[0].reason
    assert gate(quote, judge=skeptic).verdict == "passed"
    assert gate(quote, judge=broken).verdict == "passed"
    assert gate(paraphrase, judge=broken).verdict == "rejected"


def test_sentences_split_keeps_abbreviations_and_decimals_inside_a_sentence() -> None:
    text = "Dr. Moss met Mr. Lee on Oct. 3 in the U.S. office. It cost $3.5m. Sales rose 2.1% in 2024!\nNew paragraph"

    assert sentences_split(text) == [
        "Dr. Moss met Mr. Lee on Oct. 3 in the U.S. office.",
        "It cost $3.5m.",
        "Sales rose 2.1% in 2024!",
        "New paragraph",
    ]


def test_a_learned_sign_off_is_not_a_claim_unless_it_runs_on_inside_a_sentence() -> None:
    sign_offs = ["See you at the shop, Dave"]
    claim = "Giant supplied 40 loan bikes for the trial."

    signed = gate(f"{claim}\n\nSEE YOU AT THE SHOP, DAVE 🚲", sign_offs=sign_offs)
    run_on = gate("Giant said see you at the shop, Dave, to 40 riders.", sign_offs=sign_offs)

    assert signed.verdict == "passed"
    assert [(result.sentence_class, result.text) for result in signed.claims] == [
        ("claim", claim),
        ("sign_off", "SEE YOU AT THE SHOP, DAVE"),
        ("emoji", "🚲"),
    ]
    assert run_on.verdict == "rejected"


@pytest.mark.parametrize(
    "claim",
    [
        "We supplied 40 loan bikes for the trial.",
        "Harbour Bikes supplied 40 loan bikes for the trial.",
        "At Harbour Bikes we supplied 40 loan bikes for the trial.",
    ],
)
def test_the_business_cannot_take_credit_for_a_fact_of_an_article_that_never_names_it(claim: str) -> None:
    # The article says Giant supplied them; every word of the claim is in that sentence.
    always_yes = gate(claim, judge=lambda claim, evidence: (True, "looks supported"))

    assert gate(claim).verdict == "rejected"
    assert "never mentions the business" in gate(claim).claims[0].reason
    assert always_yes.verdict == "rejected"


def test_a_fact_about_the_business_passes_when_the_article_is_about_the_business() -> None:
    body = "Harbour Bikes supplied 40 loan bikes for the trial, the council said."

    result = gate_evaluate(text="We supplied 40 loan bikes for the trial.", title=TITLE, body=body, own_names=OWN_NAMES)

    assert result.verdict == "passed"
