"""Issue 9, fourth round: the decision for claims the hard checks leave open is a fitted score,
not a ladder of word counts, and a claim's evidence may reach the sentence of the article that
holds one of its numbers or names.

- Coverage weighs each word by its IDF in the article: a word the article never uses costs the
  most, a word it repeats in every sentence (its subject) counts for little, so a short
  invented sentence about the article's subject is held back however many of its words the
  article has, and a long paraphrase with one word of its own passes.
- A number or name missing from the best evidence may come from any sentence where it stands
  among the claim's words around it ("twelve listening seats"), never from one where it counts
  something else.
- An hour written without "a.m." ("open 10 to 5") is the article's time on that hour.
- A closing line naming the business ("— Fair winds, the Saltwind crew") signs the post.

Each rule is paired with the one-word change that must still be held back.
"""

from __future__ import annotations

import pytest

from posting.gate import core
from posting.gate.core import PASSED, REJECTED, gate_evaluate

TITLE = "Northgate Audio opens a listening room on Monroe Street"
BODY = """Northgate Audio has opened a listening room behind its shop on Monroe Street.
The shop also employs 12 staff.
The project cost $38,000 and took five months.
The room has twelve listening seats and a pair of restored 1970s speakers.
It is open from 10 a.m. to 5 p.m., Wednesday to Sunday.
Tickets for the monthly vinyl night cost $10, and the money goes to the Monroe Street Music School.
Owner Dana Reyes said the room was built by two local carpenters."""
OWN_NAMES = ["Saltwind Sailing School", "@saltwindsailing"]


def gate(text: str):
    return gate_evaluate(text=text, title=TITLE, body=BODY, own_names=OWN_NAMES)


@pytest.mark.parametrize(
    "draft",
    [
        # the seats are counted in another sentence than the cost: both are the article's
        "Northgate Audio's listening room behind the Monroe Street shop cost $38,000 and has 12 seats.",
        # an hour without a.m. or p.m.
        "The listening room is open Wednesday to Sunday, 10 to 5.",
        # a signature naming the business, after a dash and on its own last line
        "The room has twelve listening seats. — Fair winds, the Saltwind crew",
        "The room has twelve listening seats.\nThe Saltwind team",
    ],
)
def test_a_true_draft_passes(draft: str) -> None:
    result = gate(draft)

    assert result.verdict == PASSED, result.reason


@pytest.mark.parametrize(
    ("draft", "said"),
    [
        # "12" counts the staff, not the seats' neighbours: not lent to "carpenters"
        ("The room was built by 12 local carpenters.", "Nearest sentence"),
        # a wrong hour is still a wrong hour
        ("The listening room is open Wednesday to Sunday, 10 to 6.", '"6"'),
        # a signature with a figure in it says something
        ("The room has twelve listening seats. — The Saltwind crew, 40 years on the water", "40"),
    ],
)
def test_the_one_word_change_is_still_held_back(draft: str, said: str) -> None:
    result = gate(draft)

    assert result.verdict == REJECTED
    assert said in result.reason


def test_a_short_invented_sentence_about_the_subject_is_held_back() -> None:
    # "room" and "shop" are the article's words, but its main words are its own.
    result = gate("The room was flooded last week.")

    assert result.verdict == REJECTED
    assert "flooded" in result.reason


def test_a_long_paraphrase_with_one_word_of_its_own_passes() -> None:
    result = gate(
        "Tickets for the monthly vinyl night are $10, with all the money going to the Monroe Street Music School."
    )

    assert result.verdict == PASSED, result.reason


def test_the_support_threshold_decides_the_open_claims() -> None:
    """The same claim is held back or passed by the fitted threshold alone: the score is what
    decides, not a hidden rule. (The module constants are restored after the test.)"""
    draft = "The room has twelve seats and a pair of restored speakers from a collector."
    saved = core.SUPPORT_MIN
    try:
        core.SUPPORT_MIN = 0.99
        strict = gate(draft)
        core.SUPPORT_MIN = 0.3
        lenient = gate(draft)
    finally:
        core.SUPPORT_MIN = saved
    assert strict.verdict == REJECTED
    assert lenient.verdict == PASSED, lenient.reason


SHELTER_TITLE = "Shelter looks for foster carers for older dogs"
SHELTER_BODY = """Older dogs stay at Second Chance an average of 94 days before they are adopted.
The barn behind the shelter is the largest of its kind in the county, the manager said."""


@pytest.mark.parametrize(
    ("draft", "verdict"),
    [
        # a superlative in other words is the same superlative; another one is not
        ("The barn behind the shelter is the biggest of its kind in the county.", PASSED),
        ("The barn behind the shelter is the oldest of its kind in the county.", REJECTED),
        # "Second Chance" is a name where the article writes it so; "Third Chance" is not
        ("Older dogs stay at Second Chance for 94 days on average.", PASSED),
        ("Older dogs stay at Third Chance for 94 days on average.", REJECTED),
    ],
)
def test_superlatives_in_other_words_and_ordinals_in_names(draft: str, verdict: str) -> None:
    result = gate_evaluate(text=draft, title=SHELTER_TITLE, body=SHELTER_BODY)

    assert result.verdict == verdict, result.reason
