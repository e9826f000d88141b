"""Issue 9, fifth round: mis-readings behind the hard checks, each a general normalisation.

- A shorter form of the business's own name ("Quillfeather's", "the Canal Traders Guild",
  "CTG") is its name, as the full one is, where the article never writes it.
- "two-one", "nine-seven": a score or a range in words is two numbers, not their sum.
- "thirty grand" is 30,000; "13cm" is 13 centimetres, "3t" 3 tonnes, "8 kWh" 8 kilowatt hours;
  "1.45 in the morning" is 1:45 a.m.
- "half the size" is what "halved in size" says, "double" what "twice" says.

Each rule is paired with the one-word change that must still be held back. The article and the
drafts are made up for these tests.
"""

from __future__ import annotations

import pytest

from posting.gate import core
from posting.gate.core import PASSED, REJECTED, GateResult, gate_evaluate, own_name_short_forms
from posting.gate.text import tokenize

TITLE = "Larkspur Rowing Club wins the river cup and opens a new boathouse"
BODY = """Larkspur Rowing Club won the Severn River Cup on Saturday, beating Hollins Boat Club 3-2 in the final.
The club raised £25,000 for the new boathouse, which has 40 racks and a 12-metre slipway.
Its old shed has been halved in size to make room for a gym.
The club's youth squad now trains twice a week, and its membership has doubled since 2020.
Volunteers cut a 15-centimetre drainage channel along the path and laid about three tonnes of gravel.
The boathouse battery stores up to 9 kilowatt-hours from the roof panels.
The last crew came off the water at 1:45 a.m. after the night row."""
OWN_NAMES = ["Quillfeather's Canal Traders Guild", "@quillfeather"]


def gate(text: str) -> GateResult:
    return gate_evaluate(text=text, title=TITLE, body=BODY, own_names=OWN_NAMES)


@pytest.mark.parametrize(
    "draft",
    [
        # the business's name, shortened
        "Larkspur Rowing Club won the Severn River Cup on Saturday. We at Quillfeather's are so proud of them!",
        "Larkspur Rowing Club won the Severn River Cup. Everyone at the Canal Traders Guild is so proud of them!",
        # a score in words
        "Larkspur Rowing Club beat Hollins Boat Club three-two in the final of the Severn River Cup.",
        # money in slang
        "The club raised twenty-five grand for the new boathouse.",
        # units by their symbols
        "Volunteers cut a 15cm drainage channel along the path and laid about 3t of gravel.",
        "The boathouse battery stores up to 9 kWh from the roof panels.",
        # the time of day in words
        "The last crew came off the water at 1.45 in the morning after the night row.",
        # one proportion, written two ways
        "The old shed is now half the size, to make room for a gym.",
    ],
)
def test_a_true_draft_written_differently_passes(draft: str) -> None:
    result = gate(draft)

    assert result.verdict == PASSED, result.reason


@pytest.mark.parametrize(
    ("draft", "said"),
    [
        # the sum of a score is not in the article, nor is the reversed score
        ("Larkspur Rowing Club beat Hollins Boat Club two-three in the final of the Severn River Cup.", ""),
        ("Larkspur Rowing Club beat Hollins Boat Club four-two in the final of the Severn River Cup.", '"4"'),
        ("The club raised thirty grand for the new boathouse.", "30,000"),
        ("Volunteers cut a 25cm drainage channel along the path.", '"25"'),
        ("The last crew came off the water at 2.45 in the morning after the night row.", ""),
        ("The old shed has tripled in size to make room for a gym.", "tripled"),
        # a name that only looks like a short form of the business's: someone else, checked as one
        ("Larkspur Rowing Club won the Severn River Cup on Saturday, coached by Canal Traders Guild.", ""),
    ],
)
def test_the_one_word_change_is_still_held_back(draft: str, said: str) -> None:
    result = gate(draft)

    assert result.verdict == REJECTED, result.reason
    assert said in result.reason


def test_a_short_form_of_the_business_name_is_only_one_the_article_never_writes() -> None:
    forms = own_name_short_forms(
        ["Glenmore Mountain Rescue Team", "Willowbank Veterinary Nurses", "Copper Kettle Pub"],
        "The Glenmore funicular opened. A pub on the hill reopened.",
    )

    assert "MRT" in forms and "Mountain Rescue Team" in forms and "Willowbank" in forms
    # the article names Glenmore itself, and "Copper" is an ordinary word
    assert "Glenmore" not in forms and "Copper" not in forms and "Copper Kettle" in forms


def test_a_short_form_is_matched_only_as_written() -> None:
    # "Copper Kettle" names the business; "copper kettle" is a thing the article may mention.
    result = gate_evaluate(
        text="The copper kettle was stolen.",
        title="Café reopens",
        body="The café on Mill Lane reopened on Monday.",
        own_names=["Copper Kettle Pub"],
    )

    assert result.claims[0].sentence_class == "claim"


@pytest.mark.parametrize(
    ("text", "norms"),
    [
        ("two-one", ["2", "1", "score2x1"]),
        ("twenty-one", ["21"]),
        ("fourteen grand", ["14000"]),
        ("a grand opening", ["a", "grand", "open"]),
        ("the 4G network", ["the", "4g", "network"]),
        ("10g of salt", ["10", "gram", "of", "salt"]),
    ],
)
def test_numbers_and_units_are_read_as_a_reader_reads_them(text: str, norms: list[str]) -> None:
    assert [token.norm for token in tokenize(text)] == norms


SHOP_TITLE = "Tillbrook charity shop moves to Fore Street"
SHOP_BODY = """The Tillbrook Hospice shop will reopen on Fore Street on Saturday, following nine years on Mill Row.
The hospice is still looking for volunteer drivers for its new collection van.
It will sell 300 tickets at £4 each to young people aged 12 to 17 for its new summer quiz.
The shop has not sold a single fur coat since 2019, following a vote by its volunteers.
The former shop's till was donated by the Mill Row traders, and the volunteers painted the sign."""


def shop_gate(text: str) -> GateResult:
    return gate_evaluate(text=text, title=SHOP_TITLE, body=SHOP_BODY, own_names=[])


@pytest.mark.parametrize(
    "draft",
    [
        # an age is not the adjective "old"
        "300 tickets at £4 each for 12-to-17-year-olds at the summer quiz!",
        # the "not" moved: no fur coat sold, the article's "not sold a single fur coat"
        "No fur coat sold since 2019, following a vote by its volunteers.",
    ],
)
def test_a_true_draft_the_contradiction_checks_misread_passes(draft: str) -> None:
    result = shop_gate(draft)

    assert result.verdict == PASSED, result.reason


@pytest.mark.parametrize(
    ("draft", "said"),
    [
        ("The shop reopens on Fore Street on Saturday, nine years before it left Mill Row.", ""),
        ("The shop has sold fur coats since 2019, following a vote by its volunteers.", "opposite"),
        # the same act, done by the other of the sentence's actors
        ("The former shop's till was donated by the volunteers, and the Mill Row traders painted the sign.", "round"),
    ],
)
def test_a_real_contradiction_is_still_held_back(draft: str, said: str) -> None:
    result = shop_gate(draft)

    assert result.verdict == REJECTED, result.reason
    assert said in result.reason


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The hospice is still after volunteer drivers.", "The hospice is still looking for volunteer drivers."),
        (
            "Doors open on Saturday, after nine years on Mill Row.",
            "It reopens on Fore Street on Saturday, nine years on.",
        ),
    ],
)
def test_after_is_not_contradicted_by_a_stopword_or_a_name_sharing_the_stem_of_its_antonym(
    claim: str, evidence: str
) -> None:
    # WordNet gives "fore" as the opposite of "after"; its stem is the "for" of every sentence.
    evidence_tokens = tokenize(evidence)
    stems = frozenset(token.norm for token in evidence_tokens)

    assert core._opposite(tokenize(claim, is_claim=True), stems, evidence_tokens) == ""
    assert core._opposite(tokenize(claim.replace("after", "before"), is_claim=True), stems, evidence_tokens) == ""
    assert "opposite" in core._opposite(
        tokenize(claim, is_claim=True), stems | {"befor"}, [*evidence_tokens, *tokenize("before")]
    )


READING_BODY = """Novelist Marta Quennell will read from her new book at the Alder Street library on Friday.
Quennell will also sign copies, and the folk duo Harrow Lane will play afterwards."""


def test_a_person_called_by_the_other_part_of_their_name_is_not_a_swap() -> None:
    result = gate_evaluate(
        text="Marta will also sign copies on Friday, and Harrow Lane will play afterwards.",
        title="Library reading",
        body=READING_BODY,
    )

    assert result.verdict == PASSED, result.reason


def test_another_person_in_their_place_is_still_held_back() -> None:
    result = gate_evaluate(
        text="Harrow will also sign copies on Friday, and the folk duo will play afterwards.",
        title="Library reading",
        body=READING_BODY,
    )

    assert result.verdict == REJECTED


@pytest.mark.parametrize(
    ("sentence", "sentence_class"),
    [
        ("Leave a corner of your garden wild!", "call_to_action"),
        ("Ask your librarian about the reading club!", "call_to_action"),
        ("Give to their winter appeal!", "call_to_action"),
        # a noun that can be a verb, then a verb: a statement
        ("Work starts on the new roof next month.", "claim"),
        # an imperative with a figure in it says something checkable
        ("Ask your librarian about the 12 new reading clubs!", "claim"),
    ],
)
def test_an_imperative_to_the_reader_is_a_call_to_action_not_a_claim(sentence: str, sentence_class: str) -> None:
    result = gate_evaluate(text=sentence, title="Library news", body="The library opened a reading club.")

    assert result.claims[0].sentence_class == sentence_class


TRUST_BODY = """Third Harbour, the sea-swimming trust, will reopen its changing huts on Friday.
Councillor Ruth Penhale said the council had paid for new doors."""


def test_a_title_written_by_its_abbreviation_passes() -> None:
    result = gate_evaluate(
        text="Cllr Ruth Penhale said the council had paid for new doors.", title="Huts reopen", body=TRUST_BODY
    )

    assert result.verdict == PASSED, result.reason


def test_an_ordinal_opening_a_two_word_name_is_read_as_the_articles_name() -> None:
    # "Third" opens "Third Harbour" at the start of a sentence: a name there as it is mid-sentence.
    source = core.SourceText.build(title="Huts reopen", body=TRUST_BODY)

    assert "Third" in source.capitalised
    assert "Councillor" in source.capitalised  # "Councillor Ruth": a title opening a name


def test_an_ordinal_that_is_not_the_articles_name_is_still_checked() -> None:
    result = gate_evaluate(text="Their second changing hut reopens on Friday.", title="Huts reopen", body=TRUST_BODY)

    assert result.verdict == REJECTED


@pytest.mark.parametrize(
    ("sentence", "own_name", "sentence_class"),
    [
        ("The Kestrel Rowing Trust salutes coach Dana Moor and her crew.", "Kestrel Rowing Trust", "comment"),
        ("We at the Rowing Trust are so pleased for every crew.", "Kestrel Rowing Trust", "comment"),
        # "is" once read as "I" + "s": the business's name cut out leaves its verb, not a pronoun
        ("Kestrel Rowing Trust is grateful to Dana Moor and her crew.", "Kestrel Rowing Trust", "comment"),
        # what the business did is a fact, and an article that never names it cannot vouch for it
        ("The Kestrel Rowing Trust paid for the new boat.", "Kestrel Rowing Trust", "claim"),
        ("The Kestrel Rowing Trust salutes the 12 rowers who finished.", "Kestrel Rowing Trust", "claim"),
    ],
)
def test_the_businesss_praise_and_thanks_is_its_comment_not_a_claim(
    sentence: str, own_name: str, sentence_class: str
) -> None:
    result = gate_evaluate(
        text=sentence, title="Crew wins", body="Coach Dana Moor's crew won the regatta.", own_names=[own_name]
    )

    assert result.claims[0].sentence_class == sentence_class
