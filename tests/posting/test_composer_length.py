"""A draft is about as long as the business's own posts on the platform (issue 10, done-means 2:
"length per platform as its past posts"): a one-line captioner gets a short opening and a short
fact, a sentence's trailing aside left off where that keeps it true; a business that writes at
length still gets the article's best sentence whole. Measured over the labelled splits by
``make eval-compose`` (the length columns) and ``scripts/fact_choice_eval.py``."""

from __future__ import annotations

import statistics

import pytest

from posting.composer.extractive import SHORT_OPENINGS, _head_clause, compose_extractive
from posting.composer.relevance import topic_build
from posting.gate.core import gate_evaluate
from posting.voice.stats import voice_stats

TITLE = "Cutlers report record demand for kitchen knives"
LONG_SENTENCE = (
    "Sheffield's cutlers have reported record demand for kitchen knives this year, with orders from restaurants, "
    "home cooks and overseas buyers up by a third since January and waiting lists of six months at some workshops."
)
BODY = "\n".join(
    [
        LONG_SENTENCE,
        "The Cutlers' Company said the number of apprentices taken on had doubled since 2019.",
        "Most of the new demand is for chef's knives and small paring knives made from carbon steel.",
        "Visitors can watch grinders at work at the Kelham Island Museum on weekdays.",
    ]
)
ONE_LINERS = [
    "Forty-two knives sharpened today \U0001f52a #keenedge",
    "Back on the stall Saturday \U0001f52a #keenedge",
    "Japanese steel, new edge \U0001f52a #keenedge",
    "Chef's knife, before and after \U0001f52a #keenedge",
    "Scissors too, bring them along \U0001f52a #keenedge",
]
AT_LENGTH = [
    "We spent the morning regrinding a box of old carbon-steel kitchen knives that came in from a restaurant "
    "closing down in town. Some had lost a good centimetre of blade over the years, but they all take an edge "
    "again. If you have a drawer of knives that no longer cut, bring them to the stall on Saturday and we "
    "will have them back to you the same afternoon, ready for the Sunday roast and whatever comes after it.",
    "We get asked a lot whether a knife made of stainless steel can be as sharp as a carbon one. It can be, "
    "for a while: the difference is how long it keeps the edge and how easily it takes it back. We are happy "
    "to show you both on the stall, and to talk you through which suits the way you cook, with no pressure to "
    "buy anything at all. Our sharpening prices have not changed this year and will not change before spring.",
    "We have had a run of scissors in this month, from dressmaking shears to kitchen scissors that have been "
    "used to open too many parcels. Scissors need a different grind from knives and we do them by hand, one "
    "blade at a time. Drop them off with us on a Saturday and collect them the following week, or post them "
    "to us in a padded envelope with your name and address and we will send them back by return.",
]


def _draft(posts: list[str], platform: str) -> str:
    stats = voice_stats(posts)
    topic = topic_build(industry="knife sharpening", past_posts=posts)
    post = compose_extractive(title=TITLE, body=BODY, platform=platform, stats=stats, topic=topic)
    assert post is not None
    verdict = gate_evaluate(text=post.text, title=TITLE, body=BODY, sign_offs=stats["sign_offs"])
    assert verdict.verdict == "passed", verdict.reason
    return post.text


def test_a_one_line_captioner_gets_a_short_opening_and_a_short_fact_that_the_gate_passes() -> None:
    text = _draft(ONE_LINERS, "instagram")
    median = statistics.median(len(post) for post in ONE_LINERS)
    assert LONG_SENTENCE not in text, text
    assert text.split("\n\n")[0] in {o for group in SHORT_OPENINGS.values() for o in group}, text
    assert len(text) <= 3 * median, (len(text), median, text)
    # Still the business's own habits: its emoji and its tag.
    assert "\U0001f52a" in text and "#keenedge" in text, text


def test_a_business_that_writes_at_length_still_gets_the_best_sentence_whole() -> None:
    text = _draft(AT_LENGTH, "facebook_page")
    assert LONG_SENTENCE in text, text
    assert text.split("\n\n")[0] not in {o for group in SHORT_OPENINGS.values() for o in group}, text


@pytest.mark.parametrize(
    ("sentence", "head"),
    [
        (LONG_SENTENCE, "Sheffield's cutlers have reported record demand for kitchen knives this year."),
        (
            "Marlbeck's Corn Exchange will host its largest ever Christmas makers' market this year, with 46 "
            "stallholders over three weekends from 5 to 21 December.",
            "Marlbeck's Corn Exchange will host its largest ever Christmas makers' market this year.",
        ),
        (
            "Most of the railings were cut off at the base in 1942 and taken away for salvage, leaving the stubs "
            "still visible in the low stone walls today.",
            "Most of the railings were cut off at the base in 1942 and taken away for salvage.",
        ),
    ],
)
def test_a_trailing_aside_is_left_off_and_the_rest_is_a_sentence(sentence: str, head: str) -> None:
    assert _head_clause(sentence) == head


@pytest.mark.parametrize(
    "sentence",
    [
        # The aside is not at the end: "The report showed sales of everything." is a different claim.
        "The report showed sales of everything, including vinyl, rose by 20 per cent in the year to March.",
        "The shop, which opened in 1990, with a loan from the bank, has closed.",
        # The comma and "and" carry on the sentence's own list: "one at the crossroads." drops a stop.
        "The route will follow the same roads, but with two new request stops added: one at the Tansy Hill "
        "crossroads, which serves a fruit farm and its shop, and one outside the Fairsted showground.",
        "The bus will call at the Tansy Hill crossroads, which serves a fruit farm and its shop, and at Fairsted.",
        # A condition, a contrast, a time and who said it stay: without them the rest says more.
        "Tickets for the whole weekend will cost 15 pounds, unless they are bought before the end of May.",
        "The market will return to the square every Saturday, but only until the end of September.",
        "The bridge on the Old Town road will reopen to all traffic, after repairs costing 2 million pounds.",
        "Demand for real Christmas trees has risen sharply this year, the growers' association said.",
        # No verb before the comma: not a sentence on its own.
        "A record number of stallholders from every corner of the county, with more on the waiting list.",
        # Too short to stand alone once cut.
        "Prices went up, with more to come later in the year.",
    ],
)
def test_no_head_is_offered_where_leaving_the_rest_off_would_change_or_break_the_sentence(sentence: str) -> None:
    assert _head_clause(sentence) is None
