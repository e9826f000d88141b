"""Is this article about what the business is about? And is it a story already drafted?

Pure functions, no Django, no downloads: lexical matching that explains itself.

What a business is about (``BusinessTopic``) is a weighted bag of word stems from four
places: the trade vocabulary of its industry (research/industries.py; when the industry
names none of our trades, the vocabulary its own posts keep using), the words of the
industry itself, the topics the customer chose, and the words its own past posts keep
using (a word in several posts weighs more than a word in one). Its own names count a
little: an article that names the business is about it.

An article is scored by how much of what it is *mostly* about (its key terms: the title's
words and the body's most frequent words) falls in that bag: a share in [0, 1], so one
threshold holds for short and long articles, whatever the trade. An article from another
trade shares at most a few generic words with the business and scores low.

A story is the same story when two articles share several distinctive names and numbers
("Naim", "Uniti", "£2,499") and much of their key vocabulary, however the outlets word it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from research.industries import industry_vocabulary, vocabularies_used_in

# An article is relevant at or above this share of its key terms matching the business.
RELEVANT_MIN = 0.14
# For a trade with no vocabulary of ours the business is known only from its own words (a
# smaller bag), so a smaller share already says "about us". Measured on the dev set with
# the vocabularies switched off: relevant articles 0.06-0.38, other trades mostly <= 0.07.
RELEVANT_MIN_OWN_WORDS = 0.08
# A trade vocabulary is inferred from a business's own posts (when its industry names none of
# our trades) when the posts use at least this many of its terms and this share of them.
# Measured on dev + the first blind split with every industry blanked (compose_eval
# --without-industry): recall 0.833 -> 0.958 on dev, precision 0.818 -> 1.000 on blind;
# the listening room's "price", "home" and "letting" (3 of real estate's 19) stay out.
INFERRED_VOCABULARY_MIN_TERMS = 4
INFERRED_VOCABULARY_MIN_SHARE = 0.15
# How many of an article's most frequent words say what it is about.
KEY_TERMS = 30
TITLE_WEIGHT = 2.0
MATCHED_SHOWN = 8

WEIGHT_VOCABULARY = 0.8
WEIGHT_INDUSTRY = 1.0
WEIGHT_TOPIC = 1.0
WEIGHT_OWN_NAME = 1.0
# A word in one past post is a hint, in two a habit, in three or more what the business is about.
WEIGHT_PAST_POST = {1: 0.35, 2: 0.7}
WEIGHT_PAST_POST_MANY = 1.0

URL_RE = re.compile(r"https?://\S+|www\.\S+")
WORD_RE = re.compile(r"[a-z][a-z0-9]*(?:[-'][a-z0-9]+)*")
# Names (a capitalised word not opening a sentence) and numbers of two digits or more.
NAME_RE = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-zA-Z0-9]+(?:[-'][A-Za-z0-9]+)*")
NUMBER_RE = re.compile(r"[£$€]?\d[\d,]*(?:\.\d+)?%?")


# Common English and social-media filler: words any trade's posts and any article share.
def _split(text: str) -> list[str]:
    return text.split()


STOPWORDS = frozenset(
    _split("""a about above across after again against ago all almost along already also although always am among an and
    another any anyone anything are around as ask asked at away back be became because become been before being
    below best better between big both bring brings but by came can cannot could day days did do does doing done
    don't down during each early easy either else end enough even ever every everyone everything far few find
    first five for four from full get gets getting give go goes going good got great had has have having he her
    here hers him his home how however i if in inside instead into is it its it's just keep know last late later
    least less let like little long look looking lot lots made make makes making many may me more most much must
    my near need never new next nice no not now of off often old on once one only or other our out over own part
    people per place plus put quite rather re really right said same say says see seen set several she should
    show since six so some something soon still such sure take taken than that the their them then there these
    they thing things think this those though three through time times to today together too took top two under
    until up upon us use used using very via want was way we week weeks well went were what when where whether
    which while who whole why will with within without work works would year years yet you your yours
    across according added adding includes including include many month months mr mrs ms news report reported
    announced announce announces told company companies firm firms business businesses customer customers
    come coming shop store stores open opening weekend morning afternoon evening tonight tomorrow yesterday
    love loved loving lovely amazing awesome excited exciting happy thanks thank follow link bio click post
    posts share team friends friend everyone folks guys check stop pop drop visit welcome hello hi hey
    monday tuesday wednesday thursday friday saturday sunday january february march april june july august
    september october november december spring summer autumn winter season
    free offer offers offered price prices priced cost costs closed available extra difference charity called
    number numbers level levels main remain remains remained started thousand thousands hundred hundreds million
    billion advised replaces replaced accepted accepts accept applications application scheme return returns
    attended written spaces space cleared mile miles heads area areas town city council public community member
    members event events national government plan plans percent cent figure figures data survey study studies
    result results group groups local region regional country world industry market sector latest recent
    recently say spokesperson statement added expected expects expect likely less higher lower rise rose risen
    fall fell fallen increase increased decrease decreased change changes changed help helps helped support
    supported including among while person someone something nothing family families children child parents
    adult adults school schools life health problem problems issue issues question questions answer answers
    chief director manager head officer spokesman spokeswoman official officials organisers organizers
    organisation organization association society institute university hospital centre center office
    morning evening night hour hours minute minutes second seconds date dates month annual""")
)


@dataclass(frozen=True)
class BusinessTopic:
    """What a business is about: word stems with weights in (0, 1]."""

    terms: dict[str, float]
    # Whether anything but its names is known (industry, topics, past posts): with only a
    # name there is nothing to judge relevance by, and every article is let through.
    known: bool = True
    threshold: float = RELEVANT_MIN
    # The forms a reader sees, per stem, for "why this article" ("turntables" for "turntable").
    labels: dict[str, str] = field(default_factory=dict)

    def weight(self, stem: str) -> float:
        return self.terms.get(stem, 0.0)


@dataclass(frozen=True)
class Relevance:
    score: float
    relevant: bool
    # The business's words the article is about, strongest first (what "why this article" shows).
    matched: list[str]

    def as_dict(self) -> dict[str, object]:
        return {"score": self.score, "relevant": self.relevant, "matched": self.matched}


def topic_build(
    *,
    industry: str = "",
    own_names: Sequence[str] = (),
    past_posts: Iterable[str] = (),
    topics: Sequence[str] = (),
    vocabularies: bool = True,
) -> BusinessTopic:
    """The bag of words a business is about, from everything it has told us or written.

    ``vocabularies=False`` leaves out our trade vocabularies: how relevance fares for a
    trade we have none for (the evaluation's generalisation check). An industry that names
    none of our trades gets the vocabularies its past posts keep using, if any."""
    terms: dict[str, float] = {}
    labels: dict[str, str] = {}
    past_posts = list(past_posts)

    def add(word: str, weight: float) -> None:
        stem = word_stem(word)
        if not stem or stem in STOPWORDS or word in STOPWORDS or len(stem) < 2:
            return
        terms[stem] = max(terms.get(stem, 0.0), weight)
        labels.setdefault(stem, word)

    vocabulary = industry_vocabulary(industry) if vocabularies else ()
    if vocabularies and not vocabulary:
        # An industry we cannot map to a trade ("Artisan loaf maker", or none given): the
        # business's own posts say which trade's words it keeps using.
        vocabulary = vocabularies_used_in(
            past_posts, min_terms=INFERRED_VOCABULARY_MIN_TERMS, min_share=INFERRED_VOCABULARY_MIN_SHARE
        )
    for word in vocabulary:
        for part in words_of(word):
            add(part, WEIGHT_VOCABULARY)
    for text, weight in [(industry, WEIGHT_INDUSTRY), *((topic, WEIGHT_TOPIC) for topic in topics)]:
        for word in words_of(text):
            add(word, weight)
    known = bool(terms)
    for name in own_names:
        for word in words_of(str(name).lstrip("@#")):
            add(word, WEIGHT_OWN_NAME)
    posts_with: Counter[str] = Counter()
    forms: dict[str, str] = {}
    for post in past_posts:
        stems = set()
        for word in words_of(_hashtags_split(URL_RE.sub(" ", post))):
            stem = word_stem(word)
            stems.add(stem)
            forms.setdefault(stem, word)
        posts_with.update(stems)
    for stem, count in posts_with.items():
        add(forms[stem], WEIGHT_PAST_POST.get(count, WEIGHT_PAST_POST_MANY))
    return BusinessTopic(
        terms=terms,
        labels=labels,
        known=known or bool(posts_with),
        threshold=RELEVANT_MIN if vocabulary else RELEVANT_MIN_OWN_WORDS,
    )


def relevance_score(*, topic: BusinessTopic, title: str, body: str) -> Relevance:
    """How much of what the article is mostly about is what the business is about."""
    keys = article_key_terms(title=title, body=body)
    total = sum(keys.values())
    if not total or not topic.terms:
        return Relevance(score=0.0, relevant=False, matched=[])
    contributions = {stem: weight * topic.weight(stem) for stem, weight in keys.items() if topic.weight(stem)}
    score = round(sum(contributions.values()) / total, 4)
    matched = [
        topic.labels.get(stem, stem) for stem, _ in sorted(contributions.items(), key=lambda item: (-item[1], item[0]))
    ]
    return Relevance(score=score, relevant=score >= topic.threshold, matched=matched[:MATCHED_SHOWN])


# One night scores every article against every account that receives it (20 accounts a page
# at 1,000 accounts and 200 feeds): an article's words are read once per worker process, not
# once per account. Keyed by the text itself, so an edited article is read afresh.
ARTICLE_CACHE_SIZE = 2048


def article_key_terms(*, title: str, body: str) -> dict[str, float]:
    """The article's most telling words with weights: frequent in the body, or in the title."""
    return dict(_article_key_terms(title, body))


@lru_cache(maxsize=ARTICLE_CACHE_SIZE)
def _article_key_terms(title: str, body: str) -> tuple[tuple[str, float], ...]:
    # A tuple: the cached value is shared by every caller, so nobody may change it.
    counts = Counter(word_stem(w) for w in words_of(body) if w not in STOPWORDS)
    title_stems = {word_stem(w) for w in words_of(title) if w not in STOPWORDS}
    weights = {stem: math.log1p(count) for stem, count in counts.items() if stem not in STOPWORDS and len(stem) > 1}
    for stem in title_stems:
        if stem not in STOPWORDS and len(stem) > 1:
            weights[stem] = weights.get(stem, 0.0) + TITLE_WEIGHT
    return tuple(sorted(weights.items(), key=lambda item: (-item[1], item[0]))[:KEY_TERMS])


# --------------------------------------------------------------------------- same story


@dataclass(frozen=True)
class StoryPrint:
    """What identifies a story across outlets: its distinctive names and numbers, and its key words."""

    names: frozenset[str]
    terms: dict[str, float]


# Two articles are one story when they share this many names/numbers and this much vocabulary.
SAME_STORY_NAMES = 3
SAME_STORY_TERMS = 0.3
# Or when their vocabulary alone is this close (an outlet that names nobody).
SAME_STORY_TERMS_ALONE = 0.55


def story_print(*, title: str, body: str) -> StoryPrint:
    """The story's print; read once per article per process (see ARTICLE_CACHE_SIZE)."""
    printed = _story_print(title, body)
    return StoryPrint(names=printed.names, terms=dict(printed.terms))


@lru_cache(maxsize=ARTICLE_CACHE_SIZE)
def _story_print(title: str, body: str) -> StoryPrint:
    text = f"{title}.\n{body}"
    names = {m.group(0).lower() for m in NAME_RE.finditer(text) if m.group(0).lower() not in STOPWORDS}
    numbers = {m.group(0).strip(",.").replace(",", "") for m in NUMBER_RE.finditer(text)}
    distinctive = {n for n in numbers if sum(ch.isdigit() for ch in n) >= 2}
    return StoryPrint(names=frozenset(names | distinctive), terms=article_key_terms(title=title, body=body))


def same_story(a: StoryPrint, b: StoryPrint) -> bool:
    shared = len(a.names & b.names)
    closeness = _cosine(a.terms, b.terms)
    return (shared >= SAME_STORY_NAMES and closeness >= SAME_STORY_TERMS) or closeness >= SAME_STORY_TERMS_ALONE


def _cosine(a: dict[str, float], b: dict[str, float]) -> float:
    dot = sum(weight * b[stem] for stem, weight in a.items() if stem in b)
    norm = math.sqrt(sum(w * w for w in a.values())) * math.sqrt(sum(w * w for w in b.values()))
    return dot / norm if norm else 0.0


# --------------------------------------------------------------------------- words


def words_of(text: str) -> list[str]:
    lowered = text.lower().replace("\u2019", "'")
    # Not re.sub per word: this runs over every word of every article and draft.
    return [(word[:-2] if word.endswith("'s") else word).strip("'-") for word in WORD_RE.findall(lowered)]


# The composer and the gate stem every word of every article and draft; the words of a
# trade's news repeat, so a stem is worked out once per word per process.
@lru_cache(maxsize=1 << 16)
def word_stem(word: str) -> str:
    """A light stem: plurals and the commonest verb endings, so "turntables" meets "turntable"."""
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word


def _hashtags_split(text: str) -> str:
    """ "#VinylSunday" reads as "Vinyl Sunday": a hashtag is words the business uses."""
    return re.sub(r"#(\w+)", lambda m: " " + re.sub(r"(?<=[a-z])(?=[A-Z])", " ", m.group(1)), text)
