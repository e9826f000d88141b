"""Issue 9, eighth round: more of the hard checks' own misreadings, each with the one-word or
one-number change that must still be held back.

- Figures as posts write them: "400m", "1,650m" and "a 2.4m mascot" are metres (money, "£2.4m",
  is read before); "two and a half thousand" is 2,500, not 2,000.5; "hundred and twenty" with
  no count before it is 120; "two point three tonnes" is 2.3 tonnes.
- A post signed at its end, after its tags, by a person and their role ("... #WI — Pauline Okoro,
  president", "— Ruth, chair") is signed: the tags and the signature are not read as the last
  claim's names.
- "Don't forget we lend out ..." denies nothing; "up from £28" gives the figure the article's
  "instead of £28" replaces; "won't be allowed" / "haven't changed" say what the article's
  "banned" / "unchanged" say.
- A past participle right after its noun with no object ("412 blades sharpened on his first
  round", "4,600 stems sold last summer") is a passive without "was": no role swap; so is a
  participle whose "by" follows its particle ("written down by founder Edwin Hartley").
- "at least" / "at most" bound a number, they rank nothing; "the most since 2004" is the
  article's "the highest number since 2004"; "most of our apples" is the article's "most of the
  farm's apples"; "that's Pat's record." is her record, no superlative.

The articles and the drafts are made up for these tests.
"""

from __future__ import annotations

import pytest

from posting.gate.core import (
    PASSED,
    REJECTED,
    GateResult,
    _negation_mismatch,
    _opposite,
    _role_swap,
    _superlative_unsupported,
    draft_sentences,
    gate_evaluate,
)
from posting.gate.text import tokenize

TITLE = "Dunmere hedgelaying match draws a record field"
BODY = """Thirty-eight competitors took part in the Dunmere hedgelaying match, laying about 400 metres of hedge.
The fell race route climbs 1,650 metres over six summits.
The racecourse's mascot is a 2.4-metre-tall costumed horse called Hartley.
The marmalade won out of more than 2,500 entries from 40 countries.
Norman Yeo planted the garden's 120 varieties of apple.
In its first six weeks the community fridge gave away about 2.3 tonnes of food.
Work parties meet at the Rookwood Lane gate every second Sunday at 10am.
The shop sells hives and lends out honey extractors for £5 a weekend.
A standard stall on the market square will cost £31.50 a day instead of £28.
Dogs will be banned from the central beach from 1 May.
Bus fares are unchanged since the new timetable started.
Sixty-two teams entered, the largest number in the competition's 35-year history."""
OWN_NAMES = ["Dunmere Village Shop", "@dunmereshop"]


def gate(text: str) -> GateResult:
    return gate_evaluate(text=text, title=TITLE, body=BODY, own_names=OWN_NAMES)


# Each honest form, and beside it its one-word or one-number change.
PAIRS = [
    # metres
    (
        "Thirty-eight competitors took part in the Dunmere hedgelaying match, laying about 400m of hedge.",
        "Thirty-eight competitors took part in the Dunmere hedgelaying match, laying about 500m of hedge.",
    ),
    ("The fell race route climbs 1,650m over six summits.", "The fell race route climbs 1,850m over six summits."),
    (
        "The racecourse's mascot Hartley is a 2.4m costumed horse.",
        "The racecourse's mascot Hartley is a 2.8m costumed horse.",
    ),
    # "and a half" before a scale
    (
        "The marmalade won out of more than two and a half thousand entries from forty countries.",
        "The marmalade won out of more than three and a half thousand entries from forty countries.",
    ),
    # a bare "hundred and ..."
    (
        "Norman Yeo planted the garden's hundred and twenty varieties of apple.",
        "Norman Yeo planted the garden's hundred and thirty varieties of apple.",
    ),
    # "point"
    (
        "In its first six weeks the community fridge gave away about two point three tonnes of food.",
        "In its first six weeks the community fridge gave away about two point eight tonnes of food.",
    ),
    # tags and a person's signature with a role; the claim before them is still checked
    (
        "Work parties meet at the Rookwood Lane gate every second Sunday at 10am. #Dunmere #Hedges"
        " \u2014 Bethan Clegg, coordinator",
        "Work parties meet at the Rookwood Lane gate every second Sunday at 11am. #Dunmere #Hedges"
        " \u2014 Bethan Clegg, coordinator",
    ),
    # "don't forget" is no denial; a real "not" is
    (
        "And don't forget the shop lends out honey extractors for a fiver a weekend.",
        "And the shop doesn't lend out honey extractors for a fiver a weekend.",
    ),
    # "up from £28" for "instead of £28"; the old figure changed, or given as the new one
    (
        "A standard stall on the market square will be £31.50 a day, up from £28.",
        "A standard stall on the market square will be £31.50 a day, up from £26.",
    ),
    (
        "A standard stall on the market square will be £31.50 a day, up from £28.",
        "A standard stall on the market square will be £28 a day.",
    ),
    # a denied word agrees with its opposite; the word alone is still the opposite
    (
        "Dogs won't be allowed on the central beach from 1 May.",
        "Dogs will be allowed on the central beach from 1 May.",
    ),
    (
        "Bus fares haven't changed since the new timetable started.",
        "Bus fares have changed since the new timetable started.",
    ),
]


@pytest.mark.parametrize(("honest", "changed"), PAIRS)
def test_the_honest_form_passes_and_its_one_word_change_is_held(honest: str, changed: str) -> None:
    assert gate(honest).verdict == PASSED, gate(honest).as_dict()
    assert gate(changed).verdict == REJECTED, gate(changed).as_dict()


def test_tags_and_a_signature_with_a_role_are_not_claims() -> None:
    sentences = draft_sentences(
        "It's raising money for the hall's solar panel fund. #LittleHinton #WI \u2014 Pauline Okoro, president"
    )
    assert [(sentence.text, sentence.sentence_class) for sentence in sentences] == [
        ("It's raising money for the hall's solar panel fund.", "claim"),
        ("#LittleHinton #WI", "hashtags"),
        ("Pauline Okoro, president", "sign_off"),
    ]
    # A dash that goes on to say something is no signature.
    (sentence,) = draft_sentences("We won the cup \u2014 Ruth, chair of the club, scored twice")
    assert sentence.sentence_class == "claim"


def test_a_name_before_the_signature_is_still_checked() -> None:
    result = gate(
        "Norman Yeo and Ivy Brandt planted the garden's 120 varieties of apple."
        " #Dunmere \u2014 Bethan Clegg, coordinator"
    )
    assert result.verdict == REJECTED
    assert "Ivy" in next(claim.reason for claim in result.claims if not claim.supported)


@pytest.mark.parametrize(
    ("claim", "evidence", "held"),
    [
        # "at least" bounds the number; the number is the fact
        (
            "Jabs must be done at least a fortnight before arrival.",
            "Dogs must be vaccinated at least two weeks before.",
            False,
        ),
        # "the most" of a count is "the largest number"; "the most teams" still needs the article's word
        (
            "Sixty-two teams entered, the most in 35 years.",
            "Sixty-two teams entered, the largest number in 35 years.",
            False,
        ),
        (
            "Sixty-two teams entered, the most since 1990.",
            "Sixty-two teams entered, the largest number since 1990.",
            False,
        ),
        ("The most teams entered in 35 years.", "Sixty-two teams entered, the largest number in 35 years.", True),
        ("Sixty-two teams entered, the most in 35 years.", "Sixty-two teams entered in 35 years.", True),
        # "most of" governs the article's phrase: "most of our apples" for "most of the farm's apples"
        ("Most of our apples go to a cider maker.", "Most of the farm's apples go to a cider maker.", False),
        ("Most of our pears go to a cider maker.", "Most of the farm's apples go to a cider maker.", True),
        ("Most of our apples go to a cider maker.", "The farm's apples go to a cider maker.", True),
        # a possessive's record closing a clause is a track record; "a record year" ranks
        (
            "Never an accident at her crossing: that's Pat's record.",
            "There was never an accident at her crossing.",
            False,
        ),
        ("Never an accident at her crossing, a record year.", "There was never an accident at her crossing.", True),
    ],
)
def test_the_superlative_check_reads_bounds_counts_and_records(claim: str, evidence: str, held: bool) -> None:
    assert bool(_superlative_unsupported(tokenize(claim), tokenize(evidence))) is held


def test_a_denied_word_is_not_the_opposite_of_its_antonym() -> None:
    evidence = tokenize("Fares are unchanged on the new boat.")
    stems = frozenset(token.norm for token in evidence)
    assert _opposite(tokenize("Fares haven't changed on the new boat."), stems, evidence) == ""
    assert _opposite(tokenize("Fares have changed on the new boat."), stems, evidence)


def test_up_from_the_figure_the_article_replaces_is_no_denial() -> None:
    evidence = tokenize("A stall will cost £31.50 a day instead of £28.")
    assert _negation_mismatch(tokenize("A stall will be £31.50 a day, up from £28."), evidence) == ""
    assert _negation_mismatch(tokenize("A stall will be £28 a day."), evidence)


RECIPE = "The pie is made to a recipe that the shop's founder, Edwin Hartley, wrote down in 1952."


@pytest.mark.parametrize(
    ("claim", "evidence", "held"),
    [
        (
            "412 blades sharpened on his first round in October.",
            "On his first round in October he sharpened 412 blades.",
            False,
        ),
        ("4,600 locally grown stems sold last summer.", "Last summer the shop sold 4,600 locally grown stems.", False),
        # the participle with an object is an active verb again: the roles are turned
        (
            "4,600 locally grown stems sold the shop last summer.",
            "Last summer the shop sold 4,600 locally grown stems.",
            True,
        ),
        (
            "Millbrook Rovers defeated Ashford Town in the final.",
            "Ashford Town defeated Millbrook Rovers in the final.",
            True,
        ),
        # the agent past the verb's particle; "for" instead of "by" makes the founder no agent
        ("The recipe dates from 1952, written down by founder Edwin Hartley.", RECIPE, False),
        ("The recipe dates from 1952, written down for founder Edwin Hartley.", RECIPE, True),
    ],
)
def test_a_participle_after_its_noun_is_a_passive(claim: str, evidence: str, held: bool) -> None:
    assert bool(_role_swap(tokenize(claim), tokenize(evidence))) is held
