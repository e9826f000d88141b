"""Issue 9, seventh round: the hard checks' own false vetoes, each with the one-word change that
must still be held back.

- A number, name or date the claim takes from another sentence of the article is read there
  when it stands beside the same word: the headline counts as the article's text ("a class for
  over-65s"), a weekday or month counts as a date said elsewhere ("the Wednesday evening
  classes" from "an evening class every Wednesday"), the claim's side of the window reaches two
  words as the article's does, and two figures side by side ("10am to 2pm") are one fact the
  article may write together anywhere.
- A count and a name do not trade roles: "212 patients were treated at Harrow Street Dental"
  is the article's "Harrow Street Dental treated 212 patients" reordered. Two names still do.
- Both sides giving an act its agent with "by" ("twenty of them donated by the chess club" for
  "20 sets donated by the club") is one voice, not an agent made into an object.
- "A before B" is "B after A": the two events change sides with the word.
- "No more X" says that X ends; where the article tells X as the way things were ("until now",
  "during the closure", "had to"), it is no denial of the article.
- "on top", "only 15 places" and a "first" closing a clause are no superlatives.
- The business thanking or congratulating the article's people is its own voice: "X says thank
  you" and "X sends congratulations" are feelings like "X thanks", and "thanks" in a claim about
  the business is no fact the article must hold (what it thanks them for still is).

The article and the drafts are made up for these tests.
"""

from __future__ import annotations

import pytest

from posting.gate.core import PASSED, REJECTED, GateResult, gate_evaluate

TITLE = "Ironvale gym starts a strength class for over-65s"
BODY = """Ironvale Strength, a gym on Sprague Avenue, has started a weekly strength training class.
A $6,000 grant from the Valley Aging Fund pays for the equipment and for ten free places in the class.
If the evening classes go well, owner Tamsin Reed plans to add Saturday morning sessions for children in the summer.
The gym will hold a free open day at the Sprague Avenue hall on Saturday 23 January.
The open day will run from 10am to 2pm.
Harrow Street Dental treated 212 patients for free at its annual care day in the hall.
Millbrook Rovers beat Ashford Town in the gym's five-a-side final.
During the closure of the old hall, members trained 20 miles away in Kelso and cancelled a league.
Households earning less than 80% of the median income receive an extra $300 for the class.
Places at the first taster session are limited to 15.
The gym also runs an evening class every Wednesday.
Owner Tamsin Reed opened the gym in 2018 after qualifying as a physiotherapist in Leeds.
The Sprague Avenue library will lend chess sets from January, with 20 sets donated by the club."""
OWN_NAMES = ["Sprague Avenue Traders", "@spragueave"]


def gate(text: str, *, body: str = BODY) -> GateResult:
    return gate_evaluate(text=text, title=TITLE, body=body, own_names=OWN_NAMES)


@pytest.mark.parametrize(
    "draft",
    [
        # the headline's "over-65s" class, named in a claim about the grant
        "A $6,000 grant from the Valley Aging Fund pays for ten free places in Ironvale's over-65 class.",
        # a weekday said in another sentence, beside the same words
        "If the Wednesday evening classes go well, Tamsin Reed plans to add Saturday morning sessions for children.",
        # two figures the article writes together, in another sentence
        "Ironvale Strength holds a free open day at the Sprague Avenue hall on Saturday 23 January, 10am to 2pm.",
        # a count and a name reordered
        "Two hundred and twelve patients were treated for free at Harrow Street Dental's annual care day.",
        # "by" on both sides: the same voice
        "From January the library will lend chess sets, twenty of them donated by the chess club.",
        # the events change sides with "before" / "after"
        "Tamsin Reed qualified as a physiotherapist in Leeds before opening the gym in 2018.",
        # "no more" what the article tells as the way things were
        "No more 20-mile trips to Kelso for training!",
        # "on top", "only" before a number
        "Households earning less than 80% of the median income receive an extra $300 on top.",
        "Only 15 places at the first taster session!",
        # the business's thanks
        "Ironvale Strength has started a weekly strength class. Sprague Avenue Traders says thank you, Ironvale!",
        "Millbrook Rovers beat Ashford Town. Sprague Avenue Traders send huge congratulations to the Rovers!",
        "Thanks from Sprague Avenue Traders to the Valley Aging Fund for ten free places in the over-65 class.",
    ],
)
def test_an_honest_claim_the_hard_checks_misread_passes(draft: str) -> None:
    result = gate(draft)

    assert result.verdict == PASSED, result.reason


@pytest.mark.parametrize(
    ("draft", "said"),
    [
        # another number in the headline's place
        ("A $6,000 grant from the Valley Aging Fund pays for ten free places in Ironvale's over-75 class.", "75"),
        # a weekday the article does not give those classes
        (
            "If the Thursday evening classes go well, Tamsin Reed plans to add Saturday morning sessions for children.",
            "Thursday",
        ),
        # one end of the pair changed
        (
            "Ironvale Strength holds a free open day at the Sprague Avenue hall on Saturday 23 January, 10am to 3pm.",
            "15:00",
        ),
        # two names do trade roles
        ("Ashford Town beat Millbrook Rovers in the gym's five-a-side final.", "other way round"),
        # the lender and the donor exchanged
        ("From January the club will lend chess sets, twenty of them donated by the library.", "other way round"),
        # the order of events turned: "before" in the article's order
        ("Tamsin Reed opened the gym in 2018 before qualifying as a physiotherapist in Leeds.", "opposite"),
        # the number changed; "only" does not excuse it
        ("Only 16 places at the first taster session!", "16"),
        # a real superlative the article does not give
        ("Households earning less than 80% of the median income receive the top $300 grant.", "top"),
        # what the business thanks them for is still checked
        (
            "Thanks from Sprague Avenue Traders to the Valley Aging Fund for twelve free places in the over-65 class.",
            "twelve",
        ),
        ("Sprague Avenue Traders says it paid for the equipment at Ironvale Strength.", "business"),
    ],
)
def test_the_one_word_change_is_still_held_back(draft: str, said: str) -> None:
    result = gate(draft)

    assert result.verdict == REJECTED
    assert said in result.reason, result.reason


def test_no_more_is_a_denial_where_the_article_tells_it_as_now() -> None:
    """The same "no more" against an article that says the club trains in Kelso today (one word
    changed, "During the closure" gone): the claim then denies what the article says."""
    body = BODY.replace(
        "During the closure of the old hall, members trained 20 miles away in Kelso and cancelled a league.",
        "Members train 20 miles away in Kelso and run a league there.",
    )

    result = gate("No more 20-mile trips to Kelso for training!", body=body)

    assert result.verdict == REJECTED
    assert "opposite" in result.reason, result.reason
