"""The words of a held-back claim's reason, as a shop owner reads them (issue 9, done-means 3).

The gate's checks find *what* is unsupported as tokens (normalised words); a customer needs
the draft's own words and the article's. These helpers cut a short span of the draft (or of
the article sentence) around a word, so that a reason can say "The article doesn't say
"making the switch from March 2"" rather than name a word pair the checks aligned loosely.
They change no verdict: they are only ever asked to word a decision already taken.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from posting.gate.lexicon import CTA_WORDS, FILLER, STOPWORDS, WEAK_WORDS

# How many words either side of the unsupported word a quoted span takes.
SPAN_WIDTH = 2
# A span between two words (who did what to whom) is quoted only up to this many words.
BETWEEN_MAX = 12
_WORD = re.compile(r"\S+")
_POSSESSIVE = re.compile(r"['\u2019]s?$")
_CLAUSE_END = re.compile(r"[,;:.!?\u2013\u2014)]$|[\"\u201d]$")
_CLAUSE_START = re.compile(r"^[(\"\u201c]")
_EDGE = re.compile(r"^[^\w£$€]+|[^\w%]+$")
_NEGATION = re.compile(
    r"^(?:not|no|never|none|neither|nor|without|nothing|nobody|cannot|\w+n['\u2019]t)$", re.IGNORECASE
)
# Words no span should end on ("the switch from" reads better as "the switch").
_DANGLING = STOPWORDS | {"after", "before", "since", "from", "than", "into", "about", "more", "most", "up", "down"}
# Words a customer cannot act on when told the article "never mentions" them.
UNQUOTABLE = (
    STOPWORDS
    | FILLER
    # "These days the menu ...": words too common to be the fact a customer should change.
    | WEAK_WORDS
    | {"days", "weeks", "years", "times", "months", "thing"}
    | {"us", "we", "our", "you", "your", "lets", "like", "right", "put", "after", "before", "up", "down", "more"}
)


def _bare(text: str) -> str:
    return re.sub(r"[^\w]", "", text.lower())


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _is_word(word: str) -> bool:
    return any(ch.isalnum() for ch in word)


def _matches(word: str, raw: str) -> bool:
    """Whether a whitespace-separated word of the text is the token written ``raw``
    ("Spokane's," for "Spokane's", "£1,400" for "1400", "lends" for "lend")."""
    have, want = _bare(word), _bare(_POSSESSIVE.sub("", raw))
    if not want:
        return False
    # A figure inside a longer word ("31-day") or a stem inside its longer form ("lends").
    prefix = len(want) >= 4 or want.isdigit()
    return have == want or have in {want + "s", want + "es"} or (prefix and have.startswith(want))


def _content(word: str) -> bool:
    return _is_word(word) and _bare(word) not in _DANGLING


def find(words: Sequence[str], raw: str, start: int = 0) -> int:
    """The index of the first word at or after ``start`` that is the token ``raw``, or -1."""
    for index in range(start, len(words)):
        if _matches(words[index], raw):
            return index
    return -1


def _clean(words: Sequence[str]) -> str:
    """Words joined back, the punctuation at either edge dropped."""
    return _EDGE.sub("", " ".join(words)) if words else ""


def span(text: str, raw: str, *, width: int = SPAN_WIDTH) -> str:
    """A few words of ``text`` around the word written ``raw``, within its clause; the word alone
    when it cannot be found."""
    words = _words(text)
    at = find(words, raw)
    if at < 0:
        return raw
    return _span_at(words, at, at, width=width)


def _span_at(words: Sequence[str], first: int, last: int, *, width: int = SPAN_WIDTH) -> str:
    # Up to ``width`` words of content either side ("boats out of the game", not "of the game").
    start, taken = first, 0
    while taken < width and start > max(0, first - width - 2):
        previous = words[start - 1]
        if not _is_word(previous) or _CLAUSE_END.search(previous) or _CLAUSE_START.search(words[start]):
            break
        start -= 1
        taken += _content(previous)
    end, taken = last, 0
    while taken < width and end + 1 < min(len(words), last + width + 3):
        if _CLAUSE_END.search(words[end]) or not _is_word(words[end + 1]) or _CLAUSE_START.search(words[end + 1]):
            break
        end += 1
        taken += _content(words[end])
    while end > last and _bare(words[end]) in _DANGLING:
        end -= 1
    start, end = _whole_names(words, start, end)
    return _clean(words[start : end + 1])


def _capitalised(word: str) -> bool:
    bare = _EDGE.sub("", word)
    return bool(bare) and bare[0].isupper()


def _whole_names(words: Sequence[str], start: int, end: int) -> tuple[int, int]:
    """Widen a span that would cut a name in two ("Acorns Nursery" of "Little Acorns Nursery")."""
    for _ in range(3):
        if start > 0 and _capitalised(words[start]) and _capitalised(words[start - 1]):
            if _CLAUSE_END.search(words[start - 1]):
                break
            start -= 1
    for _ in range(3):
        if end + 1 < len(words) and _capitalised(words[end]) and _capitalised(words[end + 1]):
            if _CLAUSE_END.search(words[end]):
                break
            end += 1
    return start, end


def negated_span(text: str, raw: str) -> str:
    """The words of ``text`` from the "not" (or "no", "never", "doesn't") that governs the word
    written ``raw`` to just after it: "would not raise his prices"."""
    words = _words(text)
    at = find(words, raw)
    if at < 0:
        return raw
    for back in range(at - 1, max(-1, at - 6), -1):
        if _CLAUSE_END.search(words[back]):
            break
        if _NEGATION.match(_bare(words[back]) if "'" not in words[back] else _EDGE.sub("", words[back])):
            return _span_at(words, back, at, width=1)
    return _span_at(words, at, at)


def between(text: str, first_raw: str, last_raw: str, *, limit: int = BETWEEN_MAX, after: int = 0) -> str:
    """The words of ``text`` from the word ``first_raw`` to the next ``last_raw``, or "" when either
    is missing, the stretch is longer than ``limit`` words or crosses a clause (a comma
    between a subject and its verb says they are not subject and verb)."""
    words = _words(text)
    first = find(words, first_raw)
    if first < 0:
        return ""
    last = find(words, last_raw, first + 1)
    if last < 0 or last - first + 1 > limit:
        return ""
    if any(_CLAUSE_END.search(word) for word in words[first:last]):
        return ""
    if after:
        # "the library will lend chess sets": the verb with what it is done to.
        return _span_at(words, first, last, width=after)
    first, last = _whole_names(words, first, last)
    return _clean(words[first : last + 1])


def quotable(raws: Sequence[str], text: str = "") -> list[str]:
    """The words a customer can act on, in order: not "us" or "just", nor the verb of a call to
    action ("grab yours at the bar", "give us a call"); "the cabinets can read" is a fact."""
    words = _words(text)
    return [
        raw
        for raw in raws
        if _bare(raw) not in UNQUOTABLE and any(ch.isalpha() for ch in raw) and not _calls_to_action(words, raw)
    ]


# Words after which a call-to-action verb starts its own request ("so come and see us").
_CTA_LEADS = frozenset({"and", "so", "just", "then", "please", "do", "now"})


def _calls_to_action(words: Sequence[str], raw: str) -> bool:
    if _bare(raw) not in CTA_WORDS:
        return False
    at = find(words, raw)
    if at < 0:
        return True
    return at == 0 or bool(_CLAUSE_END.search(words[at - 1])) or _bare(words[at - 1]) in _CTA_LEADS


def listed(raws: Sequence[str]) -> str:
    quoted = [f'"{raw}"' for raw in raws]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def not_said(claim_text: str, raws: Sequence[str], *, about_business: bool = False) -> str:
    """The article does not say this part of the draft: a short span around the first word a
    customer can act on, and the words the article never uses."""
    words = quotable(raws, claim_text)
    if not words:
        # Only a word no customer can act on is missing: no word is worth naming.
        return "The article doesn't say this about the business." if about_business else "The article doesn't say this."
    shown = span(claim_text, words[0])
    if about_business:
        return f'The article doesn\'t say this about the business: "{shown}" (it never mentions {listed(words[:3])}).'
    if len(words) == 1 and _bare(shown) == _bare(words[0]):
        return f"The article doesn't say this: it never mentions {listed(words)}."
    return f'The article doesn\'t say "{shown}": it never mentions {listed(words[:3])}.'


def text_of(tokens: Sequence[object]) -> str:
    """A sentence written back from its tokens, for a caller that has no text (unit tests)."""
    return " ".join(str(getattr(token, "raw", "")) for token in tokens if not getattr(token, "derived", False))
