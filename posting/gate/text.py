"""Text for the factual gate: sentences, and the normalised tokens both sides are compared by.

Numbers are normalised ("3.5bn" = "3,500,000,000", "20%" = "20 percent"), months spelled
out ("Oct." = "October"), words stemmed, and each token tagged as a number, date, name,
model number, word, negation or break. Pure functions, no Django.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from posting.gate.lexicon import (
    ABBREVIATIONS,
    BREAK_CHARS,
    CLOSERS,
    COMMON_STARTS,
    CONTRACTIONS,
    CTA_WORDS,
    DAY_WORDS,
    DENIAL,
    DIGIT,
    ENDING,
    FILLER,
    FILLER_STEMS,
    FIRST_PERSON,
    IMPLICIT_NEGATIONS,
    IRREGULAR,
    MAGNITUDE,
    MAGNITUDES,
    MODEL_TOKEN,
    MONEY,
    MONTH_NAMES,
    MONTHS,
    NEGATIONS,
    NOT_SUPERLATIVE,
    NUMBER_WORD,
    NUMBER_WORDS,
    PAST,
    PERIODS,
    PROPORTIONS,
    PUNCTUATION_MAP,
    RELATIVE,
    SENTENCE_END,
    SPACED_DASH,
    STOPWORDS,
    SUPERLATIVES,
    TIME,
    TOKEN,
    VAGUE_DAYS,
    WEAK_WORDS,
    WORD_NUMBERS,
    is_ordinary_word,
    stem,
)


def sentences_split(text: str) -> list[str]:
    """Split prose into sentences (paragraph breaks always end one).

    The composer numbers sentences with this same function, so that the sentence numbers
    an LLM cites and the ones the gate reports agree.
    """
    sentences: list[str] = []
    for paragraph in re.split(r"\n\s*\n|\r?\n", text):
        paragraph = " ".join(paragraph.split())
        if not paragraph:
            continue
        start = 0
        for match in SENTENCE_END.finditer(paragraph):
            end = match.end()
            candidate = paragraph[start:end].strip()
            last_word = candidate.rsplit(" ", 1)[-1].rstrip(CLOSERS).lower()
            if candidate.endswith(".") and (last_word in ABBREVIATIONS or re.fullmatch(r"[a-z]", last_word)):
                continue
            if candidate:
                sentences.append(candidate)
            start = end
        rest = paragraph[start:].strip()
        if rest:
            sentences.append(rest)
    return sentences


NUMBER = "number"
DATE = "date"
PROPER = "proper"
MODEL = "model"
WORD = "word"
NEGATION = "negation"
BREAK = "break"


@dataclass(frozen=True)
class Token:
    norm: str
    raw: str
    kind: str
    key: bool = False
    content: bool = False
    superlative: bool = False
    # Made from its neighbours ("october_3"); not a word of the sentence itself.
    derived: bool = False
    # A capitalised first word the article never uses: taken for a name only if the rest
    # of the sentence is a claim ("Ethiopia supplies 40%"), not in "Cheers!".
    guessed: bool = False

    @property
    def informative(self) -> bool:
        return self.kind != WORD or self.norm not in WEAK_WORDS


def tokenize(
    text: str,
    *,
    source_vocabulary: frozenset[str] = frozenset(),
    is_claim: bool = False,
    source_names: frozenset[str] = frozenset(),
) -> list[Token]:
    """Normalised tokens of one sentence: numbers, dates, names and stemmed words.

    ``source_vocabulary`` holds the article's lower-case words and ``source_names`` the
    words it capitalises inside a sentence: a capitalised opener ("Coming", "Plus") that is
    an ordinary English word is read as a name only when the article uses it as one.
    """
    raw_tokens = TOKEN.findall(_normalise(text))
    tokens: list[Token] = []
    sentence_start = True
    for index, raw in enumerate(raw_tokens):
        if raw in BREAK_CHARS:
            if raw == "." and index and raw_tokens[index - 1].lower() in ABBREVIATIONS:
                continue  # "Oct." or "Dr.": the full stop belongs to the word
            tokens.append(Token(norm=raw, raw=raw, kind=BREAK))
            sentence_start = raw in '.!?:;"('
            continue
        next_digit = index + 1 < len(raw_tokens) and raw_tokens[index + 1][0].isdigit()
        bare = _bare(raw)
        in_vocabulary = bare in source_vocabulary
        named = sentence_start and bare in source_names
        tokens.extend(_classify(raw, next_digit, sentence_start, in_vocabulary, is_claim, named))
        sentence_start = False
    tokens = _with_dates(_adverbial_first(tokens))
    # After the dates: the pair is not a neighbour of anything ("by 50p to £5 in January").
    return tokens if is_claim else _ranges_as_written_short(tokens)


def _ranges_as_written_short(tokens: list[Token]) -> list[Token]:
    """The article's "19 and 20 June", "aged 14 to 21", "passed 4 to 1" is what a post shortens to
    "19-20", "14-21", "4-1": the pair as one fact, in its order, as a claim's dashed pair reads.

    Only the article's side: a claim that writes "19 and 20" is checked number by number, as
    before, so no claim gains a figure to miss."""
    pairs = [
        index
        for index in range(len(tokens) - 2)
        if tokens[index].kind == NUMBER
        and not tokens[index].derived
        and tokens[index + 1].kind == WORD
        and tokens[index + 1].norm in {"and", "to"}
        and tokens[index + 2].kind == NUMBER
        and not tokens[index + 2].derived
        and tokens[index].norm.isdigit()
        and tokens[index + 2].norm.isdigit()
        and len(tokens[index].norm) <= 3
        and len(tokens[index + 2].norm) <= 3
    ]
    if not pairs:
        return tokens
    return tokens + [
        Token(
            norm=f"score{tokens[index].norm}x{tokens[index + 2].norm}",
            raw=f"{tokens[index].norm}-{tokens[index + 2].norm}",
            kind=NUMBER,
            key=True,
            content=True,
            derived=True,
        )
        for index in pairs
    ]


def _adverbial_first(tokens: list[Token]) -> list[Token]:
    """ "first joined", "first opened": "first" before a verb says when, not that it was the
    first; "online only", "adults only" at the end of a sentence restrict, they do not rank."""
    words = [token for token in tokens if token.kind != BREAK]
    if len(words) > 1 and words[-1].norm == "only":
        tokens[tokens.index(words[-1])] = Token(norm="only", raw=words[-1].raw, kind=WORD)
    for index, token in enumerate(tokens[:-1]):
        if token.norm == "first" and token.superlative:
            following = tokens[index + 1].raw.lower()
            if PAST.search(following) or following in IRREGULAR or following in {"met", "became", "began", "saw"}:
                tokens[index] = Token(norm="first", raw=token.raw, kind=WORD)
    for index, token in enumerate(tokens):
        if not token.superlative:
            continue
        following_token = tokens[index + 1] if index + 1 < len(tokens) else None
        preceding = tokens[index - 1].raw.lower() if index else ""
        # "an extra $1,500 on top", "dries out faster on top": a place or "as well", not a rank.
        # "Only 15 places": the number is the fact (checked as a number), "only" weighs it.
        # "talk to us about timing first!": "first" closing a clause is "beforehand".
        # "at least two weeks", "at most 40": a bound on the number (checked as a number), no rank.
        # "that's Pat's record.": a possessive's record closing a clause is her track record.
        following_raw = following_token.raw.lower() if following_token is not None else ""
        if (
            (token.norm == "top" and preceding == "on")
            or (token.norm in {"least", "most"} and preceding == "at")
            or (
                token.norm == "record"
                and (preceding.endswith(("'s", "\u2019s")) or preceding in POSSESSIVES)
                and (following_token is None or following_token.kind == BREAK or following_raw in {"of", "in"})
            )
            or (token.norm == "only" and following_token is not None and following_token.kind == NUMBER)
            or (token.norm == "first" and index > 0 and (following_token is None or following_token.kind == BREAK))
        ):
            # A bound stays a word the evidence must hold: "at most" is not "at least".
            bound = token.norm in {"least", "most"}
            tokens[index] = Token(norm=token.norm, raw=token.raw, kind=WORD, content=bound)
    return tokens


POSSESSIVES = frozenset({"my", "your", "his", "her", "its", "our", "their"})


@functools.lru_cache(maxsize=65536)
def _bare(raw: str) -> str:
    """The word in lower case without a possessive or contraction ending ("Trek's" -> "trek")."""
    return ENDING.sub("", raw.lower())


# A worker reads the same words in article after article: classifying a word is a pure
# function of the word and a few facts about its place, so it is done once per process.
@functools.lru_cache(maxsize=131072)
def _classify(
    raw: str, next_digit: bool, sentence_start: bool, in_vocabulary: bool, is_claim: bool, named: bool = False
) -> tuple[Token, ...]:
    if raw[0].isdigit():
        if re.fullmatch(r"\d+(?:s|p)", raw):
            # "under-16s", "the 1990s", "50p": the number itself (pence are counted as written).
            return (Token(norm=_number(raw[:-1]), raw=raw, kind=NUMBER, key=True, content=True),)
        if MODEL_TOKEN.fullmatch(raw):
            return (Token(norm=raw.lower(), raw=raw, kind=MODEL, key=True, content=True),)
        return (Token(norm=_number(raw), raw=raw, kind=NUMBER, key=True, content=True),)
    if raw.startswith("score") and raw[5:6].isdigit():
        shown = raw[5:].replace("x", "-")
        return (Token(norm=raw, raw=shown, kind=NUMBER, key=True, content=True, derived=True),)
    if not raw.isalpha() and any(ch.isdigit() for ch in raw):
        return (Token(norm=raw.lower(), raw=raw, kind=MODEL, key=True, content=True),)
    lowered = raw.lower()
    if lowered.endswith("n't"):
        verb = CONTRACTIONS.get(lowered, lowered[:-3])
        return (
            Token(norm=verb, raw=raw, kind=WORD),
            Token(norm="not", raw=raw, kind=NEGATION),
        )
    lowered = _bare(raw)
    if lowered in NEGATIONS or lowered in IMPLICIT_NEGATIONS:
        return (Token(norm=lowered, raw=raw, kind=NEGATION),)
    month = _month(raw, lowered, next_digit, sentence_start)
    if month:
        return (Token(norm=month, raw=raw, kind=DATE, key=True, content=True),)
    if lowered in DAY_WORDS:
        return (Token(norm=lowered, raw=raw, kind=DATE, key=True, content=True),)
    if lowered in VAGUE_DAYS:
        # "today" in a post means the day it is read, so it cannot be held to the article's dates.
        return (Token(norm=lowered, raw=raw, kind=WORD, content=True),)
    number = WORD_NUMBERS.get(lowered)
    if number is None and len(lowered) > 4 and lowered.endswith("s"):
        number = WORD_NUMBERS.get(lowered[:-1])  # "under-sevens": children under seven
    if number is not None:
        return (Token(norm=number, raw=raw, kind=NUMBER, key=True, content=True),)
    if lowered in PROPORTIONS:
        norm = stem(PROPORTION_FORMS.get(lowered, lowered))
        return (Token(norm=norm, raw=raw, kind=NUMBER, key=True, content=True, guessed=is_claim),)
    # "twice" is not a figure on its own ("twice as many as last year" may be the article's
    # 600 against 300), but it is the word "double" where the article uses that.
    norm = stem(PROPORTION_FORMS.get(lowered, lowered))
    if lowered in STOPWORDS or len(lowered) < 2:
        return (Token(norm=lowered, raw=raw, kind=WORD),)
    superlative = (_is_superlative(lowered) and not raw[0].isupper()) or lowered in SUPERLATIVES
    if _is_proper(raw, lowered, sentence_start, in_vocabulary or (not named and is_ordinary_word(lowered))):
        guessed = is_claim and sentence_start and not in_vocabulary
        return (Token(norm=norm, raw=raw, kind=PROPER, key=is_claim, content=True, guessed=guessed),)
    content = lowered not in FILLER and norm not in FILLER_STEMS
    return (Token(norm=norm, raw=raw, kind=WORD, content=content, superlative=superlative),)


def _is_proper(raw: str, lowered: str, sentence_start: bool, in_vocabulary: bool) -> bool:
    if raw.islower():
        return False
    if raw.isupper() and len(raw) > 1 and (in_vocabulary or lowered in FILLER):
        return False  # shouting an ordinary word ("HUGE", "NEW") does not make it a name
    if sentence_start and not any(ch.isupper() for ch in raw[1:]):
        # A capital at the start of a sentence is grammar, unless the article never uses
        # the word in lower case (then it may be a name the article would have to contain).
        return not (
            in_vocabulary
            or lowered in COMMON_STARTS
            or lowered in FILLER
            or lowered in CTA_WORDS
            or lowered in FIRST_PERSON
        )
    return True


def _month(raw: str, lowered: str, next_digit: bool, sentence_start: bool) -> str:
    bare = lowered.rstrip(".")
    if bare == "may":
        # "may" is a month only when written as one: capitalised inside a sentence, or
        # next to a number ("May 3 was ...").
        return "may" if raw[0] == "M" and (not sentence_start or next_digit) else ""
    if bare == "march" or bare == "mar":
        return "march" if raw[0] == "M" else ""
    return MONTHS.get(bare, "")


def _with_dates(tokens: list[Token]) -> list[Token]:
    """Add a day-and-month token ("october_3") so that a shifted day cannot hide in another number."""
    extra: list[Token] = []
    for index, token in enumerate(tokens):
        if token.kind == DATE and token.norm in MONTH_NAMES:
            for neighbour in (tokens[index + 1 : index + 2], tokens[max(0, index - 2) : index]):
                for other in neighbour:
                    # A day is written in digits ("3 September"); "three September evenings" counts evenings.
                    if (
                        other.kind == NUMBER
                        and other.norm.isdigit()
                        and other.raw[:1].isdigit()
                        and 1 <= int(other.norm) <= 31
                    ):
                        extra.append(
                            Token(
                                norm=f"{token.norm}_{other.norm}",
                                raw=f"{token.raw} {other.raw}",
                                kind=DATE,
                                key=True,
                                derived=True,
                            )
                        )
        if token.norm in RELATIVE and index + 1 < len(tokens) and tokens[index + 1].raw.lower() in PERIODS:
            period = tokens[index + 1]
            # "this weekend" in a post means the reader's weekend, like "today".
            extra.append(
                Token(
                    norm=f"{token.norm}_{period.raw.lower()}",
                    raw=f"{token.raw} {period.raw}",
                    kind=DATE,
                    key=token.norm != "this",
                    derived=True,
                )
            )
    return tokens + extra


def _normalise(text: str) -> str:
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).translate(PUNCTUATION_MAP)
    if "-" in text:
        text = SPACED_DASH.sub(" , ", text)  # a spaced dash separates clauses like a comma
    if "forget" in text:
        # "Don't forget we lend out extractors" tells the reader to remember it: no denial.
        text = DONT_FORGET.sub("remember", text)
    if "ather" in text or "nstead" in text:
        # "rather than X" and "instead of X" deny X as surely as "not X" does.
        text = DENIAL.sub(" not ", text)
    if A_SCALE.search(text):
        # "a hundred and forty" is one number, as "one hundred and forty" is.
        text = A_SCALE_AND.sub(r"one \1", text)
    if TITLE.search(text):
        # "Cllr Helen Mayer" is "Councillor Helen Mayer".
        text = TITLE.sub(lambda match: TITLES[match.group(1)], text)
    if "grand" in text:
        # "thirty grand", "£14 grand": thousands, as people say money.
        text = GRAND.sub(_grand_replacement, text)
    if "point" in text:
        # "two point three tonnes" is 2.3 tonnes.
        text = POINT.sub(_point_replacement, text)
    if "hundred and" in text or "thousand and" in text:
        # "its hundred and twenty varieties" is 120, as "a hundred and twenty" is.
        text = BARE_SCALE_AND.sub(_bare_scale_replacement, text)
    if NUMBER_WORDS.search(text):
        text = NUMBER_WORDS.sub(_number_words_replacement, text)
    if " in " in text:
        # "seven in ten" and "70%" are one proportion, "one in 100" is 1%.
        text = IN_TEN.sub(_in_ten_replacement, text)
    if ORDINAL.search(text):
        # "its tenth birthday" is its 10th; "a tenth of" stays a fraction.
        text = ORDINAL.sub(lambda match: f"{match.group(1)} {ORDINALS[match.group(2).lower()]}", text)
    if HALF_SCALE.search(text):
        # "half a million" is 500000.
        text = HALF_SCALE.sub(lambda match: str(_SCALES[match.group(1).lower()] // 2), text)
    if A_SCALE.search(text):
        # "a hundred", "a thousand": one of them.
        text = A_SCALE.sub(lambda match: str(_SCALES[match.group(1).lower()]), text)
    if "dozen" in text:
        # "two dozen" is 24, "a dozen" 12, "half a dozen" 6.
        text = DOZENS.sub(_dozens_replacement, text)
    if not DIGIT.search(text):
        return text  # everything below is about numbers
    # A score or a vote ("2-1", "7-2") is one fact: its order matters.
    text = re.sub(r"\b(\d{1,3})-(\d{1,3})\b", r"\1 \2 score\1x\2", text)
    # "5 to 7pm": both ends of the range are in the afternoon.
    text = TIME_OF_DAY.sub(
        lambda match: match.group(1) + (" am" if match.group(2).lower() == "morning" else " pm"), text
    )
    text = TIME_RANGE.sub(r"\1\4m \2 \3\4m", text)
    text = TIME.sub(_time_replacement, text)
    text = MONEY.sub(_money_replacement, text)
    text = MAGNITUDE.sub(lambda match: " " + _scaled(match.group(1), match.group(2) or match.group(3)) + " ", text)
    # "13cm" is "13 centimetres", "2t" "2 tonnes": a unit's symbol is its name.
    text = UNIT.sub(lambda match: f"{match.group(1)} {UNITS[match.group(2).lower().replace(' ', '')]}", text)
    # "400m of hedge", "a 2.4m mascot": metres (money, "£2.4m", was read above; "M" is not "m").
    text = METRES.sub(r"\1 metres", text)
    text = re.sub(r"(\d)\s*%", r"\1 percent", text)
    text = re.sub(r"\bper\s*cent\b", "percent", text, flags=re.IGNORECASE)
    text = re.sub(r"\b(\d+)(st|nd|rd|th)\b", r"\1", text)
    text = re.sub(r"\b\d{1,3}(?:,\d{3})+\b", lambda match: match.group(0).replace(",", ""), text)
    return text


_UNITS = {word: int(value) for word, value in WORD_NUMBERS.items()} | {"one": 1}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}


def _number_words_replacement(match: re.Match[str]) -> str:
    """ "six hundred" -> "600", "seven hundred and fifty thousand" -> "750000", "eighty-four" ->
    "84", "two and a half" -> "2.5". A single number word is left to the tokenizer."""
    phrase = match.group(0)
    words = re.findall(r"[a-z]+", phrase.lower())
    if len(words) < 2:
        return phrase
    # "two-one", "eleven-ten", "eight-eight": a score or a range of two numbers, not one number
    # ("twenty-one" is one: a unit only ever follows a tens word or a scale).
    parts = re.split(r"(?<=[a-z])\s*-\s*(?=[a-z])", phrase)
    if len(parts) == 2 and all(part.lower() in _UNITS for part in parts):
        first, second = (_UNITS[part.lower()] for part in parts)
        if not (first >= 20 and first % 10 == 0 and second < 10):
            return f"{first}-{second}"
    total, current = Decimal(0), Decimal(0)
    for index, word in enumerate(words):
        if word == "and":
            following = words[index + 1] if index + 1 < len(words) else ""
            if words[index - 1] not in _SCALES and following != "a":
                return phrase  # "three and four": two numbers, not one
            continue
        if word == "a":
            continue  # "and a half"
        if word == "half" and index:
            # "two and a half thousand" is 2,500: the half belongs to the count the scale multiplies.
            current += Decimal("0.5")
        elif word in _SCALES:
            scale = _SCALES[word]
            count = current or Decimal(1)
            if scale == 100:
                current = count * 100
            else:
                total += count * scale
                current = Decimal(0)
        elif word in _UNITS:
            current += _UNITS[word]
    return _decimal_text(total + current)


ORDINALS = {
    word: str(value)
    for value, word in enumerate(
        [
            "_",
            "_",
            "_",
            "_",
            "fourth",
            "fifth",
            "sixth",
            "seventh",
            "eighth",
            "ninth",
            "tenth",
            "eleventh",
            "twelfth",
            "thirteenth",
            "fourteenth",
            "fifteenth",
            "sixteenth",
            "seventeenth",
            "eighteenth",
            "nineteenth",
            "twentieth",
        ]
    )
    if word != "_"
} | {"thirtieth": "30", "fortieth": "40", "fiftieth": "50", "sixtieth": "60", "hundredth": "100"}
ORDINAL = re.compile(rf"\b(the|its|our|their|his|her|this|\w+'s)\s+({'|'.join(ORDINALS)})\b(?!\s+of\b)", re.IGNORECASE)
HALF_SCALE = re.compile(r"\bhalf an? (hundred|thousand|million|billion)\b", re.IGNORECASE)
A_SCALE = re.compile(r"\ba (hundred|thousand|million|billion)\b", re.IGNORECASE)
A_SCALE_AND = re.compile(
    rf"\ba (hundred|thousand|million|billion)\b(?=(?:\s+and)?[\s-]+{NUMBER_WORD}\b)", re.IGNORECASE
)
DONT_FORGET = re.compile(r"\b(?:don't|do not|dont)\s+forget\b", re.IGNORECASE)
BARE_SCALE_AND = re.compile(rf"\b(hundred|thousand)\b(?=\s+and\s+{NUMBER_WORD}\b)", re.IGNORECASE)
_DIGIT_WORDS = {"zero": "0", "nought": "0", "oh": "0", "one": "1"} | {
    word: value for word, value in WORD_NUMBERS.items() if len(value) == 1
}
POINT = re.compile(rf"\b({NUMBER_WORD}|zero|nought)\s+point((?:\s+(?:{'|'.join(_DIGIT_WORDS)}))+)\b", re.IGNORECASE)


def _bare_scale_replacement(match: re.Match[str]) -> str:
    """A scale with no count before it ("hundred and twenty") counts one of it; after a count
    ("two hundred and twenty") or "a" it is left to the number-words reader."""
    before = match.string[: match.start()].split()
    previous = before[-1].lower() if before else ""
    if previous == "a" or previous in _UNITS or previous[:1].isdigit() or re.fullmatch(r"[a-z]+-[a-z]+", previous):
        return match.group(0)
    return "one " + match.group(1)


def _point_replacement(match: re.Match[str]) -> str:
    whole = "1" if match.group(1).lower() == "one" else WORD_NUMBERS.get(match.group(1).lower(), "0")
    digits = "".join(_DIGIT_WORDS[word.lower()] for word in match.group(2).split())
    return f"{whole}.{digits}"


IN_TEN = re.compile(rf"\b(\d{{1,2}}|{NUMBER_WORD}) in (10|ten|100|a hundred)\b", re.IGNORECASE)


def _in_ten_replacement(match: re.Match[str]) -> str:
    count = WORD_NUMBERS.get(match.group(1).lower(), "1" if match.group(1).lower() == "one" else match.group(1))
    if not count.isdigit():
        return match.group(0)
    whole = 10 if match.group(2).lower() in {"10", "ten"} else 100
    if int(count) > whole:
        return match.group(0)
    return f"{int(count) * 100 // whole} percent"


# A person's title by its abbreviation, before a name.
TITLES = {
    "Cllr": "Councillor",
    "Prof": "Professor",
    "Supt": "Superintendent",
    "Sgt": "Sergeant",
    "Insp": "Inspector",
    "Capt": "Captain",
    "Revd": "Reverend",
}
TITLE = re.compile(rf"\b({'|'.join(TITLES)})\b\.?(?= [A-Z])")
# Units of measure by their symbols, after a figure (the article may spell them out).
UNITS = {
    "mm": "millimetres",
    "cm": "centimetres",
    "km": "kilometres",
    "kg": "kilograms",
    "kgs": "kilograms",
    "t": "tonnes",
    "g": "grams",
    "ml": "millilitres",
    "kwh": "kilowatt hours",
    "kw": "kilowatts",
    "mw": "megawatts",
    "ft": "feet",
    "sqft": "square feet",
    "sqm": "square metres",
    "lb": "pounds",
    "lbs": "pounds",
    "mph": "miles per hour",
    "kmh": "kilometres per hour",
    "km/h": "kilometres per hour",
}
# Case matters: "4G" is a network, "4g" four grams.
UNIT = re.compile(r"(\d)\s*(mm|cm|km/h|kmh|km|kgs|kg|kWh|kwh|kW|kw|MW|ft|sq\s?ft|sq\s?m|lbs|lb|mph|ml|t|g)\b")
METRES = re.compile(r"(\d)m\b")
# "2.30 in the morning" is 2.30 a.m., "6 in the evening" 6 p.m.
TIME_OF_DAY = re.compile(r"\b(\d{1,2}(?:[:.]\d{2})?) in the (morning|afternoon|evening)\b", re.IGNORECASE)
GRAND = re.compile(rf"\b(\d+(?:\.\d+)?|{NUMBER_WORD}(?:[\s-]+{NUMBER_WORD})?)\s+grand\b", re.IGNORECASE)


def _grand_replacement(match: re.Match[str]) -> str:
    count = match.group(1)
    if not count[0].isdigit():
        words = re.split(r"[\s-]+", count.lower())
        count = str(sum(int(_UNITS[word]) for word in words))
    return _decimal_text(Decimal(count) * 1000)


DOZENS = re.compile(r"\b(?:(half) a|(a|an|\w+)) dozen\b", re.IGNORECASE)
TIME_RANGE = re.compile(r"\b(\d{1,2}(?:[:.]\d{2})?)\s*(to|-|until|till)\s*(\d{1,2}(?:[:.]\d{2})?)\s*([ap])\.?m\b", re.I)


def _dozens_replacement(match: re.Match[str]) -> str:
    if match.group(1):
        return "6"
    count = match.group(2).lower()
    if count in {"a", "an", "one"}:
        return "12"
    count = WORD_NUMBERS.get(count, count)
    if not re.fullmatch(r"\d+(?:\.\d+)?", count):
        return match.group(0)
    return _decimal_text(Decimal(12) * Decimal(count))


def _time_replacement(match: re.Match[str]) -> str:
    hour = int(match.group(1)) % 12
    minute = match.group(2) or "00"
    if match.group(3).lower().startswith("p"):
        hour += 12
    return f" {hour}:{minute} "


def _money_replacement(match: re.Match[str]) -> str:
    return " " + _scaled(match.group(2), match.group(3) or "") + " "


def _scaled(number: str, suffix: str) -> str:
    multiplier = MAGNITUDES.get(suffix.lower(), 1)
    try:
        value = Decimal(number.replace(",", "")) * multiplier
    except InvalidOperation:
        return number
    return _decimal_text(value)


def _number(raw: str) -> str:
    if ":" in raw:
        return raw
    try:
        return _decimal_text(Decimal(raw.replace(",", "")))
    except InvalidOperation:
        return raw


def _decimal_text(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


# One proportion, however it is written: "half the size" is what "halved in size" says, "twice
# the length" what "double the length" says.
PROPORTION_FORMS = {
    "half": "half",
    "halves": "half",
    "halved": "half",
    "halving": "half",
    "double": "double",
    "doubled": "double",
    "doubles": "double",
    "doubling": "double",
    "twice": "double",
    "triple": "triple",
    "tripled": "triple",
    "trebled": "triple",
    "treble": "triple",
    "tripling": "triple",
}


def _is_superlative(word: str) -> bool:
    if len(word) <= 4 or not word.endswith("est") or word in NOT_SUPERLATIVE:
        return False
    # "retest", "reinvest": a verb done again, not a superlative.
    return not (word.startswith("re") and is_ordinary_word(word[2:]))
