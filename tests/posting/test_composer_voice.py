"""The offline composer follows the learned voice, and writes nothing the gate must check."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from posting.composer.extractive import (
    IN_THE_NEWS_OPENINGS,
    OPENINGS,
    QUESTIONS,
    SHORT_OPENINGS,
    SHORT_SOMBRE_OPENINGS,
    SOMBRE_OPENINGS,
    SOMBRE_QUESTIONS,
    _can_stand_alone,
    compose_extractive,
    is_sombre,
    is_unwelcome,
    voice_for_platform,
    voice_traits,
)
from posting.composer.llm_composer import _voice_rules
from posting.composer.relevance import (
    RELEVANT_MIN,
    STOPWORDS,
    STRONG_MATCH_FACTOR,
    relevance_score,
    same_story,
    story_print,
    topic_build,
    word_family,
    word_stem,
    words_of,
)
from posting.gate.core import gate_evaluate
from posting.voice.stats import EMOJI_RE, HASHTAG_RE, PERSON_WORDS, voice_stats
from research.industries import vocabularies_used_in

TITLE = "Harwell launches the Aria turntable"
BODY = (
    "Harwell Acoustics has launched the Aria turntable, its first new deck in six years.\n"
    "Industry analysts said demand for record players had grown across Europe.\n"
    "The Aria costs \u00a31,450 and ships with a carbon-fibre tonearm and a moving-magnet cartridge.\n"
    "Dealers will have demonstration units from 14 March, the company said.\n"
    "Harwell also makes amplifiers and loudspeakers at its factory in Kelford."
)
FORMAL_WE = [
    "We have the new Rega Planar 3 on demonstration in our listening room. You are welcome to book a session.\n"
    "\u2014 The Listening Room team",
    "Our record cleaning service is now available on Saturdays. You can bring up to ten records at a time.\n"
    "\u2014 The Listening Room team",
    "We are pleased to stock the Naim Uniti range. You will find it in room two.\n\u2014 The Listening Room team",
]
CHATTY = [
    "New rye loaf alert \U0001f35e Have you tried it yet? #crumbandcrust #ashgrovebakes",
    "Cardamom bun o'clock \U0001f950 Who's coming to grab one? #crumbandcrust",
    "Soup and bread weather \u2615 Coming in to dry off? #crumbandcrust #saturdaybake",
]
DRY_I = [
    "Fitted a new chain and cassette on a 1990s tourer today. It runs quietly again.",
    "I replaced a snapped derailleur hanger this morning. Worth carrying a spare on gravel rides.",
    "My workshop is shut on Monday. I am back on Tuesday.",
]


@pytest.mark.parametrize(
    "text",
    [
        o
        for table in (
            OPENINGS,
            QUESTIONS,
            SOMBRE_OPENINGS,
            SOMBRE_QUESTIONS,
            SHORT_OPENINGS,
            SHORT_SOMBRE_OPENINGS,
            IN_THE_NEWS_OPENINGS,
        )
        for group in table.values()
        for o in group
    ],
)
def test_every_opening_and_question_carries_no_fact_for_the_gate(text: str) -> None:
    # With the business's emoji after it too, as the composer may write it.
    for written in (text, f"{text} \U0001f35e", f"\U0001f35e {text}"):
        assert gate_evaluate(text=written, title=TITLE, body=BODY).verdict == "no_substance", written


@pytest.mark.parametrize(
    "table",
    [
        OPENINGS,
        QUESTIONS,
        SOMBRE_OPENINGS,
        SOMBRE_QUESTIONS,
        SHORT_OPENINGS,
        SHORT_SOMBRE_OPENINGS,
        IN_THE_NEWS_OPENINGS,
    ],
)
def test_every_opening_and_question_speaks_in_the_person_it_is_filed_under(table) -> None:
    for (person, you), texts in table.items():
        for text in texts:
            words = set(re.findall(r"[a-z']+", text.lower()))
            assert bool(words & PERSON_WORDS["you"]) == you or (table in (QUESTIONS, SOMBRE_QUESTIONS) and you), text
            if table not in (QUESTIONS, SOMBRE_QUESTIONS):
                assert bool(words & PERSON_WORDS["we"]) == (person == "we"), text
                assert bool(words & PERSON_WORDS["I"]) == (person == "I"), text


def _compose(posts: list[str], platform: str = "facebook_page", **kwargs):
    stats = voice_stats(posts)
    topic = topic_build(industry="hi-fi dealer", past_posts=posts)
    post = compose_extractive(title=TITLE, body=BODY, platform=platform, stats=stats, topic=topic, **kwargs)
    assert post is not None
    result = gate_evaluate(text=post.text, title=TITLE, body=BODY, sign_offs=stats["sign_offs"])
    assert result.verdict == "passed", result.reason
    return post.text


def test_a_formal_we_voice_gets_we_you_its_sign_off_and_no_emoji_question_or_tags() -> None:
    text = _compose(FORMAL_WE, outlet="Hi-Fi Trade Weekly")

    opening = set(re.findall(r"[a-z']+", text.split("\n\n")[0].lower()))
    assert opening & PERSON_WORDS["we"] and opening & PERSON_WORDS["you"], text
    assert text.endswith("\u2014 The Listening Room team")
    assert not EMOJI_RE.search(text) and "?" not in text and not HASHTAG_RE.search(text)
    assert "Source: Hi-Fi Trade Weekly" in text


def test_a_chatty_voice_gets_its_own_emoji_its_own_tags_and_a_question() -> None:
    text = _compose(CHATTY, platform="instagram")

    assert set(EMOJI_RE.findall(text)) <= {"\U0001f35e", "\U0001f950", "\u2615"} and EMOJI_RE.search(text)
    assert set(HASHTAG_RE.findall(text)) <= {"crumbandcrust", "ashgrovebakes", "saturdaybake"}
    assert "#smallbusiness" not in text
    assert "?" in text
    assert "Link in bio" not in text


def test_a_dry_i_voice_speaks_as_i_never_as_we_nor_to_you() -> None:
    text = _compose(DRY_I).lower()

    assert " i " in f" {text} " or "i'm" in text or " my " in text
    assert " we " not in f" {text} " and " our " not in f" {text} "
    assert " you" not in text and "?" not in text


FIRE_TITLE = "Family escapes as fire destroys bakery roof on Mill Lane"
FIRE_BODY = (
    "A family of four escaped unhurt after a fire destroyed the roof of the Corner Loaf bakery on Mill Lane "
    "in the early hours of Tuesday.\n"
    "Firefighters from Ashgrove and Kelford spent five hours at the scene, and the flat above the bakery "
    "was left without power.\n"
    "The owners said they hoped to reopen the bakery within three months and thanked neighbours for their help."
)
PARTY_BAKER = [
    "New rye loaf alert \U0001f389\U0001f35e Have you tried it yet? We bake it every Friday. #crumbandcrust",
    "Cardamom bun o'clock \U0001f389 Who's coming to grab one? We saved you a tray. #crumbandcrust",
    "Soup and bread weather \U0001f35e Coming in to dry off? We're open till six. #crumbandcrust",
    "Sourdough is back \U0001f389\U0001f35e Have you booked your loaf? We sell out by ten. #crumbandcrust",
]


def _compose_about(posts: list[str], title: str, body: str, platform: str = "facebook_page") -> str:
    stats = voice_stats(posts)
    topic = topic_build(industry="bakery", past_posts=posts)
    post = compose_extractive(title=title, body=body, platform=platform, stats=stats, topic=topic)
    assert post is not None
    assert gate_evaluate(text=post.text, title=title, body=body).verdict == "passed", post.text
    return post.text


def _grave(voice: tuple[str, bool]) -> tuple[str, ...]:
    """The sombre openings of a voice, the short ones too (a business of short posts gets those)."""
    return (*SOMBRE_OPENINGS[voice], *SHORT_SOMBRE_OPENINGS[voice])


RISE_TITLE = "Flour prices to rise by 12 per cent from March, millers say"
RISE_BODY = (
    "Bakers will pay 12 per cent more for bread flour from 1 March after the Kelford Guild of Millers "
    "raised its list prices, blaming a wet harvest.\n"
    "A 16kg sack of strong white flour will cost £18.40, up from £16.45.\n"
    "The guild said organic and rye flours would rise by less, around 6 per cent."
)


def test_unwelcome_news_is_passed_on_not_recommended_and_keeps_the_businesss_emoji() -> None:
    """ "We think you'll like this one" over a flour price rise reads as if the bakery were glad of it."""
    text = _compose_about(PARTY_BAKER, RISE_TITLE, RISE_BODY)
    opening = text.split("\n\n")[0]

    assert any(opening.startswith(o) for o in _grave(("we", True))), opening
    assert not any(o in text for group in (*OPENINGS.values(), *SHORT_OPENINGS.values()) for o in group)
    assert "Surprised?" not in text
    # A price rise is no tragedy: the business's party popper may stay beside it.
    assert "\U0001f389" in text


def test_the_models_instructions_say_so_too() -> None:
    stats = voice_stats(PARTY_BAKER)

    rules = _voice_rules(stats, platform="facebook_page", unwelcome=True)

    assert any("will not welcome" in rule for rule in rules)
    assert not any("will not welcome" in rule for rule in _voice_rules(stats, platform="facebook_page"))


def test_bad_news_gets_a_grave_opening_and_none_of_the_businesss_party_emoji() -> None:
    text = _compose_about(PARTY_BAKER, FIRE_TITLE, FIRE_BODY)
    opening = text.split("\n\n")[0]

    assert any(opening.startswith(o) for o in _grave(("we", True))), opening
    assert not any(o in text for group in (*OPENINGS.values(), *SHORT_OPENINGS.values()) for o in group)
    assert "\U0001f389" not in text  # the party popper, beside a fire
    assert "\U0001f35e" in text  # the business's bread stays: it says what the business is
    assert "Surprised?" not in text and "?" in text


def test_good_news_keeps_the_recommending_opening_and_the_businesss_own_emoji() -> None:
    title = "Ashgrove bakery wins gold for its rye loaf at the National Bread Awards"
    body = (
        "The Corner Loaf bakery in Ashgrove has won a gold award for its dark rye loaf at the National Bread Awards.\n"
        "Judges praised the loaf's crust and said 240 bakeries had entered this year's rye category.\n"
        "The bakery will sell the winning loaf every Friday from 6 June."
    )
    text = _compose_about(PARTY_BAKER, title, body)

    assert any(text.split("\n\n")[0].startswith(o) for o in (*OPENINGS[("we", True)], *SHORT_OPENINGS[("we", True)]))
    assert "\U0001f389" in text


def test_on_bad_news_an_emoji_that_names_the_trade_stays_and_the_party_goes() -> None:
    stats = {"post_count": 5, "emoji": {"top": ["\U0001f389", "\U0001f388"], "rate": 1.0, "per_post": 2}}

    assert voice_traits(stats=stats, platform="instagram", sombre=True).emoji == ["\U0001f388"]
    assert voice_traits(stats=stats, platform="instagram").emoji == ["\U0001f389", "\U0001f388"]


def test_a_business_whose_every_emoji_celebrates_posts_bad_news_without_emoji() -> None:
    posts = [p.replace("\U0001f35e", "") for p in PARTY_BAKER]
    text = _compose_about(posts, FIRE_TITLE, FIRE_BODY)

    assert not EMOJI_RE.search(text), text


def test_link_in_bio_only_when_the_account_gave_its_bio_link() -> None:
    assert "Link in bio." not in _compose(CHATTY, platform="instagram")
    assert "Link in bio." in _compose(CHATTY, platform="instagram", bio_link=True)


def test_the_facts_are_the_ones_about_the_business_not_only_the_lead() -> None:
    stats = voice_stats(FORMAL_WE)
    topic = topic_build(industry="hi-fi dealer", past_posts=FORMAL_WE)

    post = compose_extractive(title=TITLE, body=BODY, platform="facebook_page", stats=stats, topic=topic)

    quoted = [source["sentence"] for source in post.sources]
    assert 1 <= len(quoted) <= 3
    assert quoted != [1]
    # The price and the tonearm matter to a hi-fi dealer; the analysts' generality does not.
    assert 3 in quoted and 2 not in quoted


def test_relevance_explains_itself_and_scores_another_trade_low() -> None:
    topic = topic_build(industry="hi-fi dealer", own_names=["The Listening Room"], past_posts=FORMAL_WE)

    on_topic = relevance_score(topic=topic, title=TITLE, body=BODY)
    off_topic = relevance_score(
        topic=topic,
        title="Farmers face a wet harvest",
        body="Wheat farmers in the east expect a late harvest after the wettest August in 40 years.\n"
        "Combine harvesters stood idle for two weeks and grain prices rose 6%.",
    )

    assert on_topic.relevant and not off_topic.relevant
    assert on_topic.score > off_topic.score
    assert {"turntable", "tonearm"} & set(on_topic.matched)


def test_the_same_story_from_two_outlets_is_one_story_and_a_different_story_is_not() -> None:
    other_outlet = story_print(
        title="Aria deck from Harwell Acoustics arrives at \u00a31,450",
        body="Kelford's Harwell Acoustics is back with the Aria, a \u00a31,450 turntable with a carbon-fibre arm.\n"
        "Demonstration units reach dealers on 14 March, Harwell said; it is the firm's first deck in six years.",
    )
    different = story_print(
        title="Nordvik recalls amplifiers",
        body="Nordvik has recalled 2,300 amplifiers after a fault in the power supply.\n"
        "Owners should stop using the NA-200 and contact their dealer.",
    )
    original = story_print(title=TITLE, body=BODY)

    assert same_story(original, other_outlet)
    assert not same_story(original, different)


def test_an_industry_we_cannot_map_gets_the_trade_vocabulary_its_own_posts_use() -> None:
    # "Analogue emporium" names none of our trades; the posts' turntables, amplifiers and speakers
    # say it is a hi-fi dealer, so an article that uses the trade's other words still ranks.
    posts = [
        "Our new turntable demo room opens on Friday.",
        "We have rewired the amplifier bench and moved the speakers.",
        "A reissue of a classic album on vinyl arrived this morning.",
        "Bring your own record to our listening evening.",
    ]
    article = {
        "title": "Cartridge and stylus makers report shortage",
        "body": "Makers of phono cartridges and stylus tips warn of waits for preamp and tonearm parts.\n"
        "Dealers selling hi-res streamer and DAC systems are less affected, the trade body said.",
    }
    unmapped = topic_build(industry="Analogue emporium", past_posts=posts)
    named_nothing = topic_build(industry="Analogue emporium", past_posts=posts[:1])

    assert relevance_score(topic=unmapped, **article).relevant
    assert {"cartridge", "stylus"} & set(relevance_score(topic=unmapped, **article).matched)
    # One post with one trade word is not enough to say which trade a business is in.
    assert not relevance_score(topic=named_nothing, **article).relevant


PLUMBER_POSTS = [
    "We fitted a new combi boiler in Ashgrove today.",
    "Radiators cold at the top? We can bleed them and balance the system.",
    "Annual boiler service slots open for next month.",
    "A burst pipe under the sink fixed before breakfast.",
]


def test_a_venue_named_after_a_trade_word_is_a_name_not_the_trade() -> None:
    # "The Boiler Works" is a music venue: its words are a name, one term of the article, and
    # a plumber's "boiler" does not make it plumbing news.
    topic = topic_build(industry="Plumbing and heating engineers", past_posts=PLUMBER_POSTS)
    venue = relevance_score(
        topic=topic,
        title="The Boiler Works reopens as a music venue",
        body="The Boiler Works, a former pumping station, reopens on Friday as a 400-capacity music venue.\n\n"
        "Bands will play every weekend at the Boiler Works, and the bar sits where the old pumps stood.",
    )
    trade = relevance_score(
        topic=topic,
        title="Boiler service bookings rise before winter",
        body="Heating engineers report a rise in boiler service bookings as the first cold nights arrive.\n\n"
        "A boiler that has not been serviced uses more gas, and radiators may stay cold.",
    )

    assert trade.relevant and not venue.relevant
    assert "boiler" not in venue.matched


def test_a_club_sharing_a_word_of_the_business_name_is_not_the_business() -> None:
    # The business is "Harbour & Heron Canoes"; a football club called Kelford Heron is not it.
    topic = topic_build(
        industry="",
        own_names=["Harbour & Heron Canoes"],
        past_posts=["Our canoes are out on the estuary at dawn.", "Canoe hire is open at the quay, paddles included."],
    )
    club = relevance_score(
        topic=topic,
        title="Kelford Heron win the county cup",
        body="Kelford Heron beat Westmere 2-1 to win the county cup.\n\nThe Heron scored twice in the second half.",
    )

    assert not club.relevant
    assert "heron" not in club.matched


def test_one_word_of_the_posts_does_not_carry_an_article_without_the_headline_trade_word() -> None:
    # Every post of this canoe firm ends "See you on the river!": "river" is its formula, and an
    # article about river water quality for anglers shares only that word.
    posts = [f"{text}\nSee you on the river!" for text in ("Canoes out at dawn.", "New paddles in.", "Hire open.")]
    topic = topic_build(industry="", own_names=["Heron Canoes"], past_posts=posts)
    only_river = relevance_score(
        topic=topic,
        title="Low river worries anglers",
        body="Anglers say the river is at its lowest for years, and fish in the river are struggling.",
    )

    # The share alone would let it in; the evidence (one post word, no trade word) does not.
    assert only_river.score >= topic.threshold
    assert not only_river.relevant
    assert "(river), no word of our trade" in only_river.short


def test_words_are_unicode_so_cafe_keeps_its_accent() -> None:
    assert words_of("Our café and crème brûlée") == ["our", "café", "and", "crème", "brûlée"]
    topic = topic_build(industry="café", past_posts=["New café menu", "Café open late"])
    assert "café" in relevance_score(topic=topic, title="Café owners face rent rise", body="A café pays more.").matched


def test_a_trade_is_inferred_from_posts_written_with_accents() -> None:
    # "café" was read as "caf" (ASCII letters only) and matched no vocabulary.
    assert "espresso" in vocabularies_used_in(["Our café opens at seven."], min_terms=1, min_share=0.0)


def test_a_title_case_headline_takes_its_names_from_the_body() -> None:
    # An outlet that Capitalises Every Word of its headlines: the capitals there mark no names,
    # so the headline's names are the ones the body writes as names.
    topic = topic_build(industry="Plumbing and heating engineers", past_posts=PLUMBER_POSTS)
    venue = relevance_score(
        topic=topic,
        title="The Boiler Works Reopens As A Music Venue",
        body="The Boiler Works, a former pumping station, reopens on Friday as a 400-capacity music venue.\n\n"
        "Bands will play every weekend at the Boiler Works, and the bar sits where the old pumps stood.",
    )
    trade = relevance_score(
        topic=topic,
        title="Boiler Service Bookings Rise Before Winter",
        body="Heating engineers report a rise in boiler service bookings as the first cold nights arrive.\n\n"
        "A boiler that has not been serviced uses more gas, and radiators may stay cold.",
    )

    assert trade.relevant and not venue.relevant
    assert {"boiler", "service"} <= set(trade.matched)


def test_a_fact_that_points_back_at_an_earlier_sentence_is_not_quoted_alone() -> None:
    # "...drove the rise, the guild said" tells of a rise the reader of the post never saw.
    title = "Independent bookshops have their best year in a decade"
    body = (
        "Independent bookshops saw a 9% rise in sales last year, the Booksellers' Guild said on Monday.\n\n"
        "Hardback fiction and picture books for children drove the rise, with author events and reading "
        "groups bringing readers back into shops week after week.\n\n"
        "The guild counted 1,127 independent bookshops trading in December, up from 1,072 a year earlier."
    )
    stats = voice_stats(FORMAL_WE)
    topic = topic_build(industry="bookshop", past_posts=["We have new fiction in.", "Our reading group meets."])

    post = compose_extractive(title=title, body=body, platform="facebook_page", stats=stats, topic=topic)

    assert post is not None
    assert "drove the rise" not in post.text


def test_a_fact_naming_an_earlier_sentence_in_other_words_is_not_quoted_alone() -> None:
    # "...linked the boom to roller discos": no earlier sentence says "boom" (it said "more than
    # doubled"), yet the reader of the post does not know which boom. The rink's own trade body's
    # figure stands alone and is what the post should carry.
    title = "Roller skating is the country's fastest-growing pastime, survey finds"
    body = (
        "The number of adults who go roller skating at least once a month has more than doubled in three "
        "years, according to the annual Active Lives survey published on Thursday.\n\n"
        "Researchers at the Centre for Leisure Studies linked the boom to roller discos, skating videos "
        "and quad skates in high street shops.\n\n"
        "The UK Rink Operators' Network said its 46 member rinks sold 2.1 million sessions last year, up by "
        "a third."
    )
    posts = [
        "Friday night roller disco returns to the rink this week, from 7pm. Skate hire included.",
        "Learn to Skate courses start again on 14 January: six weekly lessons at the rink.",
        "Quad skates and inline skates for hire at the rink desk, all sizes.",
    ]
    stats = voice_stats(posts)
    topic = topic_build(industry="roller skating rink", past_posts=posts)

    post = compose_extractive(title=title, body=body, platform="facebook_page", stats=stats, topic=topic)

    assert post is not None
    assert "the boom" not in post.text
    assert "2.1 million sessions" in post.text
    assert gate_evaluate(text=post.text, title=title, body=body).verdict == "passed"


LEANING_FACTS = [
    pytest.param(
        "Council to ban tyres over ten years old on licensed taxis",
        "Taxis and private hire cars licensed in Dunmere district will not be allowed to run on tyres more "
        "than ten years old, the licensing committee decided on Monday.\n\n"
        "Councillors also agreed that taxis with tyre tread below 2mm, rather than the legal minimum of 1.6mm, "
        "would fail the council's taxi test.",
        "also agreed",
        id="also",
    ),
    pytest.param(
        "Weekly dance classes cut falls among older people by a third",
        "Older people who go to weekly classes fall less often, researchers in Kelford have found.\n\n"
        "Half were offered a free weekly dance class in ballroom, Latin or tap dance; the others carried on "
        "as usual.",
        "Half were offered",
        id="a quantity standing for people named before",
    ),
    pytest.param(
        "Theatre repairs its hearing loop after letter from hearing aid users",
        "The Callowford Playhouse has mended its sound system after a letter from Joan Drury and other "
        "regular theatregoers.\n\n"
        "Mrs Drury said the hearing loop in the stalls had been silent since the rewiring of the old theatre.",
        "Mrs Drury said",
        id="a title and a surname given in full before",
    ),
    pytest.param(
        "Taxi tyre checks to start in May",
        "Dunmere's licensing office began checking the tread on licensed taxis this month.\n\n"
        "Every taxi he checked on Monday had worn tyres, and 14 failed the tyre check.",
        "taxi he checked",
        id="a he the sentence does not name",
    ),
    pytest.param(
        "Dance teacher, 81, still teaching tap in Kelford",
        "Joan Marchetti, 81, has lived in Kelford since 1968.\n\n"
        "Marchetti runs three dance classes a week, and 40 dance pupils passed their dance exams this year.",
        "Marchetti runs",
        id="a surname alone, given in full before",
    ),
    pytest.param(
        "Hearing aid batteries recalled after overheating",
        "Zinc-air batteries sold for hearing aids in Kelford shops are being recalled after reports that they "
        "overheated.\n\n"
        "Two hearing aid centres withdrew a rival brand of hearing aid batteries for the same reason in 2021 "
        "and 2022.",
        "for the same reason",
        id="the same as what an earlier sentence said",
    ),
]


@pytest.mark.parametrize(("title", "body", "leaning"), LEANING_FACTS)
def test_a_fact_that_adds_to_or_counts_what_came_before_is_not_quoted_alone(
    title: str, body: str, leaning: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "Councillors also agreed...", "Half were offered...", "Mrs Drury said...", "Every taxi he
    # checked...", "Marchetti runs...": each leans on the sentence before it, which the reader of
    # the post never saw. Each is the one the composer
    # quoted before (it carries more of the business's words and numbers): without the cost it
    # still is, so this test can fail.
    from posting.composer import extractive

    posts = ["We fit hearing aids and we check hearing loops.", "Tyres, taxis and tread checks.", "Dance class."]
    stats = voice_stats(FORMAL_WE)
    topic = topic_build(industry="dance school, tyres and taxis, hearing aid centre", past_posts=posts)

    def quoted() -> str:
        extractive._article_reading.cache_clear()
        post = compose_extractive(title=title, body=body, platform="facebook_page", stats=stats, topic=topic)
        assert post is not None
        return post.text

    monkeypatch.setattr(extractive, "REFERS_BACK_COST", 0.0)
    monkeypatch.setattr(extractive, "UNNAMED_PERSON_COST", 0.0)
    assert leaning in quoted()
    monkeypatch.undo()
    text = quoted()
    assert leaning not in text
    assert gate_evaluate(text=text, title=title, body=body).verdict == "passed"


def test_a_business_known_only_by_its_name_is_about_the_words_of_its_name() -> None:
    # A business file with only "name" is public-interface valid: "Ashgrove Plumbing & Heating"
    # says what it does, so a plumbing headline is evidence enough, and another trade is not.
    topic = topic_build(own_names=["Ashgrove Plumbing & Heating"])
    trade = relevance_score(
        topic=topic,
        title="Plumbing firms struggle to find apprentices",
        body="Plumbing and heating firms say they cannot find apprentices as older engineers retire.",
    )
    other = relevance_score(
        topic=topic,
        title="Bakers face a flour price rise",
        body="Bakers in Ashgrove expect flour to cost 18% more after a poor harvest.",
    )

    assert trade.relevant and not other.relevant


def test_an_article_sharing_only_words_of_the_posts_and_names_is_another_trades_story() -> None:
    # A brewery named after the railway engine shed it brews in, whose posts keep mentioning its
    # car park and its quiz: a heritage railway's engine shed, or a car-park quiz, shares those
    # words and none of brewing's.
    posts = [
        "Quiz night at the Engine Shed taproom, car park open from 6pm.",
        "Our quiz is back at the Engine Shed, and the car park is free after 5.",
        "New pale ale on the bar. Quiz teams welcome, car park round the back.",
    ]
    topic = topic_build(industry="Craft brewery", own_names=["The Engine Shed"], past_posts=posts)
    body = (
        "Volunteers have restored the engine shed at Hollins station. The engine shed held six "
        "locomotives, and a quiz for visitors in the car park raised money. The car park quiz returns."
    )
    railway = relevance_score(topic=topic, title="Heritage railway restores engine shed", body=body)
    assert not railway.relevant
    assert "no word of our trade" in railway.short
    # "engine shed" in lower case is the everyday phrase the brewery's name was made of: one
    # term, not two of its words; the car park and the quiz are what it still shares.
    assert not {"engine", "shed"} & set(railway.matched)
    assert {"car", "quiz"} <= set(railway.matched)

    # The same article with brewing in it is ours: the check asks for a trade word, not a count.
    brewing = relevance_score(
        topic=topic,
        title="Heritage railway restores engine shed for a beer festival",
        body=body + " A beer festival with cask ale from six breweries opens there in May.",
    )
    assert brewing.relevant, brewing


def test_a_trade_word_counts_only_where_the_article_uses_it_in_our_sense() -> None:
    # A tree surgeon no vocabulary of ours describes: "tree" (its name) and "arborist" (most of
    # its posts) are what it is. A family tree uses the word, but no word of the business's is
    # near it; a felled oak is tree work because its paragraph also speaks of oaks and crowns.
    posts = [
        "Crown reduction on an old oak in Westmere. Arborist work done properly.",
        "Big ash down today. Dieback. Every arborist hates losing them.",
        "Hedge trimmed, stump ground out, woodchip left for the compost. Arborist life.",
        "Willow pollarded by the river. Back on the ropes tomorrow.",
    ]
    topic = topic_build(industry="", own_names=["Ferris Tree Work"], past_posts=posts)
    assert {"tree", "arborist"} <= topic.subject_terms

    family = relevance_score(
        topic=topic,
        title="Volunteers map 400 years of village families in a giant family tree",
        body=(
            "A group of volunteers has traced the family tree of every household in the village.\n\n"
            "The family tree will go on display in the hall, and the volunteers want more photographs."
        ),
    )
    assert not family.relevant
    assert "no word of our trade" in family.short

    # The research extractor ends a paragraph with one newline: the family tree's paragraph is
    # still its own, whatever a later paragraph about the churchyard's stump says.
    extracted = relevance_score(
        topic=topic,
        title="Village maps its family tree",
        body="Volunteers traced the family tree of every household.\nThe stump and woodchip path by the hedge stay.",
    )
    assert not extracted.relevant
    assert extracted.score >= topic.threshold

    storm = relevance_score(
        topic=topic,
        title="Storm brings down trees across the village",
        body=(
            "An old oak tree fell across the lane in the storm, and its crown blocked the road.\n\n"
            "An arborist said the ash trees nearby had dieback and would need felling."
        ),
    )
    assert storm.relevant, storm


def test_a_word_of_the_business_name_or_a_number_is_not_what_it_is() -> None:
    # The chess club's town is in its name and most of its posts, and so is "7pm": neither says
    # what it does, so a story about the town's football team is not the club's.
    posts = [f"Ashgrove Chess Club meets {day} at 7pm. Chess for juniors and adults." for day in ("Monday", "Tuesday")]
    posts += ["Ashgrove Chess Club won the county chess league at 9pm last night."]
    topic = topic_build(industry="Chess club", own_names=["Ashgrove Chess Club"], past_posts=posts)
    assert "chess" in topic.subject_terms
    assert not {"pm", "ashgrov", "ashgrove"} & topic.subject_terms


def test_an_article_word_of_the_same_family_is_the_business_word() -> None:
    # The piano school writes "piano", the article "pianist"; the honey farm "beekeeping", the
    # article "beekeepers". A word family is one term; a theatre's "musical" is not "music".
    assert word_family(word_stem("pianist")) == word_family(word_stem("piano"))
    assert word_family(word_stem("beekeepers")) == word_family(word_stem("beekeeping"))
    assert word_family(word_stem("potter")) == word_family(word_stem("pottery"))
    assert word_family(word_stem("musical")) != word_family(word_stem("music"))
    assert word_family(word_stem("water")) == "water"
    topic = topic_build(industry="music tuition", past_posts=["Piano lessons on Tuesdays.", "Piano exams next week."])
    assert topic.ours(word_stem("pianists")) == word_stem("piano")
    body = (
        "Forty young pianists will play in the town's first piano competition for pupils, with piano "
        "teachers judging each round.\n\nThe pianists play two pieces each, and lessons are offered to the winners."
    )
    young = relevance_score(topic=topic, title="Young pianists compete for a scholarship", body=body)
    assert young.relevant, young
    assert "piano" in young.matched


def test_a_word_of_a_name_in_the_article_is_not_the_trade_word() -> None:
    # A potter named after her kiln: "Kiln Lane" in a crime story is a street, not a kiln, even
    # though the story also "throws" stones (and she throws pots).
    posts = [
        "Throwing bowls all morning. The kiln needs a new shelf.",
        "Kiln opened this morning. Throwing again tomorrow.",
        "Fired the kiln overnight. Glazing mugs today.",
    ]
    topic = topic_build(industry="", own_names=["The Kiln Room"], past_posts=posts)
    crime = relevance_score(
        topic=topic,
        title="Vandals throw stones at windows on Kiln Lane",
        body=(
            "Residents of Kiln Lane say vandals have been throwing stones at windows.\n\n"
            "Police said the throwing had happened on three nights on Kiln Lane."
        ),
    )
    assert not crime.relevant, crime
    assert "no word of our trade" in crime.short
    firing = relevance_score(
        topic=topic,
        title="Potters face higher kiln firing costs",
        body=(
            "Studios say firing a kiln now costs twice as much.\n\n"
            "One potter fires her kiln at night to save on throwing."
        ),
    )
    assert firing.relevant, firing


def test_two_trade_words_as_evidence_pass_a_little_under_the_threshold() -> None:
    # A story about the trade is diluted by its own words (a pesticide, its committee, a crop):
    # two words of what the business is weighing as evidence let it pass at STRONG_MATCH_FACTOR
    # of the threshold.
    posts = ["Our bees made heather honey.", "Honey jars out.", "The bees are busy.", "Bees on the heather."]
    topic = topic_build(industry="beekeeping and honey", past_posts=posts)
    assert STRONG_MATCH_FACTOR < 1.0
    assert {"bee", "beekeep"} <= topic.subject_terms
    others = "growers committee aphids virus seeds yields department farmers weeds sugar factories ministers tractors"
    body = (
        "Ministers refused the beet growers' pesticide, citing the risk to bees and wild bees.\n\n"
        "Beekeepers welcomed it: bees forage at field edges, and beekeepers lost bees there. "
        + " ".join(f"The {word} matter." for word in [*others.split(), "loans", "exports"])
    )
    diluted = relevance_score(topic=topic, title="Ministers refuse pesticide on sugar beet", body=body)
    assert topic.threshold * STRONG_MATCH_FACTOR <= diluted.score < topic.threshold
    assert diluted.relevant, diluted


def test_an_own_name_written_whole_in_lower_case_is_the_everyday_phrase() -> None:
    # A roofer called "Clean Slate": a council that starts its budget "from a clean slate" uses
    # both words of the name, each vouching for the other's sense, and is not roofing news.
    # Slate roofs are, and so is the name written as a name.
    posts = [
        "Slate roof repaired in Hollins today. Twelve slates replaced.",
        "Ridge tiles re-bedded on a slate roof in Westmere.",
        "Storm damage: slates off a roof in Ashgrove, fixed by lunch.",
        "Leaking valley on a slate roof sorted.",
    ]
    topic = topic_build(industry="", own_names=["Clean Slate", "Clean Slate Roofing"], past_posts=posts)
    assert ("clean", "slat") in topic.name_phrases
    assert ("clean", "slat", "roof") in topic.name_phrases
    idiom = {
        "title": "Council promises a clean slate on the budget",
        "body": "Kelford Council says next year's budget will start from a clean slate.\n\n"
        "The leader said a clean slate meant every service would be reviewed, and the roof of the "
        "town hall would wait.",
    }
    phrase = relevance_score(topic=topic, **idiom)
    assert not phrase.relevant, phrase
    assert "no word of our trade" in phrase.short
    # Without the phrase rule the same article would pass: the mechanism is what stops it.
    assert relevance_score(topic=replace(topic, name_phrases=frozenset()), **idiom).relevant

    storm = relevance_score(
        topic=topic,
        title="Slate roofs lose slates in the storm",
        body="Roofers say hundreds of slate roofs lost slates in the storm.\n\n"
        "A slate roof with cracked slates will leak, and roofers are booked for weeks.",
    )
    assert storm.relevant, storm


def test_a_contraction_is_never_what_a_business_writes_about() -> None:
    # A chatty business writes "we've" and "you'll" in every post; a road engineer's "we've"
    # is no word of its trade.
    posts = ["We've set 40 new problems. You'll love them.", "We've got a new board.", "We've reset the cave."]
    topic = topic_build(industry="climbing wall", past_posts=posts)
    assert not {word_stem("we've"), word_stem("you'll")} & set(topic.terms)
    assert "cave" in topic.terms


def test_a_trade_guessed_from_posts_counts_no_filler_word_as_a_hit() -> None:
    # A locksmith's posts say "home", "house", "landlords" and "prices": "home" and "price" are
    # words every business writes, so two words of real estate remain, not the four that
    # would make it an estate agent and every housing story its trade.
    posts = [
        "Moved house? Change the locks before you unpack.",
        "Your home insurance may need a five-lever deadlock on every door.",
        "Landlords: we change locks between tenancies.",
        "Key cutting prices are on our website.",
    ]
    assert "mortgage" in vocabularies_used_in(posts, min_terms=4, min_share=0.15)
    assert "mortgage" not in vocabularies_used_in(posts, min_terms=4, min_share=0.15, ignored=STOPWORDS)
    topic = topic_build(industry="locksmith", past_posts=posts)
    assert "mortgag" not in topic.terms
    assert "hous" not in topic.subject_terms
    # An unmapped industry whose posts do use a trade's words still gets that trade.
    wiring = [
        "Full rewiring of a kitchen extension in Hollins.",
        "Consumer unit and wiring upgraded during a renovation.",
        "An electrician should test the wiring before any building work.",
        "Planning a new kitchen? Book the electrical work early.",
    ]
    assert "boiler" in topic_build(industry="electrical contractor", past_posts=wiring).terms


def test_an_industry_qualifier_its_posts_never_write_is_not_what_it_is() -> None:
    # "indoor karting track": the posts write karts, laps and the track, never "indoor". A
    # netball team's indoor title shares "indoor" and the posts' "league", but is not karting.
    posts = [
        "New karts on the track this week. Beat your best lap!",
        "Junior league night: ten laps each, fastest lap wins.",
        "Track closed Monday for resurfacing. Karts back Tuesday.",
        "Birthday parties: eight karts, twenty laps, one podium.",
    ]
    topic = topic_build(industry="indoor karting track", past_posts=posts)
    assert "indoor" not in topic.subject_terms
    assert {"track", word_stem("karting")} <= topic.subject_terms
    netball = {
        "title": "Netball club wins the league and the indoor title",
        "body": "Kelford netball club won the league on Saturday and the indoor title in March.\n\n"
        "The indoor final went to extra time, and the league title was sealed with a game to spare.",
    }
    assert not relevance_score(topic=topic, **netball).relevant
    assert relevance_score(topic=replace(topic, subject_terms=topic.subject_terms | {"indoor"}), **netball).relevant
    karting = relevance_score(
        topic=topic,
        title="Karting track reopens after resurfacing",
        body="The karting track at Hollins reopens with new karts and a longer lap.\n\n"
        "Drivers set the fastest lap on the new track within an hour.",
    )
    assert karting.relevant, karting


def test_one_word_shared_however_often_is_a_shared_word_not_a_topic() -> None:
    # A bouldering wall and a rockfall: "boulder" is in the headline and three times in the
    # body, and the sea wall it hit sits beside it (so the word passes the sense check), but
    # no other word of the business is among what the article is about.
    posts = [
        "Forty new bouldering problems on the wall this week.",
        "Kids' bouldering club is back. Book at the desk.",
        "Brush your holds after a problem: it keeps the wall grippy.",
        "Our bouldering league starts in March.",
    ]
    topic = topic_build(industry="indoor climbing and bouldering wall", past_posts=posts)
    # The rockfall's own story: more words, each written twice, than KEY_TERMS keeps.
    filler = (
        "engineers tonnes cliff crater diversion netting anchors residents village pub cafe drivers "
        "highways rock earth carriageway storm midnight funding footpath pedestrians cyclists "
        "councillor parish journeys cracks slope fence drainage bus ferry harbour"
    )
    story = " ".join(f"The {word} were noted, and the {word} again." for word in filler.split())
    body = (
        "A boulder the size of a van fell onto the coast road on Sunday night.\n\n"
        "The boulder also damaged the sea wall, and a second boulder is loose.\n\n" + story
    )
    rockfall = relevance_score(topic=topic, title="Boulder closes coast road for months", body=body)
    assert rockfall.score >= topic.threshold
    assert not rockfall.relevant, rockfall
    assert rockfall.short == "it shares one word with us (bouldering), not a topic"

    climbers = relevance_score(
        topic=topic,
        title="Bouldering wall opens in the old mill",
        body="A bouldering wall with 200 problems opens in the old mill.\n\n"
        "Climbers can book a taster at the desk, and a junior league starts in May.",
    )
    assert climbers.relevant, climbers


def test_a_trade_the_industry_line_names_but_the_posts_never_write_is_not_the_business() -> None:
    # "lessons" names music tuition, but a swim school's posts write no word of music: a guitar
    # is not its word. With no posts, nothing contradicts the line and the trade stays.
    posts = [
        "Our tadpoles swam their first width today! Well done, swimmers!",
        "Swimming lessons restart on Monday: can you find your goggles?",
        "Floats out, kick those legs! Our swimmers learn to love the water.",
    ]
    swim = topic_build(industry="children's swimming lessons", past_posts=posts)
    assert swim.weight("guitar") == 0.0
    assert "guitar" not in swim.subject_terms
    assert swim.threshold == RELEVANT_MIN
    assert topic_build(industry="children's swimming lessons").weight("guitar") > 0.0

    guitar = relevance_score(
        topic=swim,
        title="Guitar lessons for every child in the county",
        body="Every child will get guitar lessons, the music service said.\n\n"
        "The guitar and the violin lessons will run in school time, and the music teachers start in May.",
    )
    assert not guitar.relevant, guitar


def test_three_trade_words_as_evidence_carry_a_diluted_article_further_than_two() -> None:
    # A vets' warning about lilies, long and mostly about cats, writes "florist", "flower" and
    # "bouquet" often enough that each weighs as evidence: the florist's story at 0.78 of the
    # threshold, below what two trade words need (0.9). Diluted further (0.65), it is not.
    posts = [
        "Fresh peonies in the shop today, and our florist has made a bouquet for every table.",
        "Wedding flowers booked for June: a bouquet, buttonholes and table flowers.",
        "Our florist's tip: cut the stems and change the water every day.",
    ]
    florist = topic_build(industry="florist", past_posts=posts)
    words = [
        "vets",
        "kidney",
        "cats",
        "owners",
        "poisoning",
        "pollen",
        "symptoms",
        "clinic",
        "treatment",
        "vomiting",
        "drip",
        "charity",
    ]

    def lilies(story_words: int) -> str:
        story = " ".join(f"The {w} was noted, and the {w} again, and the {w} once more." for w in words[:story_words])
        return (
            "Vets warn that a lily bouquet can kill a cat.\n\n"
            "Every florist and flower seller was asked to label each bouquet; a florist said flowers "
            "carry a card now. Flowers from the florist.\n\n" + story
        )

    warned = relevance_score(topic=florist, title="Vets warn cat owners over lilies", body=lilies(7))
    assert warned.score < florist.threshold * STRONG_MATCH_FACTOR
    assert warned.relevant, warned
    assert not relevance_score(topic=florist, title="Vets warn cat owners over lilies", body=lilies(12)).relevant


def test_a_platform_whose_captions_never_say_we_borrows_the_businesss_we() -> None:
    # The business is "we" on Facebook; its Instagram captions are too short to say so.
    facebook = voice_stats(["We counted forty-two knives today 🙌", "Back on Thursday, we'll be by the church 🚐"] * 3)
    instagram = voice_stats(["Forty-two knives 🙌 #keenedge", "Salon day 😎 #keenedge", "Van life 🚐 #keenedge"] * 3)
    stats = voice_for_platform(instagram, [facebook])
    assert stats["person"] == "we"
    # Only the person is borrowed: Instagram keeps its own hashtags and emoji.
    assert stats["hashtags"] == instagram["hashtags"] and stats["emoji"] == instagram["emoji"]
    post = compose_extractive(title=TITLE, body=BODY, platform="instagram", stats=stats)
    assert post is not None
    assert re.search(r"\b(?:we|our|us)\b", post.text, flags=re.IGNORECASE)
    assert not re.search(r"\b(?:I|my)\b", post.text)


def test_a_platform_that_speaks_of_the_business_by_name_does_not_borrow_we() -> None:
    # We on Facebook; on Instagram it speaks of itself by its name (blind17's balloon flights, whose
    # Instagram drafts said "This one caught our eye." before): there the third person is a choice.
    names = ["Skylark Balloon Flights", "Skylark"]
    facebook = voice_stats(
        ["We fly at dawn from the park.", "Your ticket rolls over, we'll rebook you."] * 3, own_names=names
    )
    instagram = voice_stats(
        ["Skylark's inflation at first light 🔥", "Skylark over the valley ☀️", "The burner, up close 🔥"] * 3,
        own_names=names,
    )
    assert instagram["person_rate"] == 0 and instagram["names_self_rate"] == pytest.approx(2 / 3, abs=1e-3)
    stats = voice_for_platform(instagram, [facebook])
    assert stats["person"] == ""
    post = compose_extractive(title=TITLE, body=BODY, platform="instagram", stats=stats)
    assert post is not None
    assert not re.search(r"\b(?:we|our|us|I|my)\b", post.text, flags=re.IGNORECASE)
    # Without its names, the same captions look like "too short to say we", and borrow it.
    unnamed = voice_stats(["Skylark over the valley ☀️"] * 3)
    assert voice_for_platform(unnamed, [facebook])["person"] == "we"


def test_a_name_counts_as_a_whole_word_in_any_case() -> None:
    names = ["The Salt House", "Salt House Sauna"]
    posts = ["Back at the salt house on Friday.", "Salthouse Road is closed.", "Sea at 9 degrees."]
    assert voice_stats(posts, own_names=names)["names_self_rate"] == pytest.approx(1 / 3, abs=1e-3)
    assert voice_stats(posts)["names_self_rate"] == 0.0


def test_a_name_split_by_a_comma_is_a_list_not_the_business() -> None:
    """blind18's stonemason, Banker & Mallet, captions its tools "Banker, mallet, claw chisel.":
    read as its name, its Instagram looked third person and its drafts there lost its "I"."""
    names = ["Banker & Mallet"]
    tools = ["Banker, mallet, claw chisel. The whole kit.", "Slate lettering, halfway.", "Lime putty, four months."]
    named = ["Banker & Mallet at the quarry.", "banker and mallet, back on Monday.", "Lime putty, four months."]

    assert voice_stats(tools, own_names=names)["names_self_rate"] == 0.0
    assert voice_stats(named, own_names=names)["names_self_rate"] == pytest.approx(2 / 3, abs=1e-3)


def test_a_business_that_never_names_itself_anywhere_stays_third_person() -> None:
    third = voice_stats(["Fresh oyster mushrooms are in this week.", "The cellar is at 12 degrees."] * 4)
    stats = voice_for_platform(third, [third])
    assert stats["person"] == ""
    post = compose_extractive(title=TITLE, body=BODY, platform="facebook_page", stats=stats)
    assert post is not None
    assert not re.search(r"\b(?:we|our|us|I|my)\b", post.text, flags=re.IGNORECASE)


def test_one_post_in_ten_saying_we_is_still_a_we_business() -> None:
    posts = ["We counted forty-two knives 🙌"] + ["Stanway, sunny 😎"] * 9
    stats = voice_stats(posts)
    assert stats["person"] == "we" and stats["person_rate"] == pytest.approx(0.1)
    post = compose_extractive(title=TITLE, body=BODY, platform="facebook_page", stats=stats)
    assert post is not None
    assert re.search(r"\b(?:we|our|us)\b", post.text, flags=re.IGNORECASE)


@pytest.mark.parametrize(
    ("title", "unwelcome"),
    [
        ("Marden feed mill raises prices by 14 per cent after wet harvest", True),
        ("Council puts up its parking charges from April", True),
        ("Water company to hike bills for a third year", True),
        ("Craft brewers say Budget duty change will cost them thousands", True),
        ("North Sea cod quota cut by a fifth for next year", True),
        ("Budget: draught beer duty cut, but small brewers lose part of their discount", True),
        ("Craft sellers face bill for product safety checks under new rules", True),
        ("Catteries and kennels face surprise inspections and higher licence fees", True),
        ("Cab fares going up: Hensby councillors back drivers' call for higher tariff", True),
        ("Fare review will cost passengers a little extra from November", True),
        ("Higher standards for the county show's cattle classes this year", False),
        ("Champion faces old rivals in county final", False),
        ("Two-time champion faces old rival in county final", False),
        ("New kitchen showroom cost 40,000 pounds to fit out", False),
        ("Village fete raises money for the church roof", False),
        ("Bakery raises its game with a new sourdough", False),
    ],
)
def test_paying_more_facing_a_bill_or_a_cut_is_unwelcome_news(title: str, unwelcome: bool) -> None:
    assert is_unwelcome(title, "") is unwelcome


def test_a_quotation_cut_in_two_or_someone_elses_me_is_never_quoted_as_a_fact() -> None:
    """The splitter ends a sentence inside a quotation ('...said: "Feed is three-quarters of it.'):
    quoted alone it opens a quote it never closes, and its "me" reads as the business's own."""
    traits = voice_traits(stats=voice_stats(CHATTY), platform="instagram")
    cut = 'Diane Coombe, who keeps 400 hens near Larkfield, said: "Feed is three-quarters of what it costs the farm.'
    whole = 'Diane Coombe, who keeps 400 hens near Larkfield, said feed was "three-quarters of the cost" of a bird.'
    someone_elses_me = "Diane Coombe said the rise would cost me another 60 pounds a week on feed alone."

    assert not _can_stand_alone(cut, traits)
    assert not _can_stand_alone(someone_elses_me, traits)
    assert _can_stand_alone(whole, traits)


@pytest.mark.parametrize(
    ("title", "sombre"),
    [
        ("Stowford Leisure Centre pool closed for three weeks after rats found in plant room", True),
        ("Library shut until spring for roof repairs", True),
        ("Measles cases rise as jab uptake falls among young children", True),
        ("Alpaca and llama keepers face compulsory TB tests before any sale", True),
        ("Brookvale's only supermarket to close next month", True),
        ("Burst pipe claims treble after week of freezing weather", True),
        ("Portlowe beach bathing water rated 'poor' after sewage spills", True),
        ("Storm Edith strips dunes and shuts beach path at Penmorrow", True),
        ("Gales leave 9,000 homes without power across the county", True),
        ("Brainstorming evening for new market traders", False),
        ("Shops will close at 4pm on Christmas Eve", False),
        ("Pistachio scoops gold for Dunholt at national gelato awards", False),
        ("Closing date for show entries is 1 May", False),
    ],
)
def test_a_place_shut_vermin_illness_or_a_burst_pipe_is_bad_news_not_a_pick_for_you(title: str, sombre: bool) -> None:
    assert is_sombre(title, "") is sombre


@pytest.mark.parametrize(
    "sentence",
    [
        "Among them, a Calderbrook chocolatier will give demonstrations of tempering each afternoon.",
        "Of those, six were repaired by volunteers from the Kelford Repair Cafe over the summer.",
        "Most of them came from farms within twenty miles of the town, the organisers said.",
        "In response, the council is expanding its Active Holidays programme, which offers free holiday clubs.",
        "Despite this, bookings for the summer term are up by a fifth on last year.",
    ],
)
def test_a_sentence_leaning_on_the_one_before_is_not_quoted_alone(sentence: str) -> None:
    assert not _can_stand_alone(sentence, voice_traits(stats=voice_stats(CHATTY), platform="instagram"))


NEWS_TITLE = "Removal firms booked solid as tenants beat the March deadline"
NEWS_BODY = (
    "Graham Carrick, of Carrick Removals in Brindle Cross, said his company had 41 moves booked for the last week "
    "of March, against about 12 in a normal week.\n"
    "Removal firms across the county say the rush began in February."
)


def _opening_of(title: str, body: str, own_names: list[str]) -> str:
    stats = voice_stats(FORMAL_WE)
    post = compose_extractive(
        title=title,
        body=body,
        platform="facebook_page",
        stats=stats,
        topic=topic_build(industry="removals", past_posts=FORMAL_WE),
        own_names=own_names,
    )
    assert post is not None
    assert gate_evaluate(text=post.text, title=title, body=body, sign_offs=stats["sign_offs"]).verdict == "passed"
    return post.text.split("\n\n")[0]


def test_news_that_names_the_business_opens_as_its_own_news() -> None:
    """ "One we think you'll enjoy." over a story quoting the owner reads as if it were someone else's."""
    opening = _opening_of(NEWS_TITLE, NEWS_BODY, ["Carrick Removals", "Carrick Removals & Storage"])
    assert opening in IN_THE_NEWS_OPENINGS[("we", True)], opening
    # Another firm's owner quoted: the usual opening.
    other = _opening_of(NEWS_TITLE, NEWS_BODY, ["Swift Moves"])
    assert other not in {o for group in IN_THE_NEWS_OPENINGS.values() for o in group}, other


def test_a_name_that_is_only_the_place_it_is_named_after_is_not_the_business() -> None:
    body = NEWS_BODY.replace("of Carrick Removals in Brindle Cross", "who lives in Brindle Cross")
    opening = _opening_of(NEWS_TITLE, body, ["Brindle Cross Removals", "Brindle Cross"])
    # Its main name in the story is the business, though another of its names starts the same.
    assert (
        _opening_of(NEWS_TITLE, NEWS_BODY, ["Carrick Removals", "Carrick Removals & Storage"])
        in (IN_THE_NEWS_OPENINGS[("we", True)])
    )
    assert opening not in {o for group in IN_THE_NEWS_OPENINGS.values() for o in group}, opening


def test_bad_news_about_the_business_keeps_the_grave_opening() -> None:
    title = "Removal firm's lorry destroyed in depot fire"
    body = "A lorry belonging to Carrick Removals was destroyed in a fire at its depot in Brindle Cross on Sunday."
    opening = _opening_of(title, body, ["Carrick Removals"])
    assert opening not in {o for group in IN_THE_NEWS_OPENINGS.values() for o in group}, opening


# A soft play centre that ends every post with its sign-off, which its posts' last lines also
# offer as a call to action: "See you in the jungle!" twice in one draft read as a slip.
SIGNED_OFF_PLAY = [
    "Toddler mornings are back every Tuesday from 9am. Are you coming to play?\nSee you in the jungle! \U0001f981",
    "Grip socks are £1.50 at the desk if you forget yours. Got yours packed?\nSee you in the jungle! \U0001f981",
    "The new slide is open and it is fast. Are you brave enough to try it?\nSee you in the jungle! \U0001f981",
    "Parties are £14.50 a child with food included. Have you booked yours yet?\nSee you in the jungle! \U0001f981",
    "We're closed on Wednesday for a deep clean. Back to normal on Thursday!\nSee you in the jungle! \U0001f981",
    "Our cafe does a babyccino for your little one. Coming after the school run?\nSee you in the jungle! \U0001f981",
]


def test_a_call_to_action_that_is_the_sign_off_without_its_emoji_is_not_said_twice() -> None:
    stats = voice_stats(SIGNED_OFF_PLAY)
    assert stats["sign_offs"] == ["See you in the jungle! \U0001f981"]
    for seed_title in (TITLE, f"{TITLE} this spring", f"{TITLE}, dealers say"):
        post = compose_extractive(
            title=seed_title,
            body=BODY,
            platform="facebook_page",
            stats=stats,
            topic=topic_build(industry="soft play centre", past_posts=SIGNED_OFF_PLAY),
        )
        assert post is not None
        assert post.text.count("See you in the jungle") == 1, post.text
        assert post.text.endswith("See you in the jungle! \U0001f981")


@pytest.mark.parametrize(
    ("sentence", "leans"),
    [
        ("Most of the haddock fried in British chip shops, however, is imported from Norway.", True),
        ("Several US brands recalled aerosol dry shampoos for the same reason in 2021 and 2022.", True),
        ("For this reason the council will buy its grit from Wales.", True),
        ("Shoppers bought their trees online instead.", True),
        ("Shoppers are buying real trees instead of artificial ones, the growers said.", False),
        ("The second is a soft fruit marquee alongside the produce tent.", True),
        ("The second phase of the bypass opens to traffic in May.", False),
        ("The same-day service costs £40 and runs from Kelford to Ashgrove.", False),
        ("Most of the haddock fried in British chip shops is imported from Norway.", False),
    ],
)
def test_a_however_the_same_as_before_or_the_second_leans_on_an_earlier_sentence(sentence: str, leans: bool) -> None:
    from posting.composer.extractive import REFERS_BACK_COST, _EarlierSentences, _refers_back

    earlier = _EarlierSentences(lower=frozenset(re.findall(r"\b[a-z]+\b", sentence)))
    assert (_refers_back(sentence, 1, set(), earlier) == REFERS_BACK_COST) is leans


def test_a_sign_off_is_said_in_a_line_by_its_words_or_if_it_has_none_as_written() -> None:
    from posting.composer.extractive import _said_in

    assert _said_in("See you in the jungle! \U0001f981", "Had you heard? See you in the jungle!")
    assert not _said_in("See you in the jungle! \U0001f981", "Had you heard?")
    # A sign-off of emoji alone has no words: it is said only where it is written.
    assert not _said_in("\U0001f43e\U0001f43e", "Book a groom today!")
    assert _said_in("\U0001f43e\U0001f43e", "Book a groom today! \U0001f43e\U0001f43e")
