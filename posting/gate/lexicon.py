"""What the factual gate knows about English: stopwords, filler, calls to action, negations,
antonyms, superlatives, number words, month names, a light stemmer, and the patterns that
find numbers, money, times and sentence ends. Lists, not a model: every entry is readable.
"""

from __future__ import annotations

import functools
import re


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    word = IRREGULAR.get(word, word)
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    if word.endswith("ly") and len(word) > 5:
        word = word[:-2]
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def _words(text: str) -> list[str]:
    return text.split()


CLOSERS = ".!?\"')\u201d\u2019"
DASHES = " -\u2013\u2014:,"
SENTENCE_END = re.compile(r"[.!?]+[\"')\u201d\u2019]*(?=\s+[\"'\u201c\u2018(]?[A-Z0-9\u00a3$\u20ac])")
ABBREVIATIONS = frozenset(
    _words(
        "mr mrs ms dr st mt prof gen sen rep gov jr sr inc ltd co corp no vs etc e.g i.e approx est dept fig jan feb "
        "mar apr jun jul aug sep sept oct nov dec u.s u.k a.m p.m"
    )
)
URL = re.compile(r"https?://\S+|www\.\S+", re.IGNORECASE)
TOKEN = re.compile(r"\d+(?:[.:]\d+)*[^\W\d_]*|[^\W\d_]+(?:'[^\W\d_]+|')?\d*\w*|[.!?;:\"(,]")
SPACED_DASH = re.compile(r"\s-+\s")
DENIAL = re.compile(r"\b(?:rather than|instead of)\b", re.IGNORECASE)
DIGIT = re.compile(r"\d")
ENDING = re.compile(r"'(?:s|re|ve|ll|d|m)$|'$")
MODEL_TOKEN = re.compile(r"\d+[A-Za-z]+\w*")
BREAK_CHARS = frozenset('.!?;:"(,')
TIME = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\.?(?!\w)", re.IGNORECASE)
MONEY = re.compile(
    r"(?:US|A|C|NZ)?([$£€])\s?(\d[\d,]*(?:\.\d+)?)\s*(bn|billion|mn|million|m|k|thousand|tn|trillion)?(?![\w])",
    re.IGNORECASE,
)
MAGNITUDE = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(bn|billion|mn|million|thousand|tn|trillion)(?!\w)", re.IGNORECASE)
MAGNITUDES = {
    "k": 1000,
    "thousand": 1000,
    "m": 1_000_000,
    "mn": 1_000_000,
    "million": 1_000_000,
    "bn": 1_000_000_000,
    "billion": 1_000_000_000,
    "tn": 1_000_000_000_000,
    "trillion": 1_000_000_000_000,
}
PUNCTUATION_MAP = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": " , ", "\u00a0": " "}
)

MONTH_NAMES = _words("january february march april may june july august september october november december")
MONTHS = {name: name for name in MONTH_NAMES if name not in {"may", "march"}} | {
    "jan": "january",
    "feb": "february",
    "apr": "april",
    "jun": "june",
    "jul": "july",
    "aug": "august",
    "sep": "september",
    "sept": "september",
    "oct": "october",
    "nov": "november",
    "dec": "december",
}
DAY_WORDS = frozenset(_words("monday tuesday wednesday thursday friday saturday sunday tomorrow yesterday"))
VAGUE_DAYS = frozenset({"today", "tonight"})
RELATIVE = frozenset({"next", "last", "this", "coming", "past", "previous"})
PERIODS = frozenset(
    {"week", "month", "year", "weekend", "season", "spring", "summer", "autumn", "fall", "winter", "decade"}
)
WORD_NUMBERS = {
    word: str(value)
    for value, word in enumerate(
        _words(
            "zero _ two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
            "seventeen eighteen nineteen twenty"
        )
    )
    if word != "_"
} | {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90"}
# "one" is left out on purpose: far more often a pronoun ("the one that") than a count.
PROPORTIONS = frozenset(
    _words(
        "half halves halved quarter quarters third thirds fifth fifths second fourth sixth seventh eighth ninth "
        "tenth dozen dozens double doubled doubles triple tripled trebled"
    )
)

NEGATIONS = frozenset({"not", "no", "never", "none", "neither", "nor", "without", "nothing", "nobody", "cannot"})
# Verbs that deny their object the way "not" does ("refused to consider", "lacked the space").
IMPLICIT_NEGATIONS = frozenset(
    _words(
        "refuse refused refuses refusing fail failed fails failing lack lacked lacks lacking unable deny denied denies"
    )
)
NEGATING_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non")
CONTRACTIONS = {"won't": "will", "can't": "can", "shan't": "shall"}
SCOPE_BREAKERS = frozenset({"but", "although", "though", "while", "whereas", "however", "and", "or", "because"})

STOPWORDS = frozenset(
    _words("""a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having
    he her here hers herself him himself his how i if in into is it its itself just me more most my myself
    of off on once only or other our ours ourselves out over own same she should so some such than that the
    their theirs them themselves then there these they this those through to too under until up very was we
    were what when where which while who whom why will with would you your yours yourself yourselves
    may might must shall also said says say according per via yet still even ever much many well""")
) - {"most", "only", "ever", "more", "above", "below", "before", "after", "up", "down"}
FIRST_PERSON = frozenset({"we", "our", "ours", "us", "i", "my", "ourselves"})
AUXILIARIES = frozenset(
    _words("is are was were be been being has have had will would can could should may might must do does did")
)
PAST = re.compile(r"[a-z]{3,}ed$")

# Words that carry tone, not facts: a sentence of only these is not a claim.
FILLER = frozenset(
    _words("""news big huge exciting excited excite amazing awesome great love loving loved incredible wow check stay
    tuned story update updates read learn more full link bio click tap swipe share follow comment tag
    thoughts think know happy proud thrilled delighted fantastic brilliant cool stunning wonderful
    good nice really absolutely definitely important interesting fun favourite favorite must see
    look looks looking forward can't wait hear heard folks friends everyone anyone guys team
    community today's week's keep eye eyes out here's there's thing things lot lots pretty""")
)
CTA_WORDS = frozenset(
    _words("""read visit come pop drop stop swing call book shop order sign subscribe dm message click tap follow
    share tag tell let find learn check see swipe join grab head get""")
)
CTA_START = re.compile(
    r"^(?:read (?:more|the (?:full )?(?:story|article|piece))|link in (?:our )?bio|learn more|find out more|"
    r"more (?:at|here|info)|full story|see more|check (?:it|this|them) out|check out|click|tap|swipe|follow|"
    r"share|tag a friend|tag|comment|let us know|tell us|drop (?:us )?a (?:comment|line|message)|stay tuned|"
    r"don't|do not|let's|why not|visit|come (?:in|by|see|and)|pop in|pop by|drop by|stop by|swing by|"
    r"shop now|order now|sign up|subscribe|dm us|message us|source|via|happy \w+ing|see you|thanks|thank you|"
    # An imperative verb followed by its object or particle: "Order your bouquet", "Curl up".
    r"(?:call|order|book|shop|visit|grab|try|enjoy|join|discover|explore|celebrate|remember|treat|bring|pick|"
    r"support|come|pop|drop|stop|swing|head|get|give|make|take|plan|save|mark|meet|watch|keep|stay|curl|"
    r"batten|brush|wish|say|hurry|reserve|register|download|sign|raise|feed|walk|protect|check)"
    r" (?:your|our|us|the|a|an|in|by|up|down|out|it|this|that|these|them|with|today|now|along|over|on|off|"
    r"yourself|him|her|me|safe|tuned|warm|dry|cool))\b"
)
CLAUSE_BREAK = re.compile(r"\s*;\s+|,?\s+(?:while|whereas)\s+|,\s+(?:but|and|yet)\s+", re.IGNORECASE)
CTA_LEAD = re.compile(r"^(?:breaking|big news|news|update|new|heads up|psst|fyi|did you know)\s*[:!,-]\s*", re.I)
DID_YOU_KNOW = re.compile(r"^(?:did you know|guess what)")
COMMON_STARTS = frozenset(
    _words("""meanwhile however now today this that these those the a an it its there here after before when while
    new local riders customers shoppers residents officials researchers experts analysts organisers
    organizers visitors parents students drivers""")
)

SUPERLATIVES = frozenset(
    _words("""best worst most least first only unique unprecedented record leading top ultimate revolutionary
    groundbreaking unrivalled unrivaled unmatched unbeatable number-one""")
)
NOT_SUPERLATIVE = frozenset(
    _words("""interest test west rest forest honest request protest contest guest chest nest quest suggest invest
    arrest harvest modest manifest digest priest pest vest zest crest fest attest detest earnest conquest
    inquest midwest southwest northwest everest behest infest tempest unrest latest""")
)
WEAK_WORDS = frozenset({"new", "year", "day", "time", "week", "month", "percent", "people", "also"})

IRREGULAR = {
    "said": "say",
    "says": "say",
    "told": "tell",
    "rose": "rise",
    "risen": "rise",
    "fell": "fall",
    "fallen": "fall",
    "grew": "grow",
    "grown": "grow",
    "won": "win",
    "lost": "lose",
    "bought": "buy",
    "sold": "sell",
    "made": "make",
    "began": "begin",
    "begun": "begin",
    "built": "build",
    "spent": "spend",
    "ran": "run",
    "took": "take",
    "taken": "take",
    "gave": "give",
    "given": "give",
    "held": "hold",
    "led": "lead",
    "paid": "pay",
    "met": "meet",
    "went": "go",
    "gone": "go",
    "came": "come",
    "chose": "choose",
    "chosen": "choose",
    "drove": "drive",
    "driven": "drive",
    "kept": "keep",
    "knew": "know",
    "known": "know",
    "meant": "mean",
    "rode": "ride",
    "ridden": "ride",
    "sent": "send",
    "shown": "show",
    "wrote": "write",
    "written": "write",
    "shrank": "shrink",
    "shrunk": "shrink",
    "broke": "break",
    "broken": "break",
    "hired": "hire",
    "fired": "fire",
    "cheaper": "cheap",
    "bigger": "big",
    "larger": "large",
    "smaller": "small",
    "higher": "high",
    "lower": "low",
    "fewer": "few",
    "less": "few",
    "purchased": "buy",
    "purchase": "buy",
    "increased": "increase",
    "increases": "increase",
    "decreased": "decrease",
    "decreases": "decrease",
}
OPPOSITE_PAIRS = [
    ("rise", "fall"),
    ("rise", "drop"),
    ("rise", "decline"),
    ("increase", "decrease"),
    ("increase", "fall"),
    ("increase", "drop"),
    ("increase", "cut"),
    ("grow", "shrink"),
    ("grow", "decline"),
    ("gain", "loss"),
    ("win", "lose"),
    ("open", "close"),
    ("opening", "closure"),
    ("approve", "reject"),
    ("accept", "reject"),
    ("allow", "ban"),
    ("allow", "prohibit"),
    ("high", "low"),
    ("more", "few"),
    ("up", "down"),
    ("above", "below"),
    ("before", "after"),
    ("earlier", "later"),
    ("profit", "loss"),
    ("hire", "cut"),
    ("hire", "fire"),
    ("raise", "cut"),
    ("raise", "lower"),
    ("add", "remove"),
    ("support", "oppose"),
    ("succeed", "fail"),
    ("success", "failure"),
    ("strong", "weak"),
    ("cheap", "expensive"),
    ("ahead", "behind"),
    ("maximum", "minimum"),
    ("full", "empty"),
    ("public", "private"),
    ("legal", "illegal"),
    ("expand", "shrink"),
    ("expand", "cut"),
    ("start", "end"),
    ("start", "finish"),
    ("join", "leave"),
    ("boost", "cut"),
    ("boost", "reduce"),
    ("increase", "reduce"),
    ("large", "small"),
    ("big", "small"),
    ("long", "short"),
    ("lead", "trail"),
    ("confirm", "deny"),
    ("include", "exclude"),
    ("welcome", "criticise"),
    ("welcome", "criticize"),
    ("praise", "criticise"),
    ("praise", "criticize"),
    ("launch", "cancel"),
    ("delay", "advance"),
    ("optimistic", "pessimistic"),
    ("optimism", "pessimism"),
    ("good", "bad"),
    ("good", "poor"),
    ("positive", "negative"),
    ("welcome", "oppose"),
    ("welcome", "reject"),
    ("agree", "refuse"),
    ("safe", "dangerous"),
    ("easy", "difficult"),
    ("easy", "hard"),
    ("rich", "poor"),
    ("wet", "dry"),
    ("hot", "cold"),
    ("warm", "cold"),
    ("early", "late"),
    ("young", "old"),
    ("winner", "loser"),
    ("buy", "sell"),
    ("import", "export"),
    ("arrive", "depart"),
    ("majority", "minority"),
    ("most", "least"),
    ("always", "never"),
    ("inside", "outside"),
    ("north", "south"),
    ("east", "west"),
    ("keep", "lose"),
    ("allow", "forbid"),
    ("permit", "ban"),
    ("guilty", "innocent"),
    ("convict", "acquit"),
    ("pass", "fail"),
    ("victory", "defeat"),
    ("mild", "severe"),
    ("light", "heavy"),
    ("fast", "slow"),
    ("quick", "slow"),
    ("simple", "complex"),
    ("strength", "weakness"),
    ("surplus", "deficit"),
    ("boom", "slump"),
    ("surge", "slump"),
    ("climb", "fall"),
    ("soar", "plunge"),
    ("gain", "drop"),
    ("less", "more"),
]
OPPOSITES: dict[str, set[str]] = {}
OPPOSITE_RAW: dict[str, str] = {}
for _left, _right in OPPOSITE_PAIRS:
    _left_stem, _right_stem = stem(_left), stem(_right)
    OPPOSITES.setdefault(_left_stem, set()).add(_right_stem)
    OPPOSITES.setdefault(_right_stem, set()).add(_left_stem)
    OPPOSITE_RAW[_left_stem], OPPOSITE_RAW[_right_stem] = _left, _right
FILLER_STEMS = frozenset(stem(word) for word in FILLER)
