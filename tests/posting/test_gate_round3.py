"""Issue 9, third round: the gate's mistakes on the second batch of the tuning set
(tests/data/gate_tuning/t25-t40), each reproduced on an article written for this test.

True drafts it held back: a noun where the article has an adjective read as a swapped thing,
a "not" over a paraphrase or said in the next sentence read as a denial, a business's people
being delighted read as a fact, "a hundred and forty" read as 100 and 40, "seven in ten" not
read as 70%, "evening" and "this summer" read as verbs. False drafts it must still hold back:
a swapped noun or adjective, a denial the article does not make.
"""

from __future__ import annotations

import pytest

from posting.gate.core import CLAIM, PASSED, REJECTED, gate_evaluate

TITLE = "Hollin Lane Bakery starts sourdough classes in its old flour store"
BODY = """Hollin Lane Bakery in Marlow Cross will start evening sourdough classes on April 9.
The flour store was refitted over the winter with two domestic ovens, a long oak worktop and a sink.
Each class runs for three hours on a wet Wednesday evening and takes up to eight people.
About 70% of the students so far had never baked bread before.
A customer's old mixer could not be mended, so the bakery bought a new one.
"Selling bread by the slice never made sense," owner Tamsin Achebe said.
The bakery has baked 140 loaves a day since 2019 and will release a new rye loaf this summer with the Marlow Millers."""


def gate(text: str):
    return gate_evaluate(text=text, title=TITLE, body=BODY, own_names=["Hollin Lane Bakery", "@hollinlane"])


@pytest.mark.parametrize(
    "draft",
    [
        # numbers as words: "a hundred and forty" is 140, "seven in ten" is 70%
        "We bake a hundred and forty loaves a day.",
        "Seven in ten students had never baked bread before.",
        # a "not" over a paraphrase of the article's negated word
        "A customer's old mixer couldn't be fixed.",
        # a "not" the article says in another sentence than the nearest one
        "Tamsin says selling bread by the slice never made sense.",
        # "evening" after a verb, "this summer" before "with": nouns, so no roles are swapped
        "From April 9 the bakery runs evening sourdough classes in its old flour store.",
        "A new rye loaf is coming this summer with the Marlow Millers.",
        # an adjective of the article's cluster ("soggy" is a kind of "wet")
        "Each class runs for three hours on a soggy Wednesday evening.",
    ],
)
def test_a_true_draft_written_differently_passes(draft: str) -> None:
    result = gate(draft)

    assert result.verdict == PASSED, result.reason


def test_the_business_people_being_delighted_is_a_comment_not_a_claim() -> None:
    result = gate("The flour store has two domestic ovens. Everyone at Hollin Lane Bakery is over the moon!")

    assert result.verdict == PASSED
    assert [claim.sentence_class for claim in result.claims] == [CLAIM, "comment"]


@pytest.mark.parametrize(
    ("draft", "says"),
    [
        # a noun standing where the article has another noun: a different thing
        ("The flour store was refitted with two domestic grills, a long oak worktop and a sink.", '"ovens"'),
        # an adjective standing where the article has another adjective, not of its cluster
        ("The flour store was refitted with two domestic ovens, a long pine worktop and a sink.", '"oak"'),
        # a denial the article does not make
        ("The classes do not take up to eight people.", 'not "classes do not take up to eight'),
        # a number word that is not the article's
        ("We bake a hundred and fifty loaves a day.", "figure"),
    ],
)
def test_a_false_draft_is_still_held_back(draft: str, says: str) -> None:
    result = gate(draft)

    assert result.verdict == REJECTED
    assert says in result.reason, result.reason
