"""The offline composer: a post in the business's voice around the article's own sentences.

No language model. The factual gate checks every number and proper noun of a draft against
the article body, so the facts are the article's sentences quoted verbatim: never
paraphrased, never trimmed (cutting "sales rose 5%, but not in Europe" at the comma would
change its meaning). Everything the composer writes itself carries no fact: an opening in
the business's voice, a call to action, the source's name, its sign-off, its emoji and its
hashtags, so the gate has nothing of ours to check and a stricter gate nothing to reject.

The facts are the one to three sentences that matter most to this business, from anywhere
in the article: those that use the business's own words (its ``BusinessTopic``), are
concrete (numbers, names) and on the story's subject. The voice (``VoiceTraits``, read from
the learned statistics of that platform) decides person, "you", questions, emoji, hashtags,
sign-off and length.
Pure functions: no Django.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from accounts.models import Platform
from posting.composer.relevance import ARTICLE_CACHE_SIZE, BusinessTopic, word_stem, words_of
from posting.gate.core import sentences_split
from posting.voice.stats import EMOJI_RE, HASHTAG_RE, MENTION_RE, NAMES_SELF_MIN
from publish.limits import MAX_CHARS

FACEBOOK = "facebook_page"
INSTAGRAM = "instagram"
# Post length when the account has no voice on the platform yet.
DEFAULT_TARGET_CHARS = {FACEBOOK: 320, INSTAGRAM: 420}
TARGET_BOUNDS = {FACEBOOK: (60, 900), INSTAGRAM: (60, 1400)}
MAX_FACTS = 3
# "Length per platform as its past posts": the whole draft aims at the business's median post on
# the platform, and the first fact (there is always one) is the best that keeps the draft within
# FIRST_FACT_ROOM times it, when one scores within FIRST_FACT_MARGIN of the best sentence. A
# business that captions in one line ("Forty-two knives 🙌 #keenedge") gets a line's worth of
# article rather than its longest sentence. The price is the fact: a shorter sentence is less often
# the one a reader would quote first (scripts/fact_choice_eval.py). On Instagram, where captions
# are short and carry no link, about a business word less (2.5) is worth it; on Facebook, where the
# post carries the link and the best sentence already fits twice the post in four drafts of five,
# only a nearly-as-good one (1.0) goes first. docs/BENCHMARKS.md, "Session 15".
FIRST_FACT_ROOM = 2.0
FIRST_FACT_MARGIN = {FACEBOOK: 1.0, INSTAGRAM: 2.5}
# Below this median a business writes short posts: its drafts open with the short openings.
SHORT_POST_CHARS = 140
# What a sentence that points back at an earlier one ("the rise", "the plan") costs as a fact.
REFERS_BACK_COST = 1.5
# ... and one naming it in other words ("linked the boom to"): always a pointer back, never the
# article's own subject, so it costs about what a number, a name and the business's word bring.
TOLD_BEFORE_COST = 3.0
# ... and one about a person it does not name ("which calls at her stop", "Marchetti runs"): the
# reader cannot guess who, where "the council" is usually plain enough, so it costs as much.
UNNAMED_PERSON_COST = 3.0
MIN_SENTENCE_CHARS = 40
MAX_SENTENCE_CHARS = 400
LINK_IN_BIO = "Link in bio."
# A habit shown in at least this share of past posts is followed in every draft; one shown
# in under RARE is never followed; in between, drafts follow it in about that share.
HABIT_ALWAYS = 0.5
HABIT_RARE = 0.1

# Boilerplate that extraction sometimes leaves in a body: never worth posting.
BOILERPLATE_RE = re.compile(
    r"click here|subscribe|sign up|newsletter|cookie|all rights reserved|\u00a9|advertisement|"
    r"follow us|read more|learn more|find out more|for more information|photo:|image:|credit:|getty images|"
    r"share this",
    re.IGNORECASE,
)
# A sentence opening like this leans on the one before it: it cannot stand alone.
NEEDS_CONTEXT_RE = re.compile(
    r"^(?:he|she|it|they|this|these|that|those|his|her|its|their|but|and|or|so|also|however|meanwhile|"
    r"still|yet|then|instead|here|there|the latter|the former|such|both|another|other|others|which|"
    r"as a result|in addition|in turn|for example|for instance|similarly|likewise|besides|moreover|"
    # "In response, the council is expanding...": in response to the sentence before.
    r"in response|in reply|in contrast|by contrast|even so|despite (?:this|that)|because of (?:this|that)|"
    r"after (?:this|that)|since then|until then|by then|on top of (?:this|that)|at the same time|"
    # "Each pair was used...", "What has changed, Tarn says, is...": they lean on the sentence before.
    r"each|what|why|how|"
    # "Among them, a chocolatier will...", "Of those, six...": the them is the sentence before's.
    r"among (?:them|those|these|others)|of (?:them|those|these)|one of (?:them|those|these)|"
    r"all of (?:them|those|these)|some of (?:them|those|these)|most of (?:them|those|these))\b",
    re.IGNORECASE,
)
# The article's author speaking ("I had the chance", "our parser"): posted by the business,
# it would read as the business's own claim.
# Someone else's first person, quoted ("what it costs me to keep a bird") would read as the business's.
FIRST_PERSON_RE = re.compile(r"\b(?:I|I'm|I've|I'd|[Ww]e|[Ww]e're|[Ww]e've|[Ww]e'd|[Mm]y|me|[Oo]ur|[Uu]s)\b")
YOU_RE = re.compile(r"\byou(?:'re|'ve|'ll|'d|r|rs)?\b", re.IGNORECASE)
NUMBER_RE = re.compile(r"\d")
CAPITALISED_RE = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-zA-Z]+")

# Openings and questions carry no fact (the gate finds nothing to check in them; a test holds
# every one of them to that). Keyed by person ("we", "I" or "" for none) and whether the
# business speaks to "you".
OPENINGS: dict[tuple[str, bool], tuple[str, ...]] = {
    ("we", True): ("We think you'll like this one.", "One we think you'll enjoy.", "We saved this one for you."),
    ("we", False): ("This one caught our eye.", "Here's what we're reading.", "One for our reading list."),
    ("I", True): ("I think you'll like this one.", "One I think you'll enjoy.", "I saved this one for you."),
    ("I", False): ("This one caught my eye.", "Here's what I'm reading.", "One for my reading list."),
    ("", True): ("Here's a good read for you.", "Here's one for you.", "Worth your time."),
    ("", False): ("Worth a read.", "Good to know.", "Interesting reading."),
}
# The same, for a business whose posts are short (SHORT_POST_CHARS): a one-line captioner's
# draft cannot spend a third of its length on "We think you'll like this one."
SHORT_OPENINGS: dict[tuple[str, bool], tuple[str, ...]] = {
    ("we", True): ("Our pick for you.", "For you, from us.", "We saved you this."),
    ("we", False): ("Caught our eye.", "On our radar.", "Our read today."),
    ("I", True): ("My pick for you.", "For you, from me.", "I saved you this."),
    ("I", False): ("Caught my eye.", "On my radar.", "My read today."),
    ("", True): ("One for you.", "For you.", "Worth your time."),
    ("", False): ("Worth a read.", "Good to know.", "Of note."),
}
# When the news is the business's own (the fact quoted names it: "Graham Carrick, of Carrick
# Removals, said his company had 41 moves booked"), "One we think you'll enjoy" reads as if the
# story were someone else's. Not for bad news about it: that keeps the grave opening.
IN_THE_NEWS_OPENINGS: dict[tuple[str, bool], tuple[str, ...]] = {
    ("we", True): ("You'll spot us in this one.", "In case you missed it, we're in the news.", "You'll find us here."),
    ("we", False): ("We're in the news.", "A mention for us.", "That's us in the news."),
    ("I", True): ("You may spot me in this one.", "In case you missed it, I'm in the news.", "You'll find me here."),
    ("I", False): ("I'm in the news.", "A mention for me.", "That's me in the news."),
    ("", True): ("In case you missed it.", "You may have seen this.", "One you may have seen."),
    ("", False): ("In the news.", "A mention in the news.", "In the papers."),
}
QUESTIONS: dict[tuple[str, bool], tuple[str, ...]] = {
    ("we", True): ("What do you think?", "What's your take?", "Had you heard?"),
    ("we", False): ("Thoughts?", "Any thoughts?", "Surprised?"),
    ("I", True): ("What do you think?", "What's your take?", "Had you heard?"),
    ("I", False): ("Thoughts?", "Any thoughts?", "Surprised?"),
    ("", True): ("What do you think?", "What's your take?", "Had you heard?"),
    ("", False): ("Thoughts?", "Any thoughts?", "Surprised?"),
}
# A call to action when the business has no habitual one of its own.
FACEBOOK_CTA = "Read the full story at the link."

# Bad news (a house fire, a death, a shop chain's collapse, a shortage, a warning) read out as
# "We think you'll like this one. 🎉" is the draft an owner rejects on sight. The headline or the
# article's first sentence naming such an event makes the post sombre: an opening that passes the
# news on rather than recommends it, no question that sounds glib ("Surprised?"), and none of the
# business's cheerful emoji. A false alarm costs little: the sombre openings fit any news.
SOMBRE_RE = re.compile(
    r"\b(?:die[sd]?|dying|deaths?|dead|killed|fatal(?:ly|ity|ities)?|injur(?:ed|ies|y|ing)|hurt|blaze|"
    r"fires?|burnt? down|collaps(?:e|ed|es|ing)|flood(?:s|ed|ing)?|crash(?:ed|es)?|closures?|"
    r"clos(?:e|es|ed|ing) (?:down|for good)|shut(?:s|ting)? down|redundanc(?:y|ies)|job losses|lay-?offs?|"
    # "Pool closed for three weeks after rats found": a place customers use, shut for now.
    r"(?:closed|shut) (?:for|until|after)|rats?|vermin|infest(?:ed|ation)|burst|"
    # "Brookvale's only supermarket to close next month" (not "to close at 5pm on Christmas Eve").
    r"(?:to|will) close(?! (?:at|early|for lunch))|"
    r"measles|norovirus|tuberculosis|TB|virus(?:es)?|infections?|illness(?:es)?|sickness|"
    r"shortages?|warn(?:s|ed|ing|ings)?|ban(?:s|ned)?|arrest(?:s|ed)?|fined|theft|stolen|burglar(?:y|ies)|"
    r"vandal(?:s|ised|ized|ism)|administration|bankrupt(?:cy)?|insolven(?:t|cy)|outbreak|disease|scare|"
    r"victims?|trag(?:edy|ic)|mourn(?:s|ed|ing)?|funerals?|emergency|evacuat(?:e|ed|ion)|poison(?:ed|ing)?|"
    r"pollution|sewage|spill(?:s|ed|age)?|contaminat(?:ed|ion)|recall(?:s|ed)?|crisis|threat(?:en|ens|ened)?|fears?|"
    r"damaged?|attack(?:s|ed)?|"
    # "Storm Edith strips dunes and shuts beach path": a storm, and power lost to it.
    r"storms?|gales?|power cuts?|without power|shuts?)\b",
    re.IGNORECASE,
)
# Unwelcome news that is no tragedy: what customers pay going up (a duty rise, dearer worktops, a
# rent review), cuts, delays, strikes and scams. "One we think you'll enjoy." over a price rise
# reads as if the business were glad of it; the sombre openings pass it on instead. The business's
# cheerful emoji stay: a wine emoji beside a duty rise offends no one.
_COSTS = r"(?:prices?|costs?|bills?|tax(?:es)?|dut(?:y|ies)|fees?|rents?|fares?|rates?|premiums?|tariffs?|charges?)"
_GOING_UP = (
    r"(?:ris(?:e|es|ing)|rose|increas(?:e|es|ed|ing)|hik(?:e|es|ed)|soar(?:s|ed|ing)?|jump(?:s|ed)?|"
    r"go(?:es|ing|ne)? up|went up)"
)
UNWELCOME_RE = re.compile(
    rf"\b{_COSTS}\b(?:[^.;:]{{0,40}}?)\b{_GOING_UP}\b|\b{_GOING_UP} in (?:the )?{_COSTS}\b|"
    # "Feed mill raises prices", "puts up its fees": the one who charges raising them.
    rf"\b(?:rais(?:e|es|ed|ing)|hik(?:e|es|ed|ing)|put(?:s|ting)? up)\b (?:its |their |the )?(?:[a-z]+ )?{_COSTS}\b|"
    # "Catteries face higher licence fees".
    rf"\b(?:higher|steeper|bigger) (?:[a-z]+ )?{_COSTS}\b|"
    # "Duty change will cost them thousands": a cost falling on someone, not a price.
    r"\bcost(?:s|ing)? (?:them|us|you|businesses|firms|families|owners|drivers|households|customers|shoppers|"
    r"residents|taxpayers|growers|farmers|passengers|patients|parents|tenants|motorists|visitors|members)\b|"
    # "Small brewers will pay more", "lose part of their discount", "keepers face compulsory tests".
    r"\bpay(?:s|ing)? more\b|\blos(?:e|es|ing|t) (?:part of )?(?:their|its|the) "
    r"(?:discount|relief|grant|funding|subsidy|licence|license|jobs?)\b|"
    # "Face compulsory TB tests", "face surprise inspections": up to two words between.
    r"\bfac(?:e|es|ing) (?:a |an )?(?:fines?|bills?|charges?|compulsory|tougher|new checks|checks|tests|"
    r"prosecution|higher|losses|cuts|closure)\b|"
    r"\bfac(?:e|es|ing) (?:[a-z-]+ ){1,2}(?:fines?|bills?|charges?|checks|tests|inspections|prosecution|losses|"
    r"cuts|closure|fees)\b|"
    r"\b(?:dearer|pricier|more expensive)\b|\b(?:job|service|budget|funding|spending|route|bus) cuts\b|"
    r"\bcuts? (?:to|in|by)\b|\bslash(?:es|ed)?\b|\bdelay(?:s|ed)?\b|"
    r"\b(?:on strike|strike action|strikes? (?:by|over|at))\b|"
    r"\bwalk-?outs?\b|\bscam(?:s|mers?)?\b|\bfraud(?:sters?)?\b|"
    r"\brogue\b|\bbogus\b|\bcrackdown\b|\bshortfall\b|\bdeficit\b|\blosses\b|\bdeclin(?:e|es|ed|ing)\b",
    re.IGNORECASE,
)
SOMBRE_OPENINGS: dict[tuple[str, bool], tuple[str, ...]] = {
    ("we", True): (
        "We wanted you to see this.",
        "We thought you should know about this.",
        "We're passing this on to you.",
    ),
    ("we", False): ("We're keeping an eye on this.", "News we're following.", "We're following this one."),
    ("I", True): ("I wanted you to see this.", "I thought you should know about this.", "I'm passing this on to you."),
    ("I", False): ("I'm keeping an eye on this.", "News I'm following.", "I'm following this one."),
    ("", True): ("Something you should know about.", "Worth you knowing about.", "News you may want to know."),
    ("", False): ("Worth knowing.", "Something to keep in mind.", "News to note."),
}
SHORT_SOMBRE_OPENINGS: dict[tuple[str, bool], tuple[str, ...]] = {
    ("we", True): ("We thought you should know.", "We're passing this to you.", "Our heads-up to you."),
    ("we", False): ("News we're following.", "On our radar.", "We're following this."),
    ("I", True): ("I thought you should know.", "I'm passing this to you.", "My heads-up to you."),
    ("I", False): ("News I'm following.", "On my radar.", "I'm following this."),
    ("", True): ("Worth you knowing.", "For your attention.", "News for you."),
    ("", False): ("Worth knowing.", "News to note.", "Of note."),
}
SOMBRE_QUESTIONS: dict[tuple[str, bool], tuple[str, ...]] = {
    (person, you): (
        ("What do you think?", "What's your view?", "Had you heard?")
        if you
        else ("Thoughts?", "Any thoughts?", "Thoughts on this?")
    )
    for person in ("we", "I", "")
    for you in (True, False)
}
# Emoji that celebrate (smiles, laughter, hearts, parties, applause, sunshine, "fire" as in great):
# a business's own, but not beside a fire that left a family homeless. Its other emoji (a tree,
# headphones, a balloon, a gift) name what it is about and stay: a balloon-flight firm's 🎈 is its trade.
CHEERFUL_EMOJI = frozenset(
    "😀😃😄😁😆😅😂🤣😊😇🙂🙃😉😍🥰😘😗😙😚😋😛😜🤪😝🤩🥳😎🤗🤭😻😸😺❤🧡💛💚💙💜🤍🤎💕💞💓💗💖💘💝💟♥"
    "🎉🎊🥂🍾✨🌟⭐💫☀🌞🌈👍👏🙌💃🕺🤘✌🤙💪🔥💯🚀🏆🥇😻"
)


@dataclass(frozen=True)
class ComposedPost:
    text: str
    composer: str
    # Extractive: [{"sentence": n, "text": ...}] (1-based, as the gate numbers them).
    # LLM: [{"text": claim, "sentences": [n, ...]}].
    sources: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class VoiceTraits:
    """The habits a draft follows, decided once per draft from the platform's learned stats."""

    person: str  # "we", "I" or "" (never speaks of itself)
    you: bool
    question: bool
    sombre: bool  # the article is bad news (SOMBRE_RE): a graver opening, no cheerful emoji
    emoji: list[str]
    emoji_placement: str
    hashtags: list[str]
    sign_off: str
    calls_to_action: list[str]
    target_chars: int
    # News customers will not welcome (UNWELCOME_RE): the sombre opening, its own emoji kept.
    unwelcome: bool = False


# How the business speaks, which holds across platforms: a platform with no voice of its own
# borrows these from another (never its emoji, hashtags or sign-off: those are per platform).
BORROWED_HABITS = ("post_count", "person", "person_rate", "you_rate", "punctuation")


def voice_for_platform(stats: dict[str, Any] | None, others: list[dict[str, Any]]) -> dict[str, Any]:
    """The voice to compose with on one platform, given the voices learned on the others.

    A platform with no posts borrows BORROWED_HABITS from another. A platform whose posts never
    speak of the business ("Forty-two knives 🙌 #keenedge") borrows only the person ("we"/"I")
    when another platform shows one: the business is still "we", its Instagram captions are
    just too short to say so, and a draft in its voice may ("This one caught our eye."). One
    whose posts speak of it by its name ("Skylark over the Renn valley ☀️") borrows nothing:
    there it is the third person, by choice.
    """
    donors = [other for other in others if other]
    if not stats:
        return {key: donors[0][key] for key in BORROWED_HABITS if key in donors[0]} if donors else {}
    if float(stats.get("person_rate") or 0) > 0 or float(stats.get("names_self_rate") or 0) >= NAMES_SELF_MIN:
        return stats
    for other in donors:
        if other.get("person") and float(other.get("person_rate") or 0) >= HABIT_RARE:
            return {**stats, "person": other["person"], "person_rate": other["person_rate"]}
    return stats


def voice_traits(
    *,
    stats: dict[str, Any],
    platform: str,
    seed: int = 0,
    article_words: set[str] | None = None,
    sombre: bool = False,
    unwelcome: bool = False,
) -> VoiceTraits:
    """Follow each habit always, never, or in its share of drafts (the same draft, the same choice).

    ``sombre``: the article is bad news; its emoji are the business's own that do not celebrate
    (none when every one it uses does)."""
    n = stats.get("post_count") or 0
    person = str(stats.get("person") or "") if n else ""
    if person and float(stats.get("person_rate", 1.0)) < HABIT_RARE:
        person = ""
    you = n > 0 and _follows(float(stats.get("you_rate", 0)), seed, 1)
    question = n > 0 and _follows(float((stats.get("punctuation") or {}).get("question_rate", 0)), seed, 2)
    emoji_stats = stats.get("emoji") or {}
    emoji: list[str] = []
    if n and emoji_stats.get("top") and _follows(float(emoji_stats.get("rate", 0)), seed, 3):
        per_post = float(emoji_stats.get("per_post") or 1) / max(float(emoji_stats.get("rate") or 1), 0.01)
        own = [str(e) for e in emoji_stats["top"] if not (sombre and _cheerful(str(e)))]
        emoji = own[: max(1, min(3, round(per_post)))]
    tag_stats = stats.get("hashtags") or {}
    hashtags: list[str] = []
    if n and tag_stats.get("top") and _follows(float(tag_stats.get("rate", 0)), seed, 4):
        wanted = max(1, min(int(tag_stats.get("typical") or 1), 30))
        hashtags = _hashtags_for(list(tag_stats["top"]), article_words=article_words or set(), count=wanted)
    sign_offs = stats.get("sign_offs") or []
    return VoiceTraits(
        person=person if person in {"we", "I"} else "",
        you=you,
        question=question,
        sombre=sombre,
        emoji=emoji,
        emoji_placement=str(emoji_stats.get("placement") or "end"),
        hashtags=hashtags,
        sign_off=str(sign_offs[0]) if sign_offs else "",
        calls_to_action=[str(cta) for cta in stats.get("calls_to_action") or []],
        target_chars=_target_chars(platform, stats),
        unwelcome=unwelcome,
    )


def compose_extractive(
    *,
    title: str,
    body: str,
    platform: str,
    stats: dict[str, Any],
    industry: str = "",
    topic: BusinessTopic | None = None,
    outlet: str = "",
    bio_link: bool = False,
    own_names: Sequence[str] = (),
) -> ComposedPost | None:
    """A post: opening, the facts that matter to this business, call to action, source, sign-off.

    ``stats`` is the voice learned on *this* platform (empty when it has none: then the post
    uses no emoji, hashtags or sign-off of another platform's). ``bio_link`` says the account
    has told us its Instagram bio links to its articles; ``own_names`` its names, for news about
    it (IN_THE_NEWS_OPENINGS). None when no sentence of the body is fit to post (all boilerplate,
    fragments, quotes or too long).
    """
    del industry  # The topic carries the industry's vocabulary now; kept for callers' sake.
    seed = zlib.crc32(title.encode("utf-8", "ignore"))
    reading = _article_reading(title, body)
    sentences = list(reading.sentences)
    traits = voice_traits(
        stats=stats,
        platform=platform,
        seed=seed,
        article_words=set(reading.words),
        sombre=is_sombre(title, sentences[0] if sentences else ""),
        unwelcome=is_unwelcome(title, sentences[0] if sentences else ""),
    )
    opening = _opening(traits, seed)
    closing = _closing(traits, platform=platform, outlet=outlet, bio_link=bio_link, seed=seed)
    frame = len(opening) + sum(len(block) + 2 for block in closing) + 2 + len(" ".join(traits.emoji))
    if traits.hashtags:
        frame += len(" ".join(traits.hashtags)) + 2
    chosen = _choose_facts(
        reading,
        topic=topic,
        traits=traits,
        budget=max(traits.target_chars - frame, 0),
        room=max(int(FIRST_FACT_ROOM * traits.target_chars) - frame, 0),
        margin=FIRST_FACT_MARGIN[platform] if platform in FIRST_FACT_MARGIN else FIRST_FACT_MARGIN[FACEBOOK],
    )
    if not chosen:
        return None
    facts = " ".join(quoted for _, quoted in chosen)
    if not (traits.sombre or traits.unwelcome) and _names_the_business(facts, own_names):
        news = IN_THE_NEWS_OPENINGS[(traits.person, traits.you)]
        opening = news[seed % len(news)]
    text = _assemble(opening=opening, facts=facts, closing=closing, traits=traits)
    return ComposedPost(
        text=text,
        composer="extractive",
        sources=[{"sentence": i + 1, "text": quoted} for i, quoted in chosen],
    )


# --------------------------------------------------------------------------- facts


@dataclass(frozen=True)
class _SentenceReading:
    """What a sentence of the article is, whoever posts it: all of ``_fact_score`` but the
    business's own words (the only part that depends on the account)."""

    stems: frozenset[str]
    leans_back: float
    numbers: int
    names: int
    on_story: int
    length_fit: float
    early: float
    # Subtracted from the score, after it (``_refers_back``).
    refers_back: float


@dataclass(frozen=True)
class _ArticleReading:
    words: frozenset[str]
    sentences: tuple[str, ...]
    facts: tuple[_SentenceReading, ...]
    # Per sentence, its main clause without a trailing aside (``_head_clause``) and that
    # clause's reading; None when it has none that can be quoted alone.
    heads: tuple[tuple[str, _SentenceReading] | None, ...] = ()


# Every account that receives an article drafts from it for each platform (about 40 drafts a
# page at 1,000 accounts and 200 feeds): its sentences are split and read once per process.
# Keyed by the text itself, so an edited article is read afresh.
@lru_cache(maxsize=ARTICLE_CACHE_SIZE)
def _article_reading(title: str, body: str) -> _ArticleReading:
    sentences = sentences_split(body)
    title_stems = {word_stem(w) for w in words_of(title)}
    earlier = _EarlierSentences(lower=frozenset(re.findall(r"\b[a-z]+\b", " ".join(sentences))))
    facts = []
    heads: list[tuple[str, _SentenceReading] | None] = []
    for index, sentence in enumerate(sentences):
        early = 0.5 * (1 - index / max(len(sentences), 1))
        stems = {word_stem(w) for w in words_of(sentence)}
        facts.append(
            _sentence_reading(sentence, stems, index=index, early=early, title_stems=title_stems, earlier=earlier)
        )
        head = _head_clause(sentence)
        if head is not None:
            head_stems = {word_stem(w) for w in words_of(head)}
            reading = _sentence_reading(
                head, head_stems, index=index, early=early, title_stems=title_stems, earlier=earlier
            )
            heads.append((head, reading))
        else:
            heads.append(None)
        earlier.add(sentence, stems)
    return _ArticleReading(
        words=frozenset(words_of(f"{title} {body}")), sentences=tuple(sentences), facts=tuple(facts), heads=tuple(heads)
    )


def _sentence_reading(
    sentence: str, stems: set[str], *, index: int, early: float, title_stems: set[str], earlier: _EarlierSentences
) -> _SentenceReading:
    return _SentenceReading(
        stems=frozenset(stems),
        leans_back=_leans_back(sentence, title_stems),
        numbers=min(len(NUMBER_RE.findall(sentence)), 3),
        names=min(len(CAPITALISED_RE.findall(sentence)), 4),
        # On the story's subject, but a sentence that only restates the headline adds little.
        on_story=min(len(stems & title_stems), 2),
        length_fit=1.0 if 70 <= len(sentence) <= 220 else 0.0,
        early=early,
        refers_back=_refers_back(sentence, index, title_stems, earlier),
    )


# A trailing aside that can be left off and leave its sentence true: "..., with 46 stallholders
# over three weekends", "..., leaving the stubs still visible". Never a condition, an exception or
# a contrast ("unless", "if", "but", "except": without them the rest says more than the article),
# nor a time ("after", "before", "when", "until": the when is the fact), nor who said it.
TRAILING_ASIDE_RE = re.compile(r", (?:with|which|including|leaving|bringing|making|adding|giving|as well as|where)\b")
# What an aside must not hold: it would not be one aside running to the end.
ASIDE_BREAK_RE = re.compile(r"[;:()\u2013\u2014]| - ")
LIST_END_RE = re.compile(r"\b(?:and|or)\b")
# The head must still say something happened: a finite verb, guessed by an auxiliary or a past
# tense ("Sales of everything, including vinyl, rose" has none before its comma, and is not cut:
# its aside is not trailing anyway).
FINITE_VERB_RE = re.compile(
    r"\b(?:is|are|was|were|will|would|has|have|had|can|could|should|must|may|might|did|does|"
    r"been|being|said|says|won|made|took|sold|ran|grew|fell|rose|set|put|cut|[a-z]{3,}ed)\b"
)


def _head_clause(sentence: str) -> str | None:
    """The sentence without its trailing aside, as a sentence of its own; None when it has none,
    or what is left is too short or does not read as a sentence (``_choose_facts`` offers it only
    where the whole sentence would make the draft longer than the business's posts)."""
    text = sentence.rstrip(".!\"'\u201d\u2019 ")
    match = next((m for m in TRAILING_ASIDE_RE.finditer(text) if _aside_runs_to_the_end(text[m.end() :])), None)
    if match is None:
        return None
    head = sentence[: match.start()].rstrip()
    # "Two new stops: one at the crossroads" lists what the aside's sentence goes on to list.
    if ":" in head or ";" in head:
        return None
    if len(head) < MIN_SENTENCE_CHARS or len(head.split()) < 6 or not FINITE_VERB_RE.search(head):
        return None
    if head.count('"') % 2 or head.count("(") != head.count(")") or head.count("\u201c") != head.count("\u201d"):
        return None
    return f"{head}."


def _aside_runs_to_the_end(aside: str) -> bool:
    """One aside to the sentence's end: a comma inside it only as a list's ("from restaurants,
    home cooks and overseas buyers"); "including vinyl, rose by 20 per cent" goes on with the
    sentence itself, and leaving it off would leave a different claim."""
    if ASIDE_BREAK_RE.search(aside):
        return False
    if "," not in aside:
        return True
    # "..., which serves a farm shop, and one outside the showground": a comma then "and" carries
    # on the sentence's own list, not the aside's.
    last = aside.rsplit(",", 1)[1].strip()
    return bool(LIST_END_RE.search(last)) and not LIST_END_RE.match(last)


def _choose_facts(
    reading: _ArticleReading,
    *,
    topic: BusinessTopic | None,
    traits: VoiceTraits,
    budget: int,
    room: int,
    margin: float,
) -> list[tuple[int, str]]:
    """The best sentences for this business, in the article's order, while they fit the length.

    ``budget``: the characters the facts may take for the draft to be as long as the business's
    median post; ``room``: the most the first fact may take (FIRST_FACT_ROOM) before a shorter one
    nearly as good (FIRST_FACT_MARGIN) goes first instead. A sentence longer than ``room`` is also
    offered as its head clause (``_head_clause``). Returns (index, text as quoted)."""
    candidates: list[tuple[float, int, str]] = []
    for index, sentence in enumerate(reading.sentences):
        if not _can_stand_alone(sentence, traits):
            continue
        fact = reading.facts[index]
        candidates.append((_fact_score(fact, topic) - fact.refers_back, index, sentence))
        head = reading.heads[index] if reading.heads else None
        if head is not None and len(sentence) > room and _can_stand_alone(head[0], traits):
            candidates.append((_fact_score(head[1], topic) - head[1].refers_back, index, head[0]))
    scored = sorted(candidates, key=lambda c: (-c[0], c[1], len(c[2])))
    if scored and len(scored[0][2]) > room:
        good_enough = scored[0][0] - margin
        fitting = next((c for c in scored if c[0] >= good_enough and len(c[2]) <= room), None)
        if fitting is not None:
            scored.remove(fitting)
            scored.insert(0, fitting)
    chosen: dict[int, str] = {}
    length = 0
    for _, index, text in scored[:8]:
        if index in chosen:
            continue
        size = len(text) + (1 if chosen else 0)
        if chosen and length + size > budget:
            continue
        chosen[index] = text
        length += size
        if len(chosen) == MAX_FACTS:
            break
    return sorted(chosen.items())


def _can_stand_alone(sentence: str, traits: VoiceTraits) -> bool:
    """Clean, self-contained, and not against the voice (no "?" for a business that never asks)."""
    if not (MIN_SENTENCE_CHARS <= len(sentence) <= MAX_SENTENCE_CHARS):
        return False
    if sentence[-1] not in ".!\"'\u201d\u2019)" or not sentence[0].isupper():
        return False
    if NEEDS_CONTEXT_RE.match(sentence) or sentence.startswith(("\u201c", '"', "'")):
        return False
    # A quotation the splitter cut in two ('...said: "Feed is three-quarters of it.' and the rest
    # in the next sentence): quoted alone it opens a quote it never closes.
    if sentence.count('"') % 2 or sentence.count("\u201c") != sentence.count("\u201d"):
        return False
    if BOILERPLATE_RE.search(sentence) or MENTION_RE.search(sentence) or HASHTAG_RE.search(sentence):
        return False
    if FIRST_PERSON_RE.search(sentence) or "http" in sentence or EMOJI_RE.search(sentence):
        return False
    if "?" in sentence and not traits.question:
        return False
    return traits.you or not YOU_RE.search(sentence)


def _fact_score(fact: _SentenceReading, topic: BusinessTopic | None) -> float:
    """Matters to the business (its words), concrete (numbers, names), on the story's subject."""
    business = min(sum(topic.weight(s) for s in fact.stems), 3.0) if topic else 0.0
    return (
        -fact.leans_back
        + 1.5 * business
        + 0.4 * fact.numbers
        + 0.3 * fact.names
        + 0.4 * fact.on_story
        + fact.length_fit
        + fact.early
    )


DEFINITE_RE = re.compile(r"\bthe ([a-z]+)\b")
# Nouns that name what an earlier sentence told, in other words: "linked the boom to social media"
# after "the number ... has more than doubled". Written "the boom" they point back even when no
# earlier sentence used the word; unless the headline names it, the reader quoted one sentence
# does not know which boom. (Stems, as ``word_stem`` gives them; none that is also an everyday
# word's stem: "news" stems to "new", as in "the new rules".)
TOLD_BEFORE_NOUNS = frozenset(
    word_stem(noun)
    for noun in (
        "boom", "surge", "slump", "rise", "fall", "drop", "increase", "decrease", "decline", "growth",
        "trend", "move", "change", "changes", "decision", "announcement", "findings",
        "figures", "incident", "episode", "shortfall", "backlog", "dispute",
        "closure", "cuts", "delay", "delays", "rollout", "upgrade", "overhaul", "crackdown",
        "setback", "outbreak", "spike",
    )
)  # fmt: skip


# "Councillors also agreed...", "Drivers must also tell the DVLA...": an "also" adds to something
# an earlier sentence said (not in "not only ... but also", which carries both halves itself).
ALSO_RE = re.compile(r"(?<!\bbut )\balso\b", re.IGNORECASE)
# "...recalled aerosol dry shampoos for the same reason in 2021", "Most of the haddock, however, is
# imported": the same as what, and however against what, an earlier sentence said.
POINTS_BACK_RE = re.compile(
    r",\s*however\b|\bthe same (?:reason|problem|issue|way|thing|period|time|rule|scheme|story|fault|chemical)s?\b|"
    r"\bfor (?:this|that|these|those) reasons?\b|\binstead\b(?! of)",
    re.IGNORECASE,
)
# A quantity standing for people or things named before: "Half were offered a free class",
# "Several have already signed up", "One, speaking at a meeting, said..." ("Half of the 3,000
# ..." and "One in five drivers..." say whom they count, and stand alone).
COUNTED_BEFORE_RE = re.compile(
    # "The second is a soft fruit marquee...": the second of those an earlier sentence announced.
    r"^(?:half|most|many|some|several|few|all|none|one|two|three|the rest|the others|"
    r"the (?:first|second|third|fourth|fifth|last|latter|former|other))"
    r"(?:,| (?:were|was|are|is|have|has|had|will|would|said|say|says|did|do|does|can|could|may|might|"
    r"involved|included|came|went|lived|worked)\b)",
    re.IGNORECASE,
)
# "Mrs Drury and eleven friends wrote...": a title and a surname alone name someone the article
# introduced earlier by their full name.
TITLED_SURNAME_RE = re.compile(r"\b(?:Mr|Mrs|Ms|Miss|Dr)\.? ([A-Z][a-z]+)\b(?! [A-Z])")


# "...which calls at her stop in Brookvale", '"Buyers are chasing every animal," he said': a he or
# she whom the sentence itself does not name first (a person's name, a titled name or a person's
# noun before it) is someone an earlier sentence introduced.
GENDERED_RE = re.compile(r"\b(?:he|she|him|his|her|hers|himself|herself)\b", re.IGNORECASE)
PERSON_NOUN_RE = re.compile(
    r"\b(?:woman|man|girl|boy|lady|gentleman|mother|father|mum|dad|son|daughter|wife|husband|widow|widower|"
    r"grandmother|grandfather|grandson|granddaughter|sister|brother|aunt|uncle|niece|nephew|owner|farmer|"
    r"pensioner|resident|customer|driver|teacher|pupil|student|player|rider|vicar|landlord|landlady|"
    r"chairman|chairwoman|manager|spokesman|spokeswoman|founder|employee|worker|householder|homeowner|"
    r"tenant|patient|victim|walker|cyclist|motorist|passenger|volunteer|officer|member|child|person|who)\b",
    re.IGNORECASE,
)
TITLE_RE = re.compile(r"\b(?:Mr|Mrs|Ms|Miss|Dr|Rev|Sir|Dame|Lady|Lord|Cllr|Councillor|Professor|Prof|PC|Sgt)\.? [A-Z]")
# A run of capitalised words: a name, a person's if it is two or three words and does not end in
# the word of a body, a place or a thing ("Kelbury County Council", "Sheep Street", "Corn Exchange").
NAME_RUN_RE = re.compile(r"\b[A-Z][a-zA-Z'\u2019-]+(?: [A-Z][a-zA-Z'\u2019-]+)+")
NOT_A_PERSON_WORDS = frozenset(
    (
        "chamber", "trade", "castle", "abbey", "cathedral", "priory", "council", "club", "trust", "society",
        "association", "school", "college", "academy", "university", "centre", "center", "board", "service",
        "services", "agency", "office", "department", "authority", "group", "ltd", "limited", "company", "co",
        "street", "road", "lane", "avenue", "way", "hall", "house", "church", "chapel", "park", "farm", "market",
        "museum", "library", "festival", "show", "fund", "panel", "network", "partnership", "commission",
        "committee", "police", "fire", "rescue", "hospital", "surgery", "practice", "team", "inn", "arms",
        "exchange", "bridge", "station", "theatre", "cinema", "gardens", "green", "square", "court", "estate",
        "valley", "river", "hill", "moor", "quay", "harbour", "county", "district", "borough", "city", "town",
        "village", "news", "times", "gazette", "post", "herald", "echo", "mail", "radio", "fm",
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
        "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    )
)  # fmt: skip


def _surname(run: str) -> str | None:
    """The last word of a run of capitalised words when the run reads as a person's name: two or
    three words (a leading "The" aside), the last not a body's, a place's or a date's word."""
    words = [word for word in run.split() if word not in {"The", "A", "An"}]
    if not 2 <= len(words) <= 3 or any(re.search(r"['\u2019]s$", word) for word in words[:-1]):
        return None  # "Fairtrade's Ghana (coordinator)": an owner's thing, not a name
    last = re.sub(r"['\u2019]s$", "", words[-1])
    return last if last.lower() not in NOT_A_PERSON_WORDS else None


def _person_named(text: str) -> bool:
    """Whether ``text`` names a person: by a title, a person's noun, or a person's name."""
    if TITLE_RE.search(text) or PERSON_NOUN_RE.search(text):
        return True
    return any(_surname(run) for run in NAME_RUN_RE.findall(text))


# A person's name as news writes it when it first gives it: "Lucia Marchetti, 17, ...", "Walter
# Brigg, who has...", "Anna Price said", "said Anna Price". (Not any name: "Penwick Vets" is a firm.)
NAME_RUN = r"[A-Z][a-zA-Z'\u2019-]+(?: [A-Z][a-zA-Z'\u2019-]+){1,2}"
PERSON_GIVEN_RE = re.compile(
    rf"\b({NAME_RUN})(?:, (?:\d{{1,3}},|who\b|whose\b|aged\b)| (?:said|says|told)\b)|\b(?:said|says) ({NAME_RUN})"
)


def _surnames_before(sentences: Sequence[str]) -> set[str]:
    """The last words of the people's names earlier sentences gave in full ("Lucia Marchetti":
    "Marchetti")."""
    found = (_surname(match.group(1) or match.group(2)) for s in sentences for match in PERSON_GIVEN_RE.finditer(s))
    return {surname for surname in found if surname}


@dataclass
class _EarlierSentences:
    """What the article's sentences before the one being read have told, gathered as they are read:
    asking the whole of the text before each sentence again made a long article's reading
    quadratic (a 35,000-word page took half a minute, a 90,000-word one four)."""

    # Every lower-case word of the whole article (a word it writes in lower case is not a surname).
    lower: frozenset[str]
    stems: set[str] = field(default_factory=set)
    words: set[str] = field(default_factory=set)
    surnames: set[str] = field(default_factory=set)

    def add(self, sentence: str, stems: set[str]) -> None:
        self.stems |= stems
        self.words |= set(re.findall(r"\w+", sentence))
        self.surnames |= _surnames_before([sentence])


def _unnamed_person(sentence: str, earlier: _EarlierSentences) -> bool:
    """A he or she the sentence does not name before it; or a person called by a surname alone
    that an earlier sentence gave with the first name ("Marchetti took up golf at nine"). A word
    the article also writes in lower case is a word, not a surname ("Vets say...")."""
    pronoun = GENDERED_RE.search(sentence)
    if pronoun and not _person_named(sentence[: pronoun.start()]):
        return True
    alone = set(re.findall(r"\b[A-Z][a-z]+\b", NAME_RUN_RE.sub(" ", sentence)))
    return any(surname in alone and surname.lower() not in earlier.lower for surname in earlier.surnames)


def _refers_back(sentence: str, index: int, title_stems: set[str], earlier: _EarlierSentences) -> float:
    """ "...drove the rise, the guild said": "the rise" is one an earlier sentence told of,
    and quoted alone the reader does not know which. A definite noun that an earlier sentence
    of the article used and the headline does not name makes a sentence lean on its context;
    so do an "also", a quantity standing for those named before ("Half were offered..."), a
    title with a surname the article gave in full before ("Mrs Drury"), and a person the sentence
    does not name: a he or she ("which calls at her stop") or a surname alone ("Marchetti runs")."""
    if not index:
        return 0.0
    if ALSO_RE.search(sentence) or POINTS_BACK_RE.search(sentence) or COUNTED_BEFORE_RE.match(sentence):
        return REFERS_BACK_COST
    if any(surname in earlier.words for surname in TITLED_SURNAME_RE.findall(sentence)):
        return REFERS_BACK_COST
    if _unnamed_person(sentence, earlier):
        return UNNAMED_PERSON_COST
    nouns = {word_stem(noun) for noun in DEFINITE_RE.findall(sentence)}
    unnamed = nouns - title_stems
    if unnamed & TOLD_BEFORE_NOUNS:
        return TOLD_BEFORE_COST
    back = {noun for noun in unnamed if noun in earlier.stems and len(noun) > 3}
    return REFERS_BACK_COST if back else 0.0


DEFINITE_OPENING_RE = re.compile(r"^The ([a-z]+)(?: ([a-z]+))?\b")


def _leans_back(sentence: str, title_stems: set[str]) -> float:
    """ "The service is offering..." names its subject as if the reader already knew it: a
    fact quoted alone reads better when it says who. Not when the headline names it."""
    match = DEFINITE_OPENING_RE.match(sentence)
    if not match:
        return 0.0
    nouns = {word_stem(word) for word in match.groups() if word}
    return 0.0 if nouns & title_stems else 2.0


# --------------------------------------------------------------------------- voice


def is_sombre(title: str, lead: str) -> bool:
    """Bad news, by its headline or its first sentence (SOMBRE_RE)."""
    return bool(SOMBRE_RE.search(title) or SOMBRE_RE.search(lead))


def is_unwelcome(title: str, lead: str) -> bool:
    """News customers will not welcome, short of a tragedy, by its headline or first sentence."""
    return bool(UNWELCOME_RE.search(title) or UNWELCOME_RE.search(lead))


def _cheerful(emoji: str) -> bool:
    # "❤️" is "❤" plus a variation selector; skin tones follow the hand they colour.
    return emoji[:1] in CHEERFUL_EMOJI


def _names_the_business(text: str, own_names: Sequence[str]) -> bool:
    """The text names the business by a name of its own (``own_names``, its main name first),
    written as a name (capitals kept; a leading "The" may be lower case). Not by the place it is
    named after: another of its names that begins its main one ("Sorrel Hill" of "Sorrel Hill
    Riding School") is taken for the place."""
    names = [name.strip() for name in own_names if len(name.strip()) > 3]
    for position, name in enumerate(names):
        if position and names[0].lower().startswith(name.lower()):
            continue
        bare = re.sub(r"^the\s+", "", name, flags=re.IGNORECASE)
        if len(bare) > 3 and re.search(rf"(?<!\w){re.escape(bare)}(?!\w)", text):
            return True
    return False


def _opening(traits: VoiceTraits, seed: int) -> str:
    grave = traits.sombre or traits.unwelcome
    if traits.target_chars < SHORT_POST_CHARS:
        table = SHORT_SOMBRE_OPENINGS if grave else SHORT_OPENINGS
    else:
        table = SOMBRE_OPENINGS if grave else OPENINGS
    options = table[(traits.person, traits.you)]
    return options[seed % len(options)]


def _closing(traits: VoiceTraits, *, platform: str, outlet: str, bio_link: bool, seed: int) -> list[str]:
    """Call to action, source, sign-off: in the business's own words where it has them."""
    blocks: list[str] = []
    cta = _call_to_action(traits, seed)
    if traits.question:
        asking = SOMBRE_QUESTIONS if traits.sombre or traits.unwelcome else QUESTIONS
        question = asking[(traits.person, traits.you)][(seed >> 4) % 3]
        cta = f"{question} {cta}".strip()
    if platform == INSTAGRAM and bio_link:
        cta = f"{cta} {LINK_IN_BIO}".strip()
    elif platform != INSTAGRAM and not traits.calls_to_action:
        cta = f"{cta} {FACEBOOK_CTA}".strip()
    if cta:
        blocks.append(cta)
    if outlet.strip():
        blocks.append(f"Source: {_outlet_name(outlet)}")
    if traits.sign_off and not _said_in(traits.sign_off, cta):
        blocks.append(traits.sign_off)
    return blocks


def _words_only(text: str) -> str:
    # "See you in the jungle! 🦁" and "See you in the jungle!" are one line to a reader.
    return " ".join(re.sub(r"[^\w']+", " ", text).lower().split())


def _said_in(sign_off: str, text: str) -> bool:
    """Whether the text already says the sign-off, in its words (or, for a sign-off of emoji
    alone, as it is written)."""
    words = _words_only(sign_off)
    return words in _words_only(text) if words else sign_off in text


def _call_to_action(traits: VoiceTraits, seed: int) -> str:
    """The business's own habitual invitation, if it has one that fits the voice's rules and is
    not its sign-off in other dress (the sign-off closes the draft anyway)."""
    signed = _words_only(traits.sign_off)
    fitting = [
        cta
        for cta in traits.calls_to_action
        if not (signed and _words_only(cta) in signed)
        and (traits.question or "?" not in cta)
        and (traits.you or not YOU_RE.search(cta))
    ]
    return fitting[(seed >> 8) % len(fitting)] if fitting else ""


def _outlet_name(outlet: str) -> str:
    """The outlet's name, without digits the gate would have to find in the article."""
    name = " ".join(outlet.split())[:80]
    return name if not NUMBER_RE.search(name) else "the original article"


def _assemble(*, opening: str, facts: str, closing: list[str], traits: VoiceTraits) -> str:
    emoji = " ".join(traits.emoji)
    if emoji and traits.emoji_placement == "start":
        opening = f"{emoji} {opening}"
    elif emoji and traits.emoji_placement == "inline":
        opening = f"{opening} {emoji}"
    elif emoji:
        facts = f"{facts} {emoji}"
    blocks = [opening, facts, *closing]
    if traits.hashtags:
        blocks.append(" ".join(traits.hashtags))
    # Hashtags, then the sign-off, give way before the quoted facts ever would.
    while len(blocks) > 2 and len("\n\n".join(blocks)) > MAX_CHARS[Platform.INSTAGRAM]:
        blocks.pop()
    return "\n\n".join(blocks)


def _hashtags_for(tags: list[str], *, article_words: set[str], count: int) -> list[str]:
    """The business's own tags, those about this article's subject first."""
    stems = {word_stem(w) for w in article_words}

    def about_article(tag: str) -> bool:
        parts = re.findall(r"[a-z]+", re.sub(r"(?<=[a-z])(?=[A-Z])", " ", tag.lstrip("#")).lower())
        return any(word_stem(part) in stems for part in parts if len(part) > 3)

    ranked = sorted(tags, key=lambda tag: (not about_article(tag), tags.index(tag)))
    return ranked[:count]


def _follows(rate: float, seed: int, habit: int) -> bool:
    if rate >= HABIT_ALWAYS:
        return True
    if rate < HABIT_RARE:
        return False
    return ((seed >> habit) % 100) / 100 < rate


def _target_chars(platform: str, stats: dict[str, Any]) -> int:
    low, high = TARGET_BOUNDS.get(platform, TARGET_BOUNDS[FACEBOOK])
    median = (stats.get("length") or {}).get("median")
    if not median:
        return DEFAULT_TARGET_CHARS.get(platform, DEFAULT_TARGET_CHARS[FACEBOOK])
    return max(low, min(high, int(median)))
