"""Issue 9: the gate on drafts written the way customers and models write them.

Each case below is one of the failures the issue lists under "What goes wrong today", on an
article written for this test: true drafts the gate used to hold back, and false ones it
used to pass or skip.
"""

from __future__ import annotations

import re

import pytest

from posting.gate.core import CLAIM, NOT_CHECKED, gate_evaluate
from posting.gate.evaluation import SPLIT_CHOICES, labelled_set_load

TITLE = "Evergreen HiFi unveils new speaker line"
BODY = """Evergreen HiFi, the Seattle audio shop, showed 14 prototype cabinets at the Harbor Sound event on Saturday.
Each cabinet carries a 10-year warranty, and the flagship small-room model costs $8,400.
Owner Marta Lind said the cabinets are built in Tacoma from reclaimed maple and come with a cloth grill.
Rosa Delgado joined the shop as a sales assistant in 2017 and now runs its workshop.
On February 1 she will be promoted to head of design.
Sales of turntables were about 14% lower than last year, Lind said.
The shop will also add 40 seats to its listening room, which it rents to local bands.
Spokewright, the bicycle maker next door, is opening a new e-bike center in March.
The shop's researchers said the new cabinets could cut distortion by a third."""


def gate(text: str):
    return gate_evaluate(text=text, title=TITLE, body=BODY, own_names=["Northside Sound", "@northsidesound"])


@pytest.mark.parametrize(
    "draft",
    [
        # numbers written as words or differently
        "Fourteen prototype cabinets and a ten-year warranty.",
        "The small-room model costs $8.4k.",
        "Forty more seats are coming to the listening room.",
        # a capitalised sentence opener is not a name
        "Coming from Seattle, Evergreen HiFi showed 14 prototype cabinets.",
        "Plus 40 more seats in the listening room.",
        "Big news: Evergreen HiFi showed 14 prototype cabinets.",
        "Coming soon: 40 more seats in the listening room.",
        # possessives and reordering are not role swaps
        "Seattle's Evergreen HiFi showed 14 prototype cabinets at the Harbor Sound event.",
        "Spokewright's new e-bike center opens in March.",
        # an ordinary verb is not a superlative
        "Rosa Delgado first joined the shop in 2017.",
        # a relative date the article also uses
        "Turntable sales were about 14% less than last year.",
        # a light paraphrase
        "On February 1 she steps up to head of design.",
    ],
)
def test_a_true_draft_written_differently_passes(draft: str) -> None:
    result = gate(draft)

    assert result.verdict == "passed", [claim.reason for claim in result.claims]


@pytest.mark.parametrize(
    ("draft", "why"),
    [
        # short invented sentences with no number or name are claims, and checked
        ("The cabinets were recalled.", 'never mentions "recalled"'),
        ("The maple is poisonous.", 'never mentions "poisonous"'),
        ("Lind was fired.", 'never mentions "fired"'),
        # one changed content word
        ("The flagship large-room model costs $8,400.", '"large" where it has "small"'),
        ("The cabinets come with a cloth oven.", '"grill", not "oven"'),
        ("The shop will also add 40 seats to its listening room, which it sells to local bands.", '"rents"'),
        ("Researchers now say the cabinets can read.", "read"),
        ("Owner Marta Lind said the cabinets are painted in Tacoma.", '"built", not "painted"'),
    ],
)
def test_a_false_draft_is_held_back_and_the_reason_quotes_the_article(draft: str, why: str) -> None:
    result = gate(draft)

    assert result.verdict == "rejected"
    (claim,) = [claim for claim in result.claims if claim.sentence_class == CLAIM]
    assert why in claim.reason
    assert "Nearest sentence in the article:" in claim.reason


def test_one_true_sentence_no_longer_carries_a_short_invented_one() -> None:
    result = gate("Evergreen HiFi showed 14 prototype cabinets at the Harbor Sound event. The cabinets were recalled.")

    assert result.verdict == "rejected"
    assert [claim.supported for claim in result.claims] == [True, False]


def test_every_sentence_of_a_draft_is_listed_with_its_class_in_order() -> None:
    draft = (
        "Hi everyone! Big news 🎉 Evergreen HiFi showed 14 prototype cabinets. Who's going to hear them? "
        "Pop in and say hello. We love what we do. Sun, sea and sound. Thanks, Northside Sound "
        "#hifi @evergreenhifi"
    )

    result = gate(draft)

    assert [(claim.sentence_class, claim.text) for claim in result.claims] == [
        ("greeting", "Hi everyone!"),
        ("exclamation", "Big news 🎉"),
        (CLAIM, "Evergreen HiFi showed 14 prototype cabinets."),
        ("question", "Who's going to hear them?"),
        ("call_to_action", "Pop in and say hello."),
        ("own_words", "We love what we do."),
        ("exclamation", "Sun, sea and sound."),
        ("sign_off", "Thanks, Northside Sound"),
        ("hashtags", "#hifi @evergreenhifi"),
    ]
    assert result.verdict == "passed"
    not_checked = [claim for claim in result.claims if claim.sentence_class != CLAIM]
    assert all(claim.supported and claim.evidence == [] for claim in not_checked)
    assert [claim.reason for claim in not_checked] == [NOT_CHECKED[claim.sentence_class] for claim in not_checked]
    assert result.claims[2].as_dict()["class"] == "claim"


def test_a_draft_of_only_sentences_that_are_not_claims_has_no_substance_and_lists_them() -> None:
    result = gate("Turn it up this weekend! 🎶 What's on your turntable? #vinyl")

    assert result.verdict == "no_substance"
    assert [claim.sentence_class for claim in result.claims] == ["call_to_action", "question", "hashtags"]


# Words a customer should never have to decode in a reason.
JARGON = re.compile(
    r"roles swapped|evidence|superlative|judge:|token|coverage|\bstems?\b|\bonly \d+ of \d+|not in the article's words",
    re.IGNORECASE,
)


@pytest.mark.parametrize("split", SPLIT_CHOICES)
def test_no_reason_on_any_labelled_set_uses_internal_jargon(split: str) -> None:
    offenders: list[str] = []
    for article in labelled_set_load(split=split):
        drafts = [claim.text for claim in article.claims] + [post.text for post in article.posts]
        for draft in drafts:
            result = gate_evaluate(text=draft, title=article.title, body=article.body, own_names=article.own_names)
            for claim in result.claims:
                if claim.sentence_class == CLAIM and not claim.supported:
                    assert claim.reason.startswith(("The article", 'In "', "This is about the business"))
                # The gate's own words: not the article sentence it quotes, nor quoted draft words.
                own_words = re.sub(r'"[^"]*"', "", claim.reason.split("Nearest sentence in the article:")[0])
                if JARGON.search(own_words):
                    offenders.append(f"{article.name}: {claim.reason}")

    assert offenders == []
