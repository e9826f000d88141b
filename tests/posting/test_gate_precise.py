"""Issue 9, second round: the gate's checks are precise rather than strict.

A true draft written freely (reordered, with a possessive, numbers said the way people say
them, the business speaking as "we" about its own news, a signature after a dash) passes;
the false draft that differs from it in one checkable way is still held back. Each pair
below is one rule: the first draft would be held back by the rule written loosely, the
second must still be caught by it.
"""

from __future__ import annotations

import pytest

from posting.gate.core import CLAIM, PASSED, REJECTED, gate_evaluate

TITLE = "Hollow Oak Bakery doubles rye production after award"
BODY = """Hollow Oak Bakery in Riverside has doubled its rye production since its sourdough rye won the \
Northern Bread Awards in March.
The bakery now bakes 600 loaves a day, up from 300 last year, and has hired three new bakers.
The rye is made with flour from Millbrook Farm, eight miles away, and is proved for 36 hours.
Owner Priya Nair said the bakery will open a second shop on Station Road in the autumn, open from 7 to 9pm on Fridays.
The new shop will sell bread, pastries and coffee but will not have a kitchen.
The bakery gives its unsold loaves to the Riverside food bank every evening.
Three families have moved off the estate next door since the old bakery closed in 2019.
About 9,000 customers signed the bakery's birthday card last year.
This is the bakery's 10th year in Riverside, and half a million loaves have left its ovens."""

OWN = ["Hollow Oak Bakery", "@hollowoak"]


def verdict(text: str, own_names: list[str] | None = None) -> str:
    return gate_evaluate(text=text, title=TITLE, body=BODY, own_names=own_names or []).verdict


@pytest.mark.parametrize(
    ("honest", "false"),
    [
        # Role swaps turn on a verb: a reordered phrase around a noun is not one.
        (
            "Since March, production of rye has doubled at Hollow Oak Bakery.",
            "Millbrook Farm bakes 600 loaves a day for Hollow Oak Bakery.",
        ),
        # A hyphenated modifier ("award-winning") is not a subject and its verb.
        (
            "Award-winning rye! Hollow Oak Bakery has doubled its rye production.",
            "The bakery gives its unsold loaves to the Riverside food bank every morning.",
        ),
        # A word the WordNet table gives for the article's ("donates" for "gives") is not a swap;
        # a verb of the same family that differs in fact ("sells") is.
        (
            "Every evening the bakery donates its unsold loaves to the Riverside food bank.",
            "Every evening the bakery sells its unsold loaves to the Riverside food bank.",
        ),
        # Numbers as people say them: "9k", "7 to 9pm"; a different number is still caught.
        (
            "About 9k customers signed the bakery's birthday card last year.",
            "About 8k customers signed the bakery's birthday card last year.",
        ),
        # Prepositions of opposite direction between the same words.
        (
            "Three families have moved off the estate next door since 2019.",
            "Three families have moved to the estate next door since 2019.",
        ),
        # "retest"-like words are not superlatives; an invented superlative still is.
        (
            "The rye is proved for 36 hours with flour from Millbrook Farm.",
            "The rye is proved for 36 hours with the finest flour from Millbrook Farm.",
        ),
    ],
)
def test_a_free_paraphrase_passes_and_its_one_word_change_is_caught(honest: str, false: str) -> None:
    assert verdict(honest) == PASSED, gate_evaluate(text=honest, title=TITLE, body=BODY).reason
    assert verdict(false) == REJECTED


def test_the_article_s_own_business_speaking_as_we_is_checked_like_any_claim() -> None:
    # The article is about Hollow Oak, so "we" is its subject: a paraphrase passes...
    assert verdict("We've taken on three new bakers and now bake 600 loaves a day.", OWN) == PASSED
    # ...and a changed fact about it is still held back.
    assert verdict("We've taken on five new bakers and now bake 600 loaves a day.", OWN) == REJECTED


def test_a_signature_after_a_dash_is_the_business_s_sign_off_not_a_claim() -> None:
    result = gate_evaluate(
        text="The bakery now bakes 600 loaves a day. — Priya and the Hollow Oak team",
        title=TITLE,
        body=BODY,
        own_names=OWN,
    )
    assert result.verdict == PASSED
    assert [claim.sentence_class for claim in result.claims] == [CLAIM, "sign_off"]
    # A dash followed by a statement is not a signature.
    assert verdict("The bakery now bakes 600 loaves a day — up from 100 last year.") == REJECTED


@pytest.mark.parametrize(
    "line",
    ["Neighbours have complained about the smell.", "Evening classes start in the new shop."],
)
def test_a_word_that_greets_only_greets_when_it_stands_alone(line: str) -> None:
    result = gate_evaluate(text=line, title=TITLE, body=BODY)
    assert result.claims[0].sentence_class == CLAIM
    assert result.verdict == REJECTED


def test_a_greeting_a_trailing_call_to_action_and_an_aside_are_not_claims() -> None:
    result = gate_evaluate(
        text="Olá, Riverside! The new shop will sell bread, pastries (and coffee!) but will not have a kitchen, "
        "so come and see us.",
        title=TITLE,
        body=BODY,
    )
    assert result.verdict == PASSED, result.reason
    assert result.claims[0].sentence_class == "greeting"


@pytest.mark.parametrize(
    ("honest", "false"),
    [
        ("This is the bakery's tenth year in Riverside.", "This is the bakery's twelfth year in Riverside."),
        ("Half a million loaves have left its ovens.", "Half a billion loaves have left its ovens."),
    ],
)
def test_ordinals_and_scales_in_words_are_numbers(honest: str, false: str) -> None:
    assert verdict(honest) == PASSED
    assert verdict(false) == REJECTED


def test_the_business_s_phone_number_and_email_are_not_figures_to_check() -> None:
    text = "The bakery now bakes 600 loaves a day. Call 01632 960123 or email hello@hollowoak.co.uk to order."
    assert verdict(text, OWN) == PASSED
