"""Issue 9, done-means 3: a held-back claim's reason in words a shop owner can act on.

A word pair is named only when the two words really stand in each other's place; otherwise
the reason quotes the draft's own words. "The other way round" quotes who did what on both
sides, and "the opposite" quotes both sides. Each case is a reason the gate gave before
session 7 that no customer could act on (docs/BENCHMARKS.md, "Issue 9, session 7: reasons").
"""

from __future__ import annotations

import pytest

from posting.gate import reasons
from posting.gate.core import CLAIM, REJECTED, gate_evaluate


def held_reason(draft: str, title: str, body: str) -> str:
    result = gate_evaluate(text=draft, title=title, body=body)
    assert result.verdict == REJECTED
    (claim,) = [claim for claim in result.claims if claim.sentence_class == CLAIM]
    assert not claim.supported
    return claim.reason.split(" Nearest sentence in the article:")[0]


BAKERY = (
    "Crumb & Co moves to a four-day week",
    "Crumb & Co, the bakery on Church Street in Kilbrannagh, will move its 14 bakers to a four-day week "
    "from March 2 without cutting their pay, owner Aoife Brennan said on Thursday.",
)


def test_a_word_that_only_shares_a_neighbour_is_not_named_as_a_pair() -> None:
    # Before: 'The article says "week", not "switch".'
    reason = held_reason("Now all 14 bakers are making the switch from March 2.", *BAKERY)

    assert '"week", not' not in reason
    assert reason.startswith('The article doesn\'t say "bakers are making the switch from March 2"')
    assert 'it never mentions "switch"' in reason


def test_a_word_in_another_word_s_place_is_still_named_with_both_words() -> None:
    reason = held_reason("The bakery will move its 14 bakers to a four-day month from March 2.", *BAKERY)

    assert reason == 'The article says "week", not "month".'


@pytest.mark.parametrize(
    ("draft", "said"),
    [
        # between the same words on both sides
        ("Geoff Pellow made new elm boards and had the iron screws re-threaded by a blacksmith.", '"oak", not "elm"'),
        # at the end of the sentence on both sides, after the same word
        ("The cabinets come with a cloth oven.", '"grill", not "oven"'),
    ],
)
def test_a_true_single_word_swap_names_both_words(draft: str, said: str) -> None:
    body = (
        "It was restored by Geoff Pellow, who made new oak boards and had the iron screws re-threaded by a "
        "blacksmith. Owner Marta Lind said the cabinets are built in Tacoma and come with a cloth grill."
    )

    assert said in held_reason(draft, "Cider press restored", body)


def test_the_opposite_quotes_both_sides() -> None:
    # Before: "The article says the opposite: it says this is not so."
    body = "Hollins opened the bakery in 2018. He said he would not raise his prices after the award."
    reason = held_reason("Tom Hollins said he would raise his prices after the award.", "Bakery award", body)

    assert reason.startswith("The article says the opposite: it says ")
    assert 'it says "said he would not raise his prices"' in reason
    assert 'not "Tom Hollins said he would raise his prices"' in reason


def test_a_negation_the_article_lacks_quotes_both_sides() -> None:
    # Before: 'The article says the opposite: it states this without a "not".'
    body = "The cinema recently installed a hearing loop and now holds a relaxed screening every month."
    reason = held_reason("The cinema does not have a hearing loop.", "Cinema news", body)

    assert "installed a hearing loop" in reason
    assert '"cinema does not have a hearing loop"' in reason
    assert '"not"' not in reason


@pytest.mark.parametrize(
    ("draft", "body", "article_words", "draft_words"),
    [
        (
            "Residents chose the streets after a survey in which the council asked for chargers.",
            "The council chose streets after a survey in which 1,150 residents asked for a charger near their home.",
            "council chose streets",
            "Residents chose the streets",
        ),
        (
            "From January the club will lend chess sets, twenty of them donated by the library.",
            "The Sprague Avenue library will lend chess sets from January, with 20 sets donated by the club.",
            "The Sprague Avenue library will lend chess sets",
            "the club will lend chess sets",
        ),
    ],
)
def test_the_other_way_round_says_who_did_what_in_both_sides_words(
    draft: str, body: str, article_words: str, draft_words: str
) -> None:
    # Before: 'The article has it the other way round: "council" … "chose" … "Residents".'
    reason = held_reason(draft, "News", body)

    assert reason.startswith("The article has it the other way round: it says ")
    assert article_words in reason
    assert draft_words in reason
    assert "…" not in reason


def test_who_did_it_is_named_from_the_article_where_the_draft_cannot_be_quoted() -> None:
    body = "The restaurant was opened in 1998 by Abdul and Rehana Miah, who came to Morwick from Sylhet."
    reason = held_reason("Abdul and Rehana opened the restaurant in 1998.", "Curry award", body)

    # An honest draft the gate still holds back (active for the article's passive): the reason
    # at least says in words who the article says did it.
    assert 'it says "restaurant was opened in 1998 by Abdul and Rehana Miah"' in reason
    assert "…" not in reason


def test_a_call_to_action_or_a_common_word_is_never_the_word_named() -> None:
    # Before: 'The article says "piccalilli", not "grab".' and 'it never mentions "days"'.
    assert reasons.not_said("Tickets £15, grab yours at the bar!", ["grab"]) == "The article doesn't say this."
    assert "days" not in reasons.not_said("These days the menu is down to 38 dishes.", ["days"])
    assert reasons.not_said("Come and cheer them on at the lido!", ["come", "cheer"]) == (
        'The article doesn\'t say "Come and cheer": it never mentions "cheer".'
    )


@pytest.mark.parametrize(
    ("text", "word", "shown"),
    [
        # the clause around the word, never past a comma
        ("Catches fell, and fuel prices have pushed some boats out of the game.", "game", "boats out of the game"),
        # a name is never cut in two
        ("Little Acorns Nursery will run story time.", "run", "Little Acorns Nursery will run story time"),
        # a figure inside a longer word
        ("The tanks ran out during the 31-day dry spell.", "31", "ran out during the 31-day dry spell"),
        # a word the text does not hold is shown alone
        ("The shop is open.", "closed", "closed"),
    ],
)
def test_a_span_quotes_a_few_words_of_the_draft_around_the_word(text: str, word: str, shown: str) -> None:
    assert reasons.span(text, word) == shown


def test_a_negated_span_starts_at_the_not() -> None:
    assert reasons.negated_span("The X7 would not come with a charger in the box.", "come") == (
        "The X7 would not come with a charger"
    )


def test_between_refuses_a_stretch_that_crosses_a_clause() -> None:
    assert reasons.between("Aisha Rahman became champion on Sunday, beating Peter Lowe.", "Aisha", "Peter") == ""
    assert reasons.between("Aisha Rahman beat Peter Lowe.", "Aisha", "Peter") == "Aisha Rahman beat Peter Lowe"
