"""The factual gate, as pure functions: a draft's claims checked against the article's full text.

How a draft is judged (docs/ARCHITECTURE.md lesson 5: the full source text, never the headline alone):

1. The source is split into numbered sentences: 0 is the headline, 1.. the body.
2. The draft is cut into its sentences as written, and every one is accounted for: it is a
   *claim*, or it is classified as not one and says why (hashtags, a link, emoji, a call to
   action, a question to the reader, a greeting, the business's sign-off or name, its own
   words about itself, a slogan, an exclamation, its comment on the news). Length never
   decides: "The paper was retracted." is a claim. A number, date, name or superlative
   always makes one. Own names are not claims on their own, but a fact attached to them
   ("We at Harbour Bikes have 20 years of experience") is, and a first-person statement
   must be covered word for word, because an article about the industry cannot vouch for
   the business that posts it. A claim whose subject is the business ("We supplied...")
   is unsupported when the article never names the business, however well its words match.
3. Each claim's evidence is found with BM25 over the sentences (and pairs of sentences,
   for a claim that joins two facts), reranked by how much of the claim each covers. A
   sentence of two clauses ("A asked for 7%, while B offered 4%") is checked clause by
   clause as well as whole.
4. Hard veto: every number, date, price, percentage, model number and proper noun in the
   claim must occur in its evidence after normalisation ("3.5bn" = "3,500,000,000",
   "Oct." = "October", "20%" = "20 percent", "six hundred" = "600"); so must any
   superlative ("biggest", "first" but not "first joined"). The article's main subjects
   (named in the headline, the lede, or two sentences or more) may be named in a claim
   whose evidence just says "the company".
5. Overlap is never proof on its own: the claim must not negate what the evidence says
   (or the reverse), must not flip a word to its opposite ("rose" for "fell", WordNet's
   antonyms), must not swap the roles around a verb ("Trek sued Giant" for "Giant sued
   Trek"), and must not put a word next to the wrong partner ("Trek supplied" for "Giant
   supplied"). Then its words must be in the evidence, as themselves, their lemmas or
   WordNet synonyms, weighed by their IDF in the article (a word the article never uses
   weighs most, the article's ubiquitous subject least): the covered share must reach
   SUPPORT_MIN, a threshold fitted on every labelled set (scripts/gate_fit.py). A word
   standing where the evidence has another of its kind ("kidney damage" for "liver damage")
   is a swap and vetoes. A number or name the evidence lacks may come from any sentence of
   the article where it stands beside the same word as in the claim.
6. Verdict, over the claims only: ``no_substance`` when the draft has none, ``rejected``
   when any is unsupported (with a reason a customer can act on: what the article does not
   say, and the nearest article sentence), ``passed`` otherwise.

Sentence numbers in evidence are the ones ``sentences_split`` gives the body, from 1 (the
composer cites the same numbers); 0 is the headline.

An optional ``judge`` (an LLM, wired in ``posting.llm``) decides the claims the checks above
cannot settle (the hard checks passed, the wording is not covered): it answers supported /
contradicted / not stated with the sentence numbers it relied on; a "supported" must still
pass the hard checks on the sentences it cites, and an answer that cannot be used leaves the
gate's own verdict, recorded on the claim.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from posting.gate import reasons
from posting.gate.lexicon import (
    AUXILIARIES,
    CLAUSE_BREAK,
    COMMENT,
    COMMON_STARTS,
    CTA_LEAD,
    CTA_START,
    DASHES,
    DID_YOU_KNOW,
    DIRECTION_FAMILIES,
    ENDING,
    FIRST_PERSON,
    GREETING,
    IRREGULAR,
    LIGHT,
    NEGATING_PREFIXES,
    NUMBER_WORDS,
    OPENER,
    OPPOSITE_RAW,
    OPPOSITES,
    PAST,
    RELATIVE,
    SCOPE_BREAKERS,
    SIGN_OFF_PHRASE,
    SLOGAN_WORDS,
    STOPWORDS,
    SUBJECT_PRONOUNS,
    URL,
    VERB_FAMILIES,
    WORD_NUMBERS,
    antonym_words,
    is_adjective,
    is_noun,
    is_plain_noun,
    is_verb_form,
    lemmas,
    more_general,
    similar_adjectives,
    sister_nouns,
    synonym_words,
    wordnet,
)
from posting.gate.text import (
    BREAK,
    DATE,
    MODEL,
    NEGATION,
    NUMBER,
    PROPER,
    WORD,
    Token,
    sentences_split,
    tokenize,
)

# The old judge protocol: (claim, evidence sentences) -> (supported, reason).
Judge = Callable[[str, list[str]], tuple[bool, str]]

PASSED = "passed"
REJECTED = "rejected"
NO_SUBSTANCE = "no_substance"

# Every sentence of a draft gets a class: "claim" (checked) or why it was not checked.
CLAIM = "claim"
NOT_CHECKED = {
    "hashtags": "Not checked: hashtags and mentions.",
    "link": "Not checked: a link.",
    "emoji": "Not checked: only emoji or punctuation.",
    "call_to_action": "Not checked: a call to action.",
    "question": "Not checked: a question to the reader.",
    "greeting": "Not checked: a greeting.",
    "sign_off": "Not checked: the business's own sign-off.",
    "own_name": "Not checked: the business's own name.",
    "own_words": "Not checked: the business's own words about itself, not a fact taken from the article.",
    "slogan": "Not checked: a slogan, not a statement of fact.",
    "exclamation": "Not checked: an exclamation that states no fact.",
    "comment": "Not checked: the business's own comment on the news, not a fact from the article.",
}

# Judge verdicts (the LLM judge of issue 9).
SUPPORTED = "supported"
CONTRADICTED = "contradicted"
NOT_STATED = "not_stated"
JUDGE_VERDICTS = (SUPPORTED, CONTRADICTED, NOT_STATED)

# How much of a claim's content its evidence must cover, each word weighed by how rare it is
# in the article (its IDF; a word the article never uses weighs most), for the claims the hard
# checks leave open (see _coverage_failure). Fitted by scripts/gate_fit.py on every labelled
# set together, for the best worst set (docs/BENCHMARKS.md, issue 9 round 4): the fit picks
# 0.75, within two drafts of 0.7 on its worst set; 0.75 holds back the issue's own light
# paraphrase ("she steps up to" for "she will be promoted to"), which must pass.
SUPPORT_MIN = 0.7
# A clause of a longer sentence, whose wording was already read as part of the whole.
SUPPORT_MIN_CLAUSE = 0.65
# A word standing in another word's slot ("kidney" where the article has "liver") weighs this
# many times more as a missing word; None makes every such swap a veto.
SWAP_COST: float | None = None
# A number or name the claim's best evidence lacks may come from any sentence of the article
# where a word beside it in the claim stands within KEY_CONTEXT words of it (0: only where
# both its neighbours are the same words).
KEY_CONTEXT = 2
# Sentences BM25 hands to the reranker, and how many candidates the checks may try.
RETRIEVE_TOP = 6
CHECK_TOP = 3
# Subject, verb and object sit within this many content words of each other.
_SWAP_SPAN = 7
# At most this many article sentences are shown to the judge for one claim.
_JUDGE_SENTENCES = 8
# How much of an article sentence a reason quotes.
_QUOTE_LIMIT = 220


@dataclass(frozen=True)
class JudgeVerdict:
    """What a sentence judge (an LLM) says about one claim, given numbered article sentences."""

    verdict: str  # one of JUDGE_VERDICTS
    sentences: tuple[int, ...]
    reason: str
    prompt_version: str = ""


@runtime_checkable
class SentenceJudge(Protocol):
    """A judge that reads the article's sentences by number and cites the ones it relied on.

    It raises when it has no usable answer (a timeout, a refusal, malformed JSON): the gate
    then keeps its own verdict and records why the judge was not used.
    """

    prompt_version: str

    def __call__(self, claim: str, sentences: Mapping[int, str]) -> JudgeVerdict: ...


@dataclass(frozen=True)
class ClaimResult:
    text: str
    supported: bool
    evidence: list[dict[str, object]]
    reason: str
    # "claim", or the kind of sentence that is not a claim (NOT_CHECKED's keys).
    sentence_class: str = CLAIM
    # What the LLM judge said, when it was asked (its verdict and prompt version, or why
    # its answer could not be used).
    judge: dict[str, object] | None = None

    def as_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "text": self.text,
            "class": self.sentence_class,
            "supported": self.supported,
            "evidence": self.evidence,
            "reason": self.reason,
        }
        if self.judge is not None:
            data["judge"] = self.judge
        return data


@dataclass(frozen=True)
class GateResult:
    verdict: str
    # Every sentence of the draft, in order: the checked claims and the sentences that are not.
    claims: list[ClaimResult]
    reason: str

    def as_dict(self) -> dict[str, object]:
        return {"verdict": self.verdict, "claims": [claim.as_dict() for claim in self.claims], "reason": self.reason}


def gate_evaluate(
    *,
    text: str,
    title: str,
    body: str,
    own_names: Sequence[str] = (),
    sign_offs: Sequence[str] = (),
    judge: Judge | SentenceJudge | None = None,
) -> GateResult:
    """Judge the draft ``text`` against the article (``title`` and its full ``body``).

    ``sign_offs`` are the closing lines the business itself has used again and again (its
    learned voice, ``VoiceProfile.stats["sign_offs"]``): written verbatim in a draft they
    are the business's own standing words, not something the article has to support.

    Every sentence of the draft comes back in ``claims``, in order, with its class; only
    the sentences of class "claim" decide the verdict.
    """
    source = source_text_of(title, body)
    business_named = _names_business(f"{title}\n{body}", own_names)
    own_names = own_name_short_forms(own_names, f"{title}\n{body}")
    sentences = draft_sentences(text, own_names=own_names, sign_offs=sign_offs, source=source)
    results: list[ClaimResult] = []
    for sentence in sentences:
        claim = sentence.claim
        if claim is None:
            results.append(
                ClaimResult(
                    text=sentence.text,
                    supported=True,
                    evidence=[],
                    reason=NOT_CHECKED[sentence.sentence_class],
                    sentence_class=sentence.sentence_class,
                )
            )
        elif claim.business_subject and not business_named:
            results.append(_business_claim_judge(claim, source))
        else:
            if business_named and claim.about_business:
                # The article is about the business: "we" is its subject, and what the draft
                # says of it is checked like any other claim, not word for word.
                claim = _as_plain_claim(claim)
            results.append(_claim_judge(claim, source, judge))
    checked = [result for result in results if result.sentence_class == CLAIM]
    if not checked:
        return GateResult(
            verdict=NO_SUBSTANCE,
            claims=results,
            reason="Nothing checkable: the draft makes no factual claim (only hype, hashtags or calls to action).",
        )
    failing = [result for result in checked if not result.supported]
    if failing:
        details = "; ".join(f'"{_shorten(result.text)}": {result.reason}' for result in failing)
        return GateResult(
            verdict=REJECTED,
            claims=results,
            reason=f"{len(failing)} of {len(checked)} claims not supported by the article: {details}",
        )
    return GateResult(verdict=PASSED, claims=results, reason=f"All {len(checked)} claims supported by the article.")


# --------------------------------------------------------------------------- the draft's sentences


@dataclass(frozen=True)
class Claim:
    text: str
    tokens: tuple[Token, ...]
    # Says "we" or names the business: the article must cover every word of it.
    about_business: bool
    # "A asked for 7%, while B offered 4%" is two claims: each clause needs its own support.
    clauses: tuple[Claim, ...] = ()
    # The business is who the claim is about ("We supplied...", "Harbour Bikes supplied...").
    business_subject: bool = False


@dataclass(frozen=True)
class DraftSentence:
    text: str
    sentence_class: str
    claim: Claim | None = None


def _as_plain_claim(claim: Claim) -> Claim:
    return dataclasses.replace(
        claim,
        about_business=False,
        clauses=tuple(dataclasses.replace(clause, about_business=False) for clause in claim.clauses),
    )


def claims_split(
    text: str, *, own_names: Sequence[str] = (), sign_offs: Sequence[str] = (), source: SourceText | None = None
) -> list[Claim]:
    """The draft's sentences that say something checkable."""
    sentences = draft_sentences(text, own_names=own_names, sign_offs=sign_offs, source=source)
    return [sentence.claim for sentence in sentences if sentence.claim is not None]


def draft_sentences(
    text: str, *, own_names: Sequence[str] = (), sign_offs: Sequence[str] = (), source: SourceText | None = None
) -> list[DraftSentence]:
    """Every sentence of the draft, in order, each a claim or classified as not one.

    A sentence is never dropped for being short: "The paper was retracted." is a claim. Not
    claims are hashtags, links, emoji, calls to action, questions to the reader, greetings,
    the business's own sign-offs and name, its own words about itself that state no fact
    ("We love what we do"), slogans addressed to everyone ("Every object tells a story") and
    exclamations with no verb and no fact in them ("Sun, sea and smiles").
    """
    sentences: list[DraftSentence] = []
    for raw, forced in _segments(text, sign_offs, own_names):
        if forced:
            sentences.append(DraftSentence(text=raw, sentence_class=forced))
            continue
        sentence_class, claim = _sentence_classify(raw, own_names=own_names, source=source)
        sentences.append(DraftSentence(text=raw, sentence_class=sentence_class, claim=claim))
    return sentences


def _segments(text: str, sign_offs: Sequence[str], own_names: Sequence[str] = ()) -> list[tuple[str, str]]:
    """The draft cut into sentences as written (emoji and tags kept), each with a class it is
    known to have before reading it: the learned sign-offs, runs of tags, and the business
    signing the post at its end ("— Fair winds, the Saltwind crew")."""
    text = unicodedata.normalize("NFKC", text)
    pieces: list[tuple[str, str]] = []
    position = 0
    for start, end in _sign_off_spans(text, sign_offs):
        pieces.append((text[position:start], ""))
        pieces.append((text[start:end], "sign_off"))
        position = end
    pieces.append((text[position:], ""))
    segments: list[tuple[str, str]] = []
    for piece, forced in pieces:
        if forced:
            segments.append((" ".join(piece.split()), forced))
            continue
        # A run of tags ends a line or post: it is a sentence of its own.
        piece = re.sub(r"((?:[ \t]*[#@][\w.]+)+)[ \t]*$", r"\n\1", piece, flags=re.MULTILINE)
        # So does a run of tags before the dash that signs the post ("... fund. #WI — Pauline
        # Okoro, president"): the tags and the signature each stand on their own line.
        piece = _TAGS_BEFORE_SIGNATURE.sub(r"\n\1\n", piece)
        # An emoji often ends a sentence without a full stop ("Big news 🎉 The council...").
        piece = _EMOJI_BREAK.sub(lambda match: match.group(1) + "\n", piece)
        for sentence in sentences_split(piece):
            signature = _DASH_SIGNATURE.search(sentence)
            if signature and (_is_signature(signature.group(1)) or _signed_by_business(signature.group(1), own_names)):
                sentence, signed = sentence[: signature.start()].strip(), signature.group(1).strip()
            else:
                signed = ""
            if not sentence:
                pass
            elif _TAGS_ONLY.fullmatch("".join(ch for ch in sentence if not _is_emoji(ch))):
                # Tags with the business's emoji among them ("#fish #chips 🐟") are still its tags.
                segments.append((sentence, "hashtags"))
            else:
                segments.append((sentence, ""))
            if signed:
                segments.append((signed, "sign_off"))
    # The draft's last line, a signature naming the business ("The Fretwork team"), signs it.
    last = next((index for index in range(len(segments) - 1, -1, -1) if segments[index][1] != "hashtags"), None)
    if last is not None and not segments[last][1]:
        closing = segments[last][0].strip(" .!")
        if _is_signature(closing) and _signed_by_business(closing, own_names):
            segments[last] = (segments[last][0], "sign_off")
    return segments


def _signed_by_business(text: str, own_names: Sequence[str]) -> bool:
    """A closing line that names the business and gives no figure is who signs the post, not
    a fact: "Fair winds, the Saltwind crew" for Saltwind Sailing School. Named means its whole
    name, two of its words in a row, or a word of it that is not ordinary English."""
    words = re.findall(r"[\w&'\u2019]+", text)
    if not words or len(words) > _SIGNED_WORDS_MAX or re.search(r"\d", text) or _NUMBER_WORD.search(text.lower()):
        return False
    lowered = " ".join(word.lower() for word in words)
    ordinary = wordnet().words
    for name in own_names:
        parts = [part.lower() for part in re.findall(r"[\w&'\u2019]+", name.lstrip("@#"))]
        if not parts:
            continue
        pairs = [" ".join(parts[index : index + 2]) for index in range(len(parts) - 1)]
        if any(re.search(rf"(?<!\w){re.escape(pair)}(?!\w)", lowered) for pair in [" ".join(parts), *pairs]):
            return True
        if any(len(part) >= 4 and part not in ordinary and part in lowered.split() for part in parts):
            return True
    return False


# More words than this is a sentence with something to say, not a signature.
_SIGNED_WORDS_MAX = 10


_TAGS_BEFORE_SIGNATURE = re.compile(r"((?:[ \t]*[#@][\w.]+)+)[ \t]*(?=[\u2013\u2014][^\u2013\u2014\n]+$)", re.MULTILINE)
_TAGS_ONLY = re.compile(r"(?:\s*[#@][\w.]+)+\s*[.!]?")
# "... to spare 😅 — Dev and Rachel, Lockjaw Escapes": who signs the post, after a dash at its end.
_DASH_SIGNATURE = re.compile(r"(?:^|(?<=[^\w\s,;]))\s*[\u2013\u2014-]{1,2}\s*([^\u2013\u2014]+)$")


def _is_signature(text: str) -> bool:
    """A signature names who writes and states nothing: a few names and words such as "team"."""
    words = re.findall(r"[\w&'\u2019]+", text)
    if not 1 <= len(words) <= 9 or not any(word[0].isupper() for word in words):
        return False
    # Short particles of names stay lower case: "Fior di Mare", "van Dijk".
    return all(word[0].isupper() or word.lower() in _SIGNATURE_WORDS or len(word) <= 3 for word in words)


_SIGNATURE_WORDS = frozenset(
    {"and", "the", "at", "of", "from", "&", "with", "your", "here", "us", "our", "x", "xx", "love", "whole", "lot"}
    | {"team", "crew", "everyone", "all", "staff", "family", "gang", "folks", "friends", "owner", "owners"}
    | {"founder", "founders", "students", "volunteers", "members", "pupils", "kids", "regulars"}
    # Who signs and in what role: "— Ruth, chair", "— Dr Levens, head teacher".
    | {"chair", "chairman", "chairwoman", "president", "secretary", "treasurer", "coordinator", "organiser"}
    | {"organizer", "conductor", "captain", "manager", "director", "head", "teacher", "headteacher", "trustee"}
    | {"vicar", "warden", "ranger", "clerk", "chef", "landlord", "landlady", "leader", "mayor", "principal"}
)


def _sign_off_spans(text: str, sign_offs: Sequence[str]) -> list[tuple[int, int]]:
    """Where the business's learned sign-offs stand word for word.

    Matching ignores case, spacing and the kind of apostrophe, but nothing else: a sign-off
    edited into a new statement ("Ride safe, 20 years of the Harbour Bikes crew") is judged
    like any other sentence, and so is one that runs on inside a sentence ("the shop said see
    you soon to 40 staff").
    """
    cleaned = {unicodedata.normalize("NFKC", str(sign_off)).strip() for sign_off in sign_offs}
    spans: list[tuple[int, int]] = []
    for sign_off in sorted(filter(None, cleaned), key=len, reverse=True):
        words = [_APOSTROPHE.sub("['\u2019]", re.escape(word)) for word in sign_off.split()]
        # It must open a line or follow the end of a sentence (or an emoji), as a sign-off does.
        pattern = rf"(?:^|(?<=[^\w\s,;:]))[ \t]*({r'\s+'.join(words)})(?!\w)"
        for match in re.finditer(pattern, text, flags=re.IGNORECASE | re.MULTILINE):
            span = match.span(1)
            if not any(span[0] < end and start < span[1] for start, end in spans):
                spans.append(span)
    return sorted(spans)


def _sentence_classify(raw: str, *, own_names: Sequence[str], source: SourceText | None) -> tuple[str, Claim | None]:
    cleaned = _clean(raw)
    if not re.search(r"\w", cleaned):
        return ("link" if URL.search(raw) else "emoji"), None
    sentence = _strip_own_names(cleaned, own_names)
    if not re.search(r"\w", sentence):
        return "own_name", None
    names_business = sentence != cleaned
    sentence = OPENER.sub("", CTA_LEAD.sub("", sentence).strip(DASHES)).strip(DASHES)
    if not re.search(r"\w", sentence):
        return "exclamation", None
    # "(and buy!)": an aside to the reader inside a sentence.
    sentence = _ASIDE.sub("", sentence)
    # "Mark your calendars: ...", "New kit alert: ...": a short label in front of the news.
    label = _LABEL.match(sentence)
    if label and _is_label(label.group(1)) and len(sentence[label.end() :].split()) >= 3:
        sentence = sentence[label.end() :]
    # "We adore tulips and Greenacre's 90 varieties look incredible": the business's own
    # feeling, then the fact; the fact is what is checked.
    opening = re.match(r"^(.+?),?\s+and\s+(?=\S)", sentence)
    if opening and re.match(r"(?:we|i)\b", opening.group(1), flags=re.IGNORECASE):
        feeling = tokenize(opening.group(1), is_claim=True)
        if _statement_kind(feeling, opening.group(1), source) == "own_words":
            sentence = sentence[opening.end() :]
    # "..., so come along!", "..., so this one's close to our hearts": the business turning to
    # the reader or to itself after the fact; the fact before it is what is checked.
    tail = _TAIL.search(sentence)
    if tail and _is_aside(tail.group(1)):
        sentence = sentence[: tail.start()].rstrip() + "."
    lowered = sentence.lower().strip(" .!?")
    # "fewer than twelve roofers" states a number as surely as "12" does.
    has_number = bool(re.search(r"\d", lowered) or NUMBER_WORDS.search(lowered) or _NUMBER_WORD.search(lowered))
    if not has_number and GREETING.match(lowered):
        return "greeting", None
    # An unlearned sign-off is one only while it names no one: "Ride safe - Dave and the crew"
    # says who Dave is, and only a sign-off the business has used before is taken as its own.
    if not has_number and SIGN_OFF_PHRASE.match(lowered) and not re.search(r"\s[A-Z]", sentence):
        return "sign_off", None
    if sentence.rstrip().endswith("?") and not has_number and not DID_YOU_KNOW.match(lowered):
        return "question", None
    if (CTA_START.match(lowered) or _imperative(lowered)) and not has_number:
        return "call_to_action", None
    if COMMENT.match(lowered) and not has_number:
        return "comment", None
    # "Everyone at Fior di Mare is over the moon", "All of us at the café are delighted", "We
    # couldn't be prouder": the business's (or its people's) feeling about the news.
    felt = _FEELING_SUBJECT.sub("", lowered, count=1)
    if names_business:
        # The business's name was cut out above: "We at the Town Centre Partnership are proud"
        # leaves "we at the are proud", "The Newquay Lifeguard Club salutes" leaves "the salutes".
        opening_words = re.sub(r"^(?:the\s+)", "", cleaned.lower())
        if felt != lowered or any(opening_words.startswith(name) for name in _own_name_forms(own_names)):
            felt = re.sub(r"^the\s+", "", felt if felt != lowered else lowered)
            # "Cedar Falls Tourism says thank you", "The Sea Scouts send huge congratulations":
            # saying or sending the feeling is the feeling.
            felt = re.sub(
                r"^(?:(?:is|are|am|was|were|so|just|really|truly|all|says?|sends?|a|huge|big|massive|heartfelt)\s+)*",
                "",
                felt,
            )
    if felt != lowered and not has_number and _FEELING.match(felt):
        return "comment", None
    vocabulary = source.lower_vocabulary if source else frozenset()
    names = source.names if source else frozenset()
    tokens = tokenize(sentence, source_vocabulary=vocabulary, is_claim=True, source_names=names)
    kind = _statement_kind(tokens, sentence, source)
    if kind != CLAIM:
        return kind, None
    about_business = names_business or any(token.norm in FIRST_PERSON for token in tokens)
    clauses = tuple(
        Claim(text=clause, tokens=tuple(clause_tokens), about_business=about_business)
        for clause in CLAUSE_BREAK.split(sentence)
        if (clause_tokens := tokenize(clause, source_vocabulary=vocabulary, is_claim=True, source_names=names))
        and _statement_kind(clause_tokens, clause, source) == CLAIM
    )
    claim = Claim(
        text=raw.strip(),
        tokens=tuple(tokens),
        about_business=about_business,
        clauses=clauses if len(clauses) > 1 else (),
        business_subject=_business_is_subject(cleaned, own_names),
    )
    return CLAIM, claim


# What follows an imperative verb addressed to the reader: its object's determiner or pronoun.
_IMPERATIVE_OBJECT = frozenset(
    [
        "your",
        "our",
        "us",
        "the",
        "a",
        "an",
        "it",
        "this",
        "that",
        "these",
        "those",
        "them",
        "him",
        "her",
        "me",
        "yourself",
        "yourselves",
        "their",
        "his",
        "its",
    ]
)


def _imperative(lowered: str) -> bool:
    """ "Leave a corner wild", "Ask your care home about it", "Give to their fundraiser": a
    sentence opening with a verb in its bare form, then its object (or "to" and one), tells the
    reader to do something; it states no fact. "Work begins on Monday" opens with a noun."""
    words = re.findall(r"[a-z']+", lowered)
    if len(words) < 2:
        return False
    verb, following = words[0], words[1]
    if following == "to" and len(words) > 2:
        following = words[2]
    return (
        following in _IMPERATIVE_OBJECT
        and verb in wordnet().verbs
        and not verb.endswith(("ed", "ing"))
        and verb not in STOPWORDS
        and verb not in _PREPOSITION_FIRST
    )


# Prepositions that are verbs too ("to near", "to round"): a sentence opening with one is a place
# or a time, not an order ("Near the beach the water can look calm" is the article's fact).
# "Like" stays a verb there: "Like our page" is the call to action it usually is.
_PREPOSITION_FIRST = frozenset({"near", "round", "down", "up", "till", "except"})


# Who feels it: the business's people, named or not ("everyone at", "all of us at", "the team",
# "we"); the business's own name is already cut out of the sentence.
_FEELING_SUBJECT = re.compile(
    r"^(?:(?:everyone|everybody|all of us|the (?:whole )?team|the crew|all)(?:\s+(?:here\s+)?(?:at|from))?"
    r"|we(?:\s+(?:all|here))?(?:\s+at)?|i)\b\s*(?:(?:is|are|am|'re|'m|was|were|feel|feels|all|so|just|really|truly)\s+)*"
)
_FEELING = re.compile(
    r"(?:over the moon|couldn'?t be (?:more )?(?:prouder|happier|prouder)|could not be prouder|honou?red|grateful|"
    r"happy|chuffed|buzzing|ecstatic|overjoyed|so excited|excited|thrilled|delighted|proud|can'?t wait|cannot wait|"
    # Praise and thanks the business gives the article's people: its attitude, not a fact.
    r"pleased|glad|moved|salutes?|applauds?|thanks?|thank you|tips? (?:its|our|their) hats?|congratulates?|"
    r"congratulations|congrats|well done|"
    r"cheering|cheers on)\b"
)
_ASIDE = re.compile(r"\s*\([^()]*!\)")
_LABEL = re.compile(r"^([^:]{1,40}?)\s*:\s+(?=\S)")


def _is_label(label: str) -> bool:
    """A label names no number, no name and no past event: "Mark your calendars", "Heads up"."""
    words = label.split()
    if not 1 <= len(words) <= 4 or re.search(r"\d", label) or _NUMBER_WORD.search(label.lower()):
        return False
    if any(word[:1].isupper() for word in words[1:]):
        return False
    return not any(_is_past(token) or token.superlative for token in tokenize(label))


_TAIL = re.compile(r",?\s+(?:so|and)\s+([^,;]+?)[.!]*$", re.IGNORECASE)


def _is_aside(tail: str) -> bool:
    lowered = tail.lower().strip()
    if re.search(r"\d", lowered) or _NUMBER_WORD.search(lowered):
        return False
    if CTA_START.match(lowered) or COMMENT.match(lowered):
        return True
    tokens = tokenize(tail)
    first_person = any(token.norm in FIRST_PERSON for token in tokens)
    return (first_person or lowered.startswith(("this one", "this is", "it's", "that's"))) and not any(
        _is_past(token) or token.key for token in tokens
    )


# "Call 01632 960 123", "+44 20 7946 0958", "hello@shop.co.uk": how to reach the business.
_CONTACT = re.compile(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?<![\w.,])(?:\+\d[\d\s-]{8,}\d|0\d{2,4}[\s-]?\d{3,4}[\s-]?\d{3,4})(?![\w.,])"
)


def _clean(raw: str) -> str:
    """The words of a sentence: no links, emoji, tag signs, or the business's phone number and email."""
    text = _CONTACT.sub(" ", URL.sub(" ", raw))
    text = re.sub(r"(?:\s*[#@][\w.]+)+\s*$", "", text)
    text = re.sub(r"[#@](\w)", r"\1", text)
    text = "".join(" " if _is_emoji(ch) else ch for ch in text)
    return " ".join(text.split()).strip()


def _statement_kind(tokens: Sequence[Token], sentence: str, source: SourceText | None) -> str:
    """ "claim" when the sentence states something the article must support, else its kind.

    A number, date, name or superlative always makes a claim. Without one, a sentence states
    a fact ("The paper was retracted.", "Dogs on leads welcome too.") unless it is the
    business speaking about itself in the present ("We love what we do"), a slogan to
    everyone that is not about the article's things ("Every dog is a star", "A cleaner town
    starts with you"), or an exclamation with one word of substance at most ("Game on!").
    """
    real = [token for token in tokens if not token.guessed]
    if any(token.key or token.superlative for token in real):
        return CLAIM
    past = any(_is_past(token) for token in tokens)
    first_person = any(token.norm in FIRST_PERSON for token in tokens)
    # "We love what we do", "We've got you covered": the business on itself, to the reader.
    if first_person and (not past or any(token.norm in {"you", "your"} for token in tokens)):
        return "own_words"
    content = {token.norm for token in real if token.content}
    if not content:
        return "exclamation"
    verb = _has_verb(tokens, sentence)
    if not verb and len(content) < 2:
        return "exclamation"
    article_words = len(content & source.all_stems) if source else 0
    if not past and article_words < 2 and any(token.raw.lower() in SLOGAN_WORDS for token in tokens):
        return "slogan"
    if not verb and article_words < 2:
        return "exclamation"  # "Big day for riders!": no verb, and next to nothing the article talks about
    return CLAIM


def _is_past(token: Token) -> bool:
    word = token.raw.lower()
    return bool(PAST.search(word)) or (word in IRREGULAR and word not in {"less", "fewer"} and not word.endswith("er"))


def _has_verb(tokens: Sequence[Token], sentence: str) -> bool:
    if re.search(r"\b\w+['\u2019](?:s|re|ve|ll|d|m)\b", sentence, flags=re.IGNORECASE):
        return True  # "it's", "they've", "we'll"
    previous: Token | None = None
    for index, token in enumerate(tokens):
        word = token.raw.lower()
        if token.norm in AUXILIARIES or word in AUXILIARIES or _is_past(token) or token.kind == NEGATION:
            return True
        # "The centre opens", "Every object tells a story": a verb in -s after its subject
        # ("Tough times!" has no verb: nothing follows and no article or name precedes).
        if (
            previous is not None
            and (previous.content or previous.kind == PROPER or previous.norm in SUBJECT_PRONOUNS)
            and previous.kind != NUMBER
            and word.endswith("s")
            and not word.endswith("ss")
            and is_verb_form(word)
            and (
                (index + 1 < len(tokens) and tokens[index + 1].kind != BREAK)
                or any(other.norm in {"the", "a", "an"} or other.kind == PROPER for other in tokens[:index])
            )
        ):
            return True
        if token.kind != BREAK:
            previous = token
    return False


def _business_is_subject(sentence: str, own_names: Sequence[str]) -> bool:
    """The sentence opens with the business: "We...", "Our team...", "Harbour Bikes...",
    "At Harbour Bikes we..."."""
    opening = CTA_LEAD.sub("", sentence.strip()).lstrip(DASHES)
    opening = re.sub(r"^(?:here |all of us )?at ", "", opening, flags=re.IGNORECASE)
    if re.match(r"(?:we|i|our|my)\b", opening, flags=re.IGNORECASE):
        return True
    # A whole name, not its start ("Spoke" does not open "Spokes are..."), and a short form only
    # as written: "Garden centres will no longer..." is the trade, not "Garden Centre" for
    # "Fernbrook Garden Centre".
    for name in {_stripped_name(name) for name in own_names if name.strip()}:
        flags = 0 if isinstance(name, ShortName) else re.IGNORECASE
        if re.match(rf"[@#]?{re.escape(name)}(?:['\u2019]s)?(?!\w)", opening, flags=flags):
            return True
    return False


def _names_business(text: str, own_names: Sequence[str]) -> bool:
    lowered = text.lower()
    return any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", lowered) for name in _own_name_forms(own_names))


def own_name_short_forms(own_names: Sequence[str], article: str) -> list[str]:
    """The business's names with the shorter forms people write for them: "Petersen's" for
    "Petersen's Hardware & Home", "the Town Centre Partnership" for "Todmorden Town Centre
    Partnership", "MRT" for "Glenmore Mountain Rescue Team". A form counts only where the
    article never writes it: there it may name something the article is about, which is then
    checked like any other name."""
    return list(_own_name_short_forms(tuple(own_names), article))


# Worked out once per business and article (each article feeds about 40 drafts), like the source.
@functools.lru_cache(maxsize=256)
def _own_name_short_forms(own_names: tuple[str, ...], article: str) -> tuple[str, ...]:
    forms: list[str] = list(own_names)
    seen = {name.strip().lower() for name in own_names}
    article_lower = article.lower()
    for name in own_names:
        words = name.strip().lstrip("@#").split()
        if len(words) < 2:
            continue
        candidates: list[str] = []
        # The first word alone, when it is a name and no ordinary word ("Willowbank", not "Copper").
        first, bare = words[0], _bare_word(words[0])
        if first[:1].isupper() and len(bare) >= 4 and not (is_noun(bare) or is_adjective(bare) or is_verb_form(bare)):
            candidates.append(first)
        # Any run of two words or more that starts and ends with a capitalised word.
        for start in range(len(words)):
            for end in range(start + 2, len(words) + 1):
                run = words[start:end]
                if run != words and run[0][:1].isupper() and run[-1][:1].isupper():
                    candidates.append(" ".join(run))
        # Initials of a run of three capitalised words or more, written in capitals ("LCMEA", "MRT").
        capitals = [word for word in words if word[:1].isupper() and word.lower() not in STOPWORDS]
        for start in range(len(capitals)):
            for end in range(start + 3, len(capitals) + 1):
                candidates.append("".join(word[0] for word in capitals[start:end]).upper())
        for form in candidates:
            if form.lower() in seen or re.search(rf"(?<!\w){re.escape(form.lower())}(?!\w)", article_lower):
                continue
            seen.add(form.lower())
            forms.append(ShortName(form))
    return tuple(forms)


class ShortName(str):
    """A shorter form of the business's name, matched only as written (capitalised): "Fretwork"
    names the business, "fretwork" is a word."""


def _stripped_name(name: str) -> str:
    stripped = name.strip().lstrip("@#")
    return ShortName(stripped) if isinstance(name, ShortName) else stripped


def _own_name_forms(own_names: Sequence[str]) -> list[str]:
    return [form for name in own_names if (form := name.strip().lstrip("@#").lower())]


_APOSTROPHE = re.compile("['\u2019]")
_NUMBER_WORD = re.compile(
    r"\b(?:" + "|".join(sorted(WORD_NUMBERS, key=len, reverse=True)) + r"|dozen|hundred|thousand)\b"
)
_EMOJI_BREAK = re.compile(
    "([\\u2190-\\u21ff\\u2300-\\u23ff\\u2460-\\u27bf\\u2900-\\u2bff\\u3030\\u303d\\U0001f000-\\U0001faff\\u200d\\ufe0f]+[.!?]*)"
    "[ \\t]*(?=[\"'\\u201c(]?[A-Z0-9£$€#@])"
)


def _is_emoji(ch: str) -> bool:
    return unicodedata.category(ch) in {"So", "Sk", "Cs", "Co"} or ch in "\u200d\ufe0f"


def _strip_own_names(sentence: str, own_names: Sequence[str]) -> str:
    for name in sorted({_stripped_name(name) for name in own_names if name.strip()}, key=len, reverse=True):
        flags = 0 if isinstance(name, ShortName) else re.IGNORECASE
        sentence = re.sub(rf"(?<!\w)[@#]?{re.escape(name)}(?:'s)?(?!\w)", " ", sentence, flags=flags)
    return " ".join(sentence.split())


# --------------------------------------------------------------------------- source

# An article is gated once per draft made from it: at 1,000 accounts and 200 feeds each page
# feeds about 40 drafts (20 accounts, two platforms). Reading it (sentences, tokens, BM25
# statistics) is most of a draft's cost, so a worker process reads it once. Keyed by the
# text itself: an edited article is read afresh.
SOURCE_CACHE_SIZE = 256


@functools.lru_cache(maxsize=SOURCE_CACHE_SIZE)
def source_text_of(title: str, body: str) -> SourceText:
    """``SourceText.build``, shared by every draft of one article in this process: callers
    only read it (its lazy properties fill in once)."""
    return SourceText.build(title=title, body=body)


@dataclass
class SourceText:
    sentences: list[str]
    tokens: list[list[Token]]
    stems: list[frozenset[str]]
    counts: list[Counter[str]]
    lengths: list[int]
    idf: dict[str, float]
    average_length: float
    lower_vocabulary: frozenset[str]
    # Words the article capitalises inside a sentence: its names.
    names: frozenset[str]
    all_stems: frozenset[str]
    # Names in the headline or in two sentences or more: what the article is about.
    subjects: frozenset[str]

    @classmethod
    def build(cls, *, title: str, body: str) -> SourceText:
        sentences = [" ".join(title.split()), *sentences_split(body)]
        lower_vocabulary = frozenset(
            word for sentence in sentences[1:] for word in re.findall(r"\b[^\W\dA-Z][\w']*", sentence)
        )
        names = frozenset(
            ENDING.sub("", word.lower())
            for sentence in sentences[1:]
            for word in re.findall(r"(?<=[\w,;)] )[A-Z][\w']*", sentence)
        ) | frozenset(
            # A sentence opening with a name of two words or more: "Evergreen HiFi showed...".
            first.lower()
            for sentence in sentences[1:]
            if (match := re.match(r"([A-Z][a-z']+) (?:& |and )?[A-Z]", sentence))
            and (first := match.group(1)).lower() not in STOPWORDS
            and first.lower() not in COMMON_STARTS
        )
        tokens = [tokenize(sentence, source_vocabulary=lower_vocabulary, source_names=names) for sentence in sentences]
        counts = [Counter(token.norm for token in sentence_tokens if token.content) for sentence_tokens in tokens]
        stems = [frozenset(token.norm for token in sentence_tokens) for sentence_tokens in tokens]
        lengths = [sum(count.values()) for count in counts]
        document_frequency: Counter[str] = Counter()
        for count in counts:
            document_frequency.update(count.keys())
        total = len(sentences)
        idf = {
            term: math.log(1 + (total - frequency + 0.5) / (frequency + 0.5))
            for term, frequency in document_frequency.items()
        }
        return cls(
            sentences=sentences,
            tokens=tokens,
            stems=stems,
            counts=counts,
            lengths=lengths,
            idf=idf,
            average_length=(sum(lengths) / total) if total else 1.0,
            lower_vocabulary=lower_vocabulary,
            names=names,
            all_stems=frozenset().union(*stems),
            subjects=_subjects(tokens),
        )

    @functools.cached_property
    def key_neighbours(self) -> dict[str, list[tuple[str, str]]]:
        """For each number, name and date of the article (its headline too: the headline's "over-65s
        class" names the class as the body's sentences may not), the words right before and after
        it, wherever it stands: built once per article, on the first claim that needs it."""
        neighbours: dict[str, list[tuple[str, str]]] = {}
        for sentence_tokens in self.tokens:
            words = [token for token in sentence_tokens if (token.content or token.key) and not token.derived]
            for index, token in enumerate(words):
                if token.key:
                    neighbours.setdefault(token.norm, []).append(
                        (
                            words[index - 1].norm if index else "",
                            words[index + 1].norm if index + 1 < len(words) else "",
                        )
                    )
        return neighbours

    @functools.cached_property
    def key_contexts(self) -> dict[str, list[frozenset[str]]]:
        """For each number, name and date of the article, headline included, the ordinary words
        within KEY_CONTEXT words of it."""
        contexts: dict[str, list[frozenset[str]]] = {}
        for sentence_tokens in self.tokens:
            words = [token for token in sentence_tokens if (token.content or token.key) and not token.derived]
            for index, token in enumerate(words):
                if token.key:
                    around = words[max(0, index - KEY_CONTEXT) : index + KEY_CONTEXT + 1]
                    contexts.setdefault(token.norm, []).append(
                        frozenset(other.norm for other in around if not other.key and not _is_light(other))
                    )
        return contexts

    @functools.cached_property
    def name_pairs(self) -> frozenset[frozenset[str]]:
        """Every two words of one full name the article writes ("Aisha" and "Rahman" of "Aisha
        Rahman"): a claim may call a person by either."""
        pairs: set[frozenset[str]] = set()
        for sentence_tokens in self.tokens:
            run: list[str] = []
            for token in [*sentence_tokens, None]:
                if token is not None and token.kind == PROPER:
                    run.append(token.norm)
                    continue
                pairs.update(frozenset((one, other)) for one in run for other in run if one != other)
                run = []
        return frozenset(pairs)

    @functools.cached_property
    def capitalised(self) -> frozenset[str]:
        """The words the article writes with a capital inside a sentence (names, as written)."""
        inside = frozenset(
            word for sentence in self.sentences for word in re.findall(r"(?<=[\w,;)] )[A-Z][a-z]+\b", sentence)
        )
        # A sentence may open with a name of two capitalised words: "Second Look, the charity
        # shop, ..." writes "Second" as part of a name, as it would mid-sentence.
        opening = frozenset(
            match.group(1) for sentence in self.sentences if (match := re.match(r"([A-Z][a-z]+) [A-Z][a-z]", sentence))
        )
        return inside | opening

    @functools.cached_property
    def novel_weight(self) -> float:
        """The IDF of a word no sentence of the article uses: the most surprising kind."""
        return math.log(1 + (len(self.sentences) + 0.5) / 0.5)

    def weight(self, norm: str) -> float:
        return self.idf.get(norm, self.novel_weight)

    @functools.cached_property
    def negated(self) -> frozenset[str]:
        """Every word the body puts under a "not", in whichever sentence."""
        return frozenset(word for tokens in self.tokens[1:] for scope in _negation_scopes(tokens)[0] for word in scope)

    def bm25(self, terms: Iterable[str], *, k1: float = 1.2, b: float = 0.75) -> list[tuple[float, int]]:
        query = set(terms)
        scored: list[tuple[float, int]] = []
        for index, count in enumerate(self.counts):
            if not self.sentences[index]:
                continue
            score = 0.0
            norm = k1 * (1 - b + b * self.lengths[index] / (self.average_length or 1.0))
            for term in query:
                frequency = count.get(term, 0)
                if frequency:
                    score += self.idf.get(term, 0.0) * frequency * (k1 + 1) / (frequency + norm)
            if score > 0:
                scored.append((score, index))
        scored.sort(key=lambda pair: (-pair[0], pair[1]))
        return scored


def _subjects(tokens: list[list[Token]]) -> frozenset[str]:
    """Names in the headline, the first sentence (the lede says who the story is about) or in
    two sentences or more, with the rest of their full names ("Peter" of "Peter Lowe", once
    the article goes on to say "Lowe")."""
    mentions: Counter[str] = Counter()
    chains: list[list[str]] = []
    for index, sentence_tokens in enumerate(tokens):
        names = {token.norm for token in sentence_tokens if token.kind in {PROPER, MODEL}}
        mentions.update(dict.fromkeys(names, 2 if index <= 1 else 1))
        chain: list[str] = []
        for token in [*sentence_tokens, Token(norm="", raw="", kind=BREAK)]:
            if token.kind in {PROPER, MODEL}:
                chain.append(token.norm)
                continue
            if len(chain) > 1:
                chains.append(chain)
            chain = []
    subjects = {name for name, count in mentions.items() if count >= 2}
    for chain in chains:
        if subjects.intersection(chain):
            subjects.update(chain)
    return frozenset(subjects)


# --------------------------------------------------------------------------- judging one claim


@dataclass(frozen=True)
class _Failure:
    message: str
    # True when the evidence says something else (negation, opposite, swapped roles), as
    # opposed to not saying enough: only the latter is worth trying other evidence for.
    contradiction: bool = False
    # True when only the wording differs (words the evidence lacks): the hard checks passed,
    # so a judge that understands paraphrase may settle it.
    unsettled: bool = False
    # For an unsettled failure: the claim's word standing where the evidence has another
    # (claim's, evidence's), and the claim's words the evidence does not cover.
    swap: tuple[Token, Token] | None = None
    uncovered: tuple[Token, ...] = ()


@dataclass(frozen=True)
class _Candidate:
    indexes: tuple[int, ...]
    score: float


def _claim_judge(claim: Claim, source: SourceText, judge: Judge | SentenceJudge | None) -> ClaimResult:
    result = _claim_judge_one(claim, source, judge)
    if not result.supported or not claim.clauses:
        return result
    evidence = list(result.evidence)
    for clause in claim.clauses:
        clause_result = _claim_judge_one(clause, source, judge, clause=True)
        if not clause_result.supported:
            return ClaimResult(
                text=claim.text,
                supported=False,
                evidence=clause_result.evidence,
                reason=f'In "{_shorten(clause.text, 60)}": {clause_result.reason}',
                judge=clause_result.judge,
            )
        evidence.extend(item for item in clause_result.evidence if item not in evidence)
    return ClaimResult(text=claim.text, supported=True, evidence=evidence, reason=result.reason, judge=result.judge)


def _business_claim_judge(claim: Claim, source: SourceText) -> ClaimResult:
    """An article that never names the business cannot say what the business did: "We
    supplied 40 loan bikes" is someone else's news with the business made its subject. The
    gate's own checks run first only so that a wrong number is reported as such; no judge
    is asked, as no answer could make the claim supported."""
    result = _claim_judge(claim, source, None)
    if not result.supported:
        return result
    return ClaimResult(
        text=claim.text,
        supported=False,
        evidence=result.evidence,
        reason=_with_nearest(
            "This is about the business itself, and the article never mentions the business.", result.evidence
        ),
    )


def _claim_judge_one(
    claim: Claim, source: SourceText, judge: Judge | SentenceJudge | None, *, clause: bool = False
) -> ClaimResult:
    """Judge one claim. A ``clause`` of a longer claim may carry a word of its own once three
    of its words are found ("handed them in at a council meeting in June"), as the whole
    sentence may once four are: its wording was already read as part of the sentence."""
    if not any(source.sentences[1:]):
        return ClaimResult(
            text=claim.text, supported=False, evidence=[], reason="The article has no text to check against."
        )
    candidates = _candidates(claim, source)
    if not candidates:
        # Nothing to cite; still say which of the claim's facts are missing, when any are.
        failure = _hard_failure(claim, source, ())
        reason = failure.message if failure and failure.message.startswith("The article doesn't mention") else ""
        return ClaimResult(
            text=claim.text,
            supported=False,
            evidence=[],
            reason=reason or "The article doesn't say anything like this.",
        )
    failures: list[tuple[_Candidate, _Failure]] = []
    for candidate in candidates[:CHECK_TOP]:
        failure = _failure(claim, source, candidate.indexes, clause=clause)
        if failure is not None and not (failure.contradiction or failure.unsettled):
            widened = _widened(claim, source, candidate.indexes)
            if widened is not None and _failure(claim, source, widened, clause=clause) is None:
                candidate, failure = _Candidate(indexes=widened, score=candidate.score), None
        if failure is None:
            return ClaimResult(
                text=claim.text,
                supported=True,
                evidence=_evidence(source, candidate.indexes),
                reason="Supported by the cited sentences.",
            )
        failures.append((candidate, failure))
        if failure.contradiction:
            # The best evidence contradicts the claim: a weaker match elsewhere must not outvote it.
            break
    lexical = ClaimResult(
        text=claim.text,
        supported=False,
        evidence=_evidence(source, candidates[0].indexes),
        reason=_with_nearest(failures[0][1].message, _evidence(source, candidates[0].indexes)),
    )
    unsettled = [candidate for candidate, failure in failures if failure.unsettled]
    if judge is None and unsettled and not any(failure.contradiction for _, failure in failures):
        # Only the wording is in doubt: a meaning layer may settle it (_settle_by_meaning).
        settled = _settle_by_meaning(claim, source, [pair for pair in failures if pair[1].unsettled])
        if settled is not None:
            return settled
    if judge is None or not unsettled or failures[0][1].contradiction:
        return lexical
    # A judge with a prompt version reads numbered sentences; a plain callable is the older kind.
    if isinstance(judge, SentenceJudge):
        return _judge_ask(claim, source, judge, candidates[:CHECK_TOP], lexical)
    return _old_judge_ask(claim, source, judge, unsettled[0], lexical)


def _settle_by_meaning(
    claim: Claim, source: SourceText, open_failures: list[tuple[_Candidate, _Failure]]
) -> ClaimResult | None:
    """A claim the hard checks passed on some evidence, held only by its wording: supported
    when the sentence model reads the same meaning there, else None (the lexical verdict)."""
    return None


def _old_judge_ask(
    claim: Claim, source: SourceText, judge: Judge, candidate: _Candidate, lexical: ClaimResult
) -> ClaimResult:
    """A judge of the first protocol: a yes or no on the candidate's sentences."""
    try:
        supported, reason = judge(claim.text, [source.sentences[index] for index in candidate.indexes])
    except Exception:
        # A broken judge must not sink the gate: its own checks stand alone.
        return lexical
    evidence = _evidence(source, candidate.indexes)
    if supported:
        return ClaimResult(
            text=claim.text, supported=True, evidence=evidence, reason="Supported by the cited sentences."
        )
    message = f"The article doesn't support this: {reason}" if reason else "The article doesn't support this."
    return ClaimResult(text=claim.text, supported=False, evidence=evidence, reason=_with_nearest(message, evidence))


def _judge_ask(
    claim: Claim, source: SourceText, judge: SentenceJudge, candidates: list[_Candidate], lexical: ClaimResult
) -> ClaimResult:
    """Ask the sentence judge about a claim the gate's own checks could not settle.

    It sees the candidate sentences by their article numbers and must cite the ones it relied
    on. What it says is checked again: a cited number the article does not have, or a
    "supported" whose cited sentences fail the hard checks (numbers, dates, names, negation,
    opposites, roles), does not pass the claim. An answer that cannot be used leaves the
    gate's own verdict, with the reason recorded.
    """
    # The candidates and the sentences around them: context a reader of the article would have.
    last = len(source.sentences) - 1
    around = {
        neighbour
        for candidate in candidates
        for index in candidate.indexes
        for neighbour in (index - 1, index, index + 1)
        if 0 <= neighbour <= last and (neighbour == index or neighbour >= 1)
    }
    offered = sorted(around)[:_JUDGE_SENTENCES]
    record: dict[str, object] = {"prompt_version": judge.prompt_version}
    try:
        answer = judge(claim.text, {index: source.sentences[index] for index in offered})
    except Exception as error:
        record["error"] = f"The language model gave no usable answer ({type(error).__name__})."
        return _replace(lexical, judge=record)
    record.update(verdict=answer.verdict, sentences=list(answer.sentences), reason=answer.reason[:300])
    if answer.verdict not in JUDGE_VERDICTS:
        record["error"] = f"The language model answered {answer.verdict!r}, not a verdict; its answer was not used."
        return _replace(lexical, judge=record)
    unknown = [index for index in answer.sentences if index not in offered]
    if unknown or (answer.verdict == SUPPORTED and not answer.sentences):
        record["error"] = (
            f"The language model cited sentence {unknown[0]}, which it was not shown; its answer was not used."
            if unknown
            else "The language model cited no sentence; its answer was not used."
        )
        return _replace(lexical, judge=record)
    cited = tuple(sorted(answer.sentences))
    if answer.verdict == SUPPORTED:
        veto = _hard_failure(claim, source, cited)
        if veto is not None:
            record["vetoed"] = True
            evidence = _evidence(source, cited)
            return ClaimResult(
                text=claim.text,
                supported=False,
                evidence=evidence,
                reason=_with_nearest(veto.message, evidence),
                judge=record,
            )
        return ClaimResult(
            text=claim.text,
            supported=True,
            evidence=_evidence(source, cited),
            reason="Supported by the cited sentences (read by the language model).",
            judge=record,
        )
    evidence = _evidence(source, cited) if cited else lexical.evidence
    says = "contradicts this" if answer.verdict == CONTRADICTED else "doesn't say this"
    message = f"The article {says}: {answer.reason.strip()}" if answer.reason.strip() else f"The article {says}."
    return ClaimResult(
        text=claim.text, supported=False, evidence=evidence, reason=_with_nearest(message, evidence), judge=record
    )


def _replace(result: ClaimResult, **changes: Any) -> ClaimResult:
    return dataclasses.replace(result, **changes)


def _with_nearest(message: str, evidence: Sequence[dict[str, object]]) -> str:
    """A reason a customer can act on: what is wrong, and the article sentence nearest the claim."""
    if not evidence:
        return message
    nearest = " ".join(str(item["text"]) for item in evidence)
    return f'{message} Nearest sentence in the article: "{_shorten(nearest, _QUOTE_LIMIT)}"'


def _candidates(claim: Claim, source: SourceText) -> list[_Candidate]:
    """Sentences (and adjacent pairs) that could back the claim, best covering first."""
    needed = _needed(claim)
    if not needed:
        return []
    plain_words = {token.norm for token in claim.tokens if token.content and not token.key}
    names = {token.norm for token in claim.tokens if token.kind == PROPER}
    retrieved = [index for _, index in source.bm25(needed)[:RETRIEVE_TOP]]
    groups: set[tuple[int, ...]] = set()
    last = len(source.sentences) - 1
    for index in retrieved:
        groups.add((index,))
        for pair in ((index - 1, index), (index, index + 1)):
            if pair[0] >= 1 and pair[1] <= last:
                groups.add(pair)
    # A claim may join facts from two places; both sentences must then carry part of it.
    for first in retrieved[:3]:
        for second in retrieved[:3]:
            if first < second:
                groups.add((first, second))
    scored: list[_Candidate] = []
    for group in groups:
        if len(group) == 2:
            words = plain_words if group[1] - group[0] > 1 else plain_words | names
            if not _both_contribute(words, source, group):
                continue
        scored.append(_Candidate(indexes=group, score=_cover_score(claim, source, group)))
    scored.sort(key=lambda candidate: (-candidate.score, len(candidate.indexes), candidate.indexes))
    return scored


def _widened(claim: Claim, source: SourceText, group: tuple[int, ...]) -> tuple[int, ...] | None:
    """The evidence with the sentence next to it that holds the claim's missing numbers, dates
    or names: a post joins "started in 2021 with four volunteers" and the article's next
    sentence, "There are now 22.", into "from four volunteers in 2021 to twenty-two today"."""
    stems = _group_stems(source, group)
    missing = {token.norm for token in claim.tokens if token.key and not token.derived and token.norm not in stems}
    evidence_tokens = [token for index in group for token in source.tokens[index]]
    if not missing or _coverage_failure(claim, source, group, evidence_tokens) is not None:
        return None  # only the numbers and names may come from next door, the wording is this evidence's
    last = len(source.sentences) - 1
    for neighbour in (min(group) - 1, max(group) + 1):
        if not (1 <= neighbour <= last and neighbour not in group and missing <= source.stems[neighbour]):
            continue
        words = [token for token in source.tokens[neighbour] if (token.content or token.key) and not token.derived]
        # A short sentence is about its number ("There are now 22."); in a longer one the number
        # must stand next to the word it stands next to in the claim ("four years" for "for
        # four years"), not lend itself to another thing ("40%" of something else).
        if len(words) <= 5 or all(_beside(norm, claim.tokens, words) for norm in missing):
            return tuple(sorted((*group, neighbour)))
    return None


def _beside(norm: str, claim_tokens: Sequence[Token], evidence_words: Sequence[Token]) -> bool:
    claim_words = [token for token in claim_tokens if (token.content or token.key) and not token.derived]
    around = {
        claim_words[index + step].norm
        for index, token in enumerate(claim_words)
        if token.norm == norm
        for step in (-1, 1)
        if 0 <= index + step < len(claim_words) and not claim_words[index + step].key
    }
    return any(
        token.norm == norm
        and any(
            evidence_words[index + step].norm in around for step in (-1, 1) if 0 <= index + step < len(evidence_words)
        )
        for index, token in enumerate(evidence_words)
    )


def _needed(claim: Claim) -> set[str]:
    return {token.norm for token in claim.tokens if token.content or token.key}


def _both_contribute(words: set[str], source: SourceText, pair: tuple[int, ...]) -> bool:
    """Each sentence of a pair must carry words of the claim. Sentences apart must each carry
    two ordinary words, not just lend a stray number or name; a next sentence may carry one
    word or a name ("..., said Paul Tuohy"), never just a number."""
    first, second = (source.stems[index] & words for index in pair)
    needed = 1 if pair[1] - pair[0] == 1 else 2
    return len(first - second) >= needed and len(second - first) >= needed


def _cover_score(claim: Claim, source: SourceText, group: tuple[int, ...]) -> float:
    stems = _group_stems(source, group)
    total = covered = 0.0
    for token in _unique(token for token in claim.tokens if token.content or token.key):
        weight = 3.0 if token.key else 1.0
        total += weight
        if token.norm in stems:
            covered += weight
        elif token.kind in {PROPER, MODEL} and token.norm in source.subjects:
            covered += weight / 2  # the article's subject, named elsewhere
    # A pair must earn its place: on a tie the single sentence is the better evidence.
    return (covered / total if total else 0.0) - 0.02 * (len(group) - 1)


def _group_stems(source: SourceText, group: tuple[int, ...]) -> frozenset[str]:
    return frozenset().union(*(source.stems[index] for index in group))


def _failure(claim: Claim, source: SourceText, group: tuple[int, ...], *, clause: bool = False) -> _Failure | None:
    """Why this evidence does not support the claim, or None when it does."""
    hard = _hard_failure(claim, source, group)
    if hard is not None:
        return hard
    evidence_tokens = [token for index in group for token in source.tokens[index]]
    return _coverage_failure(claim, source, group, evidence_tokens, clause=clause)


def _hard_failure(claim: Claim, source: SourceText, group: tuple[int, ...]) -> _Failure | None:
    """The checks no paraphrase and no judge can excuse: numbers, dates, names, superlatives,
    negation, opposites and who did what to whom."""
    stems = _group_stems(source, group)
    evidence_tokens = [token for index in group for token in source.tokens[index]]

    # The article's main subjects (named in the headline, or in two sentences or more) may
    # be named in a claim whose evidence only says "the company" or "the charity"; a
    # relative date ("last year") the article itself uses may stand where it is used.
    missing = [
        token
        for token in _unique(claim.tokens)
        if token.key
        and token.norm not in stems
        and not (token.kind in {PROPER, MODEL} and token.norm in source.subjects)
        and not (token.derived and token.norm.split("_", 1)[0] in RELATIVE and token.norm in source.all_stems)
        and not (
            token.kind == PROPER
            and any(_demonym_of(_bare_word(token.raw), _bare_word(other.raw)) for other in evidence_tokens)
        )
        and not _said_elsewhere(token, claim.tokens, source, evidence_tokens)
        and not _clock_hour(token, stems)
        and not (token.kind == PROPER and _short_form_written_out(token.raw, source))
        and not _the_only_weekday(token, source)
        # "Second Chance" is the shelter's name wherever the article writes it so, not an ordinal.
        and not (token.kind == NUMBER and token.raw.isalpha() and token.raw in source.capitalised)
    ]
    if missing:
        return _Failure(_missing_message(missing))
    superlative = _superlative_unsupported(claim.tokens, evidence_tokens, claim.text)
    if superlative:
        return _Failure(superlative)
    shifted = _relative_date_shift(claim.tokens, stems)
    if shifted:
        return _Failure(shifted, contradiction=True)
    # The reasons quote the draft's and the article's own words (posting.gate.reasons).
    texts = (claim.text, " ".join(source.sentences[index] for index in group))
    contradiction = (
        _opposite(claim.tokens, stems, evidence_tokens)
        or _negation_mismatch(claim.tokens, evidence_tokens, source.negated, texts=texts)
        or _role_swap(
            claim.tokens,
            evidence_tokens,
            compounds=_compounds(claim.text),
            sentence_of={token.norm: index for index in group for token in source.tokens[index]},
            texts=texts,
        )
        or _voice_swap(claim.tokens, evidence_tokens, texts=texts)
        or _neighbour_swap(
            claim.tokens, evidence_tokens, subjects=source.subjects, name_pairs=source.name_pairs, texts=texts
        )
        or _preposition_flip(claim.tokens, evidence_tokens)
    )
    if contradiction:
        return _Failure(contradiction, contradiction=True)
    return None


def _said_elsewhere(
    key: Token, claim_tokens: Sequence[Token], source: SourceText, evidence_tokens: Sequence[Token]
) -> bool:
    """A number, name or date the claim takes from another sentence of the article, where it is
    attached to the same word: "Eighty-six other entries" from "beat 86 other entries", "the
    Wednesday evening classes" from "an evening class every Wednesday", "about
    9k reclaimed Welsh slates" from "about 9,000 reclaimed Welsh slates". A number moved to
    another thing ("12 electric bikes" where the article has "12 charging points") is not."""
    if key.derived or key.guessed or key.kind not in {NUMBER, PROPER, MODEL, DATE}:
        return False
    words = [token for token in claim_tokens if (token.content or token.key) and not token.derived]
    places = [index for index, token in enumerate(words) if token.norm == key.norm]
    if not places:
        return False
    place = places[0]
    # The key's neighbours in the claim, whatever their kind, must be its neighbours in the
    # article too ("140 residents objected" does not lend "140" to "while 140 residents will
    # build it", nor "the borough recycles 48%" to "Eastfield recycles 48%").
    following = words[place + 1].norm if place + 1 < len(words) else ""
    preceding = words[place - 1].norm if place else ""
    if not (following or preceding):
        return False
    # Where the evidence gives that same word another number ("Eastfield, which recycles 57%"),
    # the claim's number contradicts it, wherever else the article uses it. A name or date beside
    # a number is no such word: "Saturday 23 January" gives the month a day, not another time
    # for "January, 10am to 2pm".
    evidence_words = [token for token in evidence_tokens if (token.content or token.key) and not token.derived]
    for index, token in enumerate(evidence_words):
        neighbours = evidence_words[index - 1 : index] + evidence_words[index + 1 : index + 2]
        if (
            token.norm in {preceding, following}
            and not token.key
            and any(other.kind == key.kind and other.norm != key.norm for other in neighbours)
        ):
            return False
    following_key = place + 1 < len(words) and words[place + 1].key
    preceding_key = place > 0 and words[place - 1].key
    for before, after in source.key_neighbours.get(key.norm, ()):
        if (not following or following == after) and (not preceding or preceding == before):
            return True
        # Two figures side by side are one fact ("10am to 2pm", "£18 to £95"): where the article
        # writes the same two together, the pair is said there, whatever the claim puts around it.
        if (following_key and following == after) or (preceding_key and preceding == before):
            return True
    if KEY_CONTEXT == 0:
        return False
    # The claim's evidence window may reach one more sentence anywhere in the article: the
    # number or name stands there near the word it stands beside in the claim ("12 seats"
    # from "...has twelve listening seats"), not beside something else.
    # The claim's side of that window reaches as far as the article's, past a name or figure
    # put in between: "its 1979 AS-3 bookshelf speaker" for the headline's "its 1979 bookshelf
    # speaker".
    near = {preceding, following} - {""}
    near |= {
        word.norm
        for word in words[max(0, place - KEY_CONTEXT) : place + KEY_CONTEXT + 1]
        if not word.key and not _is_light(word)
    }
    return any(near & context for context in source.key_contexts.get(key.norm, ()))


def _clock_hour(token: Token, evidence_stems: frozenset[str]) -> bool:
    """ "open 10 to 5", "doors opened at 7": an hour written without "a.m." or "p.m." is the
    evidence's time on that hour, morning or afternoon."""
    if token.kind != NUMBER or token.derived or not token.norm.isdigit() or not 1 <= int(token.norm) <= 12:
        return False
    hour = int(token.norm)
    return f"{hour}:00" in evidence_stems or f"{hour % 12 + 12}:00" in evidence_stems


_WEEKDAYS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})


def _the_only_weekday(token: Token, source: SourceText) -> bool:
    """ "opened on Sunday" where the lede says the reserve opened on Sunday and the evidence
    sentence, about the ribbon, does not: a weekday the article writes, and the only one it
    writes, cannot be another day confused with it. An article with two weekdays ("opens on
    Monday; classes on Wednesdays") lends neither."""
    if token.kind != DATE or token.derived or token.norm not in _WEEKDAYS:
        return False
    return token.norm in source.all_stems and not (_WEEKDAYS - {token.norm}) & source.all_stems


def _short_form_written_out(raw: str, source: SourceText) -> bool:
    """ "EV" where the article writes "electric vehicle", "CTO" for its "chief technology officer",
    "EVs" for its "EV-certified": a short form of capitals is the article's own words, initial by
    initial, in order and next to each other. Any sentence of the article: the short form names
    the thing wherever the article spells it out ("a shared EV workshop" for a sentence that says
    "electric car" after another has said "electric vehicle"); "HGV" is still a thing it never
    writes."""
    letters = raw[:-1] if raw.endswith("s") and len(raw) > 2 else raw
    if not (2 <= len(letters) <= 5 and letters.isalpha() and letters.isupper()):
        return False
    if letters.lower() in source.all_stems:
        return True
    initials = letters.lower()
    for tokens in source.tokens:
        words = [token.raw for token in tokens if token.kind in {WORD, PROPER, NEGATION} and not token.derived]
        heads = "".join(word[0].lower() for word in words)
        start = heads.find(initials)
        while start != -1:
            # Every word of the run is a content word written out: "every village" is no "EV".
            run = words[start : start + len(initials)]
            if all(len(word) > 2 and word.lower() not in STOPWORDS for word in run):
                return True
            start = heads.find(initials, start + 1)
    return False


def _demonym_of(one: str, other: str) -> bool:
    """ "Sicilian" for "Sicily", "Brazilian" for "Brazil", "Portuguese" for "Portugal"."""
    shorter, longer = sorted((one, other), key=len)
    common = next((index for index, (a, b) in enumerate(zip(shorter, longer, strict=False)) if a != b), len(shorter))
    return common >= 5 and common >= 0.6 * len(shorter) and longer[common:].endswith(_DEMONYM_ENDINGS)


_DEMONYM_ENDINGS = ("an", "ian", "ean", "ese", "ish", "i", "ic", "er")


def _missing_message(missing: Sequence[Token]) -> str:
    dates = [token for token in missing if token.derived and token.kind == DATE]
    # A day of a month is shown whole ("Oct 5"), not as the bare number it contains.
    shown = dates + [
        token for token in missing if not token.derived and not any(token.raw in date.raw.split() for date in dates)
    ] or list(missing)
    listed = _listed(shown[:3])
    kinds = {token.kind for token in shown}
    if kinds <= {NUMBER}:
        return f"The article doesn't mention the figure {listed}."
    if kinds <= {DATE}:
        return f"The article doesn't give the date {listed}."
    return f"The article doesn't mention {listed}."


def _listed(tokens: Sequence[Token]) -> str:
    quoted = [f'"{_shown(token)}"' for token in tokens]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def _shown(token: Token) -> str:
    """A token as a reader would write it: "£4.5bn" reaches the tokenizer as 4500000000."""
    if token.kind == NUMBER and token.raw.isdigit() and len(token.raw) > 4:
        return f"{int(token.raw):,}"
    return token.raw


def _relative_date_shift(claim_tokens: Sequence[Token], evidence_stems: frozenset[str]) -> str:
    """ "this year" is the reader's year and not checked on its own, but it cannot stand for
    the article's "next year" or "last year"."""
    for token in claim_tokens:
        if not token.derived or "_" not in token.norm or token.norm in evidence_stems:
            continue
        relative, period = token.norm.split("_", 1)
        if relative not in RELATIVE:
            continue
        for other in RELATIVE - {relative}:
            if f"{other}_{period}" in evidence_stems:
                return f'The article says "{other} {period}", not "{token.raw}".'
    return ""


def _superlative_unsupported(
    claim_tokens: Sequence[Token], evidence_tokens: Sequence[Token], claim_text: str = ""
) -> str:
    """A superlative must be in the evidence, and about the same thing ("most often" is not "most overweight")."""
    claim_words = [token for token in claim_tokens if (token.content or token.key) and not token.derived]
    evidence_words = [token for token in evidence_tokens if (token.content or token.key) and not token.derived]
    evidence_next: dict[str, set[str]] = {}
    for index, token in enumerate(evidence_words):
        evidence_next.setdefault(token.norm, set()).add(
            evidence_words[index + 1].norm if index + 1 < len(evidence_words) else ""
        )
    for index, token in enumerate(claim_words):
        if not token.superlative:
            continue
        if token.norm not in evidence_next:
            # "biggest" for the article's "largest": a superlative in other words is the same one.
            if token.kind == WORD and _paraphrased(token, [other for other in evidence_words if other.superlative]):
                continue
            # "the most since 2004" for "the highest number since 2004": a count's superlative.
            if token.norm == "most" and _most_as_count(claim_words, index, evidence_next):
                continue
            return f'The article doesn\'t say "{token.raw}".'
        following = claim_words[index + 1].norm if index + 1 < len(claim_words) else ""
        if token.norm not in {"most", "least"}:
            continue
        # "most" and "least" make a superlative of the next word, which must be the article's too,
        # within the phrase the article's own "most" governs: "most of our apples" says what "most
        # of the farm's apples" says.
        if (
            following
            and not evidence_next[token.norm] & {following, ""}
            and not _in_phrase_after(evidence_words, token.norm, following)
        ):
            # The draft's words as written ("the most in the whole division"), not two tokens.
            text = claim_text or reasons.text_of(claim_tokens)
            shown = reasons.between(text, token.raw, claim_words[index + 1].raw, limit=6)
            return f'The article doesn\'t say "{shown or token.raw + " " + claim_words[index + 1].raw}".'
    return ""


# How many content words after the article's "most of" its noun may stand ("most of the farm's apples").
_OF_PHRASE = 3


def _in_phrase_after(words: Sequence[Token], superlative: str, following: str) -> bool:
    for index, token in enumerate(words):
        if token.norm == superlative and following in {
            other.norm for other in words[index + 1 : index + 1 + _OF_PHRASE]
        }:
            return True
    return False


# "the highest number", "the largest total": what "the most" says of a count.
_COUNT_SUPERLATIVES = frozenset({"highest", "largest", "biggest", "greatest"})
_COUNT_NOUNS = frozenset({"number", "total", "count", "tally"})


def _most_as_count(claim_words: Sequence[Token], index: int, evidence_next: dict[str, set[str]]) -> bool:
    """ "Sixty-two teams entered, the most in 35 years": "most" with no word of its own to rank
    ("the most teams" ranks teams) is the article's "the largest number"."""
    following = claim_words[index + 1] if index + 1 < len(claim_words) else None
    if following is not None and following.kind == WORD and following.content and following.norm != "sinc":
        return False
    return any(evidence_next.get(word, set()) & _COUNT_NOUNS for word in _COUNT_SUPERLATIVES)


# The business thanking, congratulating or applauding the article's people ("Huge thanks from all
# of us at ... to ...", "Calderbrook Hospital Charity thanks Winifred Dore, 94, who knitted 210
# hats"): its own voice, not a fact the article must hold; what it thanks them for is checked.
_BUSINESS_VOICE = frozenset(
    {
        "thank",
        "thanks",
        "thanking",
        "congratulations",
        "congratulate",
        "congratulates",
        "congrats",
        "applaud",
        "applauds",
    }
)


def _business_voice(claim: Claim, token: Token) -> bool:
    return claim.about_business and token.kind == WORD and _bare_word(token.raw) in _BUSINESS_VOICE


def _coverage_failure(
    claim: Claim, source: SourceText, group: tuple[int, ...], evidence_tokens: Sequence[Token], *, clause: bool = False
) -> _Failure | None:
    """Every content word of the claim must be in its evidence: as the same word, a form of
    it, a WordNet synonym ("store" for "shop"), or a word of the same direction ("less" for
    "lower"). Light words that add no checkable fact ("also", "now", "come") may be extra.

    A longer claim that is otherwise well anchored (four words or facts found) may carry one
    word of its own, the way a paraphrase does ("swapped" for "replaced"), but never in place
    of an evidence word of its own kind ("liver damage" -> "kidney damage", "rents" ->
    "sells"): that is a single-word swap, not a paraphrase.
    """
    stems = _group_stems(source, group)
    evidence_words = [token for token in evidence_tokens if token.kind == WORD and token.content]
    uncovered: list[Token] = []
    covered_weight = uncovered_weight = 0.0
    for token in _unique(token for token in claim.tokens if (token.content or token.key) and not token.derived):
        weight = source.weight(token.norm)
        if token.key or token.norm in stems or (token.kind in {PROPER, MODEL} and token.norm in source.subjects):
            covered_weight += weight
        elif _is_light(token) or token.raw.lower() in _PERMISSION or _business_voice(claim, token):
            continue
        elif token.kind == WORD and _paraphrased(token, evidence_words):
            covered_weight += weight
        else:
            uncovered.append(token)
            uncovered_weight += weight
    if claim.about_business and uncovered:
        return _Failure(reasons.not_said(claim.text, [token.raw for token in uncovered], about_business=True))
    swap = _substitution(claim.tokens, evidence_tokens, uncovered, source.all_stems) if uncovered else None
    if swap is None and len(group) == 2:
        # A pair must not lend the word its main sentence has in another's place ("gives its
        # unsold loaves" next to a sentence that says "sell"): check the main one alone.
        words = {token.norm for token in claim.tokens if token.content and not token.key}
        main = max(group, key=lambda index: len(source.stems[index] & words))
        other = next(index for index in group if index != main)
        lent = (source.stems[other] - source.stems[main]) & words
        alone = (
            []
            if len(lent) != 1
            else [
                token
                for token in claim.tokens
                if token.content and not token.key and token.norm not in source.stems[main] and not _is_light(token)
            ]
        )
        swap = _substitution(claim.tokens, source.tokens[main], alone, source.all_stems)
    if swap is not None:
        ours, theirs = swap
        if SWAP_COST is None:
            return _Failure(
                _swap_message(claim, ours, theirs, evidence_tokens, uncovered),
                unsettled=True,
                swap=swap,
                uncovered=tuple(uncovered),
            )
        # A word in another word's slot is likelier a changed fact than a free paraphrase: it
        # weighs more than a word the article simply lacks.
        uncovered_weight += SWAP_COST * source.weight(ours.norm)
    if not uncovered:
        return None
    if covered_weight / (covered_weight + uncovered_weight) >= (SUPPORT_MIN_CLAUSE if clause else SUPPORT_MIN):
        return None
    if swap is not None:
        ours, theirs = swap
        return _Failure(
            _swap_message(claim, ours, theirs, evidence_tokens, uncovered),
            unsettled=True,
            swap=swap,
            uncovered=tuple(uncovered),
        )
    return _Failure(
        reasons.not_said(claim.text, [token.raw for token in uncovered]),
        unsettled=True,
        uncovered=tuple(uncovered),
    )


def _swap_message(
    claim: Claim, ours: Token, theirs: Token, evidence_tokens: Sequence[Token], uncovered: Sequence[Token]
) -> str:
    """Name the word pair only where it really is a pair: "The article says "oven", not "grill""
    reads as nonsense when the two words only happened to share a neighbour ("piccalilli" for
    "grab"). Otherwise say plainly which of the draft's words the article does not support."""
    if _pair_aligned(ours, theirs, claim.tokens, evidence_tokens):
        return f'The article says "{theirs.raw}", not "{ours.raw}".'
    rest = [token.raw for token in uncovered if token.norm != ours.norm]
    return reasons.not_said(claim.text, [ours.raw, *rest])


def _pair_aligned(ours: Token, theirs: Token, claim_tokens: Sequence[Token], evidence_tokens: Sequence[Token]) -> bool:
    """Two words a reader sees as one in the other's place: of one verb family ("rents" /
    "sells"), opposites, two things of one kind in WordNet ("summer" / "winter", "oak" / "elm"),
    or two words between the same neighbours on both sides ("new oak boards" / "new elm boards")."""
    one, other = _bare_word(ours.raw), _bare_word(theirs.raw)
    if _same_family(ours, theirs) or theirs.norm in antonym_words(one) or sister_nouns(one, other):
        return True
    # Each content word with the next one in its clause ("" at a clause's end: "a cloth grill.").
    claim_words = _words_in_clauses(claim_tokens)
    evidence_words = _words_in_clauses(evidence_tokens)
    if ours.norm not in claim_words or theirs.norm not in evidence_words:
        return False
    (before, after), (their_before, their_after) = claim_words[ours.norm], evidence_words[theirs.norm]
    if not (before and before == their_before and after == their_after):
        return False
    # The same slot holds two words of one part of speech: "ever" is no swap for "history".
    if is_verb_form(one) and is_verb_form(other):
        return True
    if is_plain_noun(one) and is_plain_noun(other):
        return True
    return is_adjective(one) and is_adjective(other) and not similar_adjectives(one, other)


def _words_in_clauses(tokens: Sequence[Token]) -> dict[str, tuple[str, str]]:
    """Each content word's neighbours within its clause (the first time it is used): "" where
    punctuation or the sentence's edge stands next to it."""
    words = [token for token, _ in _words_with_verbness(tokens)]
    joined = _joined_to_previous(tokens)
    found: dict[str, tuple[str, str]] = {}
    for index, token in enumerate(words):
        before = words[index - 1].norm if index and joined[index] else ""
        after = words[index + 1].norm if index + 1 < len(words) and joined[index + 1] else ""
        found.setdefault(token.norm, (before, after))
    return found


# "you're welcome to bring a friend" says what "clients can bring a friend" does.
_PERMISSION = frozenset({"welcome", "able", "free to"}) | frozenset(
    # What the reader is asked to do ("grab a friend", "pop in", "join us"): no fact of the article's.
    ["visit", "visits", "come", "pop", "drop", "swing", "grab", "join", "tap", "click", "follow", "subscribe", "swipe"]
)


def _is_light(token: Token) -> bool:
    return token.raw.lower() in LIGHT


def _paraphrased(token: Token, evidence_words: Sequence[Token]) -> bool:
    word = _bare_word(token.raw)
    synonyms = synonym_words(word)
    forms = set(lemmas(word))
    direction = next((family for family in DIRECTION_FAMILIES if word in family), None)
    for other in evidence_words:
        other_word = _bare_word(other.raw)
        # Both ways: "shop" and "store" name each other's first sense; "closing" lists "last"
        # among its senses' words, but "last" does not list "closing".
        other_forms = {other_word, *lemmas(other_word)}
        if synonyms & other_forms and synonym_words(other_word) & (forms | {word}):
            return True
        # The article's word names the claim's in its most frequent sense ("former": "old").
        if synonym_words(other_word) & ({word} | forms):
            return True
        if forms and forms & other_forms:
            return True
        if direction is not None and other_word in direction:
            return True
        if _same_root(token.norm, other.norm) or _compound_of(word, other_word):
            return True
    return False


def _compound_of(one: str, other: str) -> bool:
    """ "bookshop" and "shop", "retest" and "test": one word is the other with a word or "re-"
    in front, so it names the same thing or act more narrowly."""
    shorter, longer = sorted((one, other), key=len)
    if len(shorter) < 4 or not longer.endswith(shorter) or longer == shorter:
        return False
    front = longer[: -len(shorter)].rstrip("-")
    return front == "re" or len(front) >= 3


def _same_root(one: str, other: str) -> bool:
    """ "crowdfunder" and "crowdfunding", "organiser" and "organisation": one root, other endings."""
    shorter, longer = sorted((one, other), key=len)
    return len(shorter) >= 6 and longer.startswith(shorter) and len(longer) - len(shorter) <= 4


def _bare_word(raw: str) -> str:
    return ENDING.sub("", raw.lower())


def _substitution(
    claim_tokens: Sequence[Token],
    evidence_tokens: Sequence[Token],
    uncovered: Sequence[Token],
    article_stems: frozenset[str] = frozenset(),
) -> tuple[Token, Token] | None:
    """A claim word standing where the evidence has a different word of the same kind between
    the same neighbours: "reading corner and a new roof" for "... a new heating system",
    "kidney damage" for "liver damage", "40 beds" for "40 seats". Verbs may be paraphrased
    ("swapped" for "replaced") unless the two are of one family that differ in fact (buy /
    sell / rent, hire / fire)."""
    claim_words = _words_with_verbness(claim_tokens)
    evidence_words = _words_with_verbness(evidence_tokens)
    # Neighbours are words with no punctuation between them: "Its latest arrival: a secondhand
    # model" does not put "arrival" where "The machine, a secondhand model" has "machine".
    claim_joined = _joined_to_previous(claim_tokens)
    evidence_joined = _joined_to_previous(evidence_tokens)
    claim_stems = {token.norm for token, _ in claim_words}
    position: dict[str, int] = {}
    for index, (token, _) in enumerate(evidence_words):
        position.setdefault(token.norm, index)
    missing = {token.norm for token in uncovered}
    for index, (token, verb) in enumerate(claim_words):
        if token.norm not in missing:
            continue
        slots: list[tuple[Token, bool]] = []
        # With neighbours on both sides in the claim, both must point to the same evidence word:
        # "half price with a resident's card" does not stand where "Islanders with a resident's
        # card pay half" has "Islanders" merely because both go on with "resident's card".
        left = claim_words[index - 1][0].norm if index and claim_joined[index] else ""
        right = claim_words[index + 1][0].norm if index + 1 < len(claim_words) and claim_joined[index + 1] else ""
        if left and right and left in position and right in position and position[left] > position[right] and not verb:
            continue
        if index and claim_joined[index] and claim_words[index - 1][0].norm in position:
            after = position[claim_words[index - 1][0].norm] + 1
            if after < len(evidence_words) and evidence_joined[after]:
                slots.extend(evidence_words[after : after + 1])
        if index + 1 < len(claim_words) and claim_joined[index + 1] and claim_words[index + 1][0].norm in position:
            before = position[claim_words[index + 1][0].norm] - 1
            if before >= 0 and evidence_joined[before + 1]:
                slots.extend(evidence_words[before : before + 1])
        for other, other_verb in slots:
            if other.norm in claim_stems or other.kind != WORD or not other.content or _is_light(other):
                continue
            if other.raw.lower().endswith("ly") or {other.raw.lower(), token.raw.lower()} & _RELATIONS:
                continue  # "straight" for "directly", "after" for "since": manner and order words
            if verb != other_verb:
                continue  # a noun where the article has a verb: reworded, not swapped
            if verb and not _same_family(token, other):
                continue  # "swapped" for "replaced", "went on" for "were fitted": a paraphrase
            if not _same_family(token, other) and (
                _one_way_synonyms(token, other) or _compound_of(_bare_word(token.raw), _bare_word(other.raw))
            ):
                continue  # "part" for "share", "bookshop" for "shop": the same thing in other words
            if not verb and not _same_kind(token, other):
                continue  # "years" where it has "library's": not a swap of things
            if (
                not verb
                and token.norm not in article_stems
                and more_general(_bare_word(token.raw), _bare_word(other.raw))
            ):
                # "dad" for "father", "kit" for "equipment": the same thing, named more loosely.
                # Not where the article uses the draft's word itself: "pick ten bulbs" where it
                # planted bulbs and lets visitors pick stems names the article's other thing.
                continue
            return token, other
    return None


def _joined_to_previous(tokens: Sequence[Token]) -> list[bool]:
    """For each word ``_words_with_verbness`` lists: no punctuation stands between it and the one before."""
    joined: list[bool] = []
    broken = True
    for token in tokens:
        if token.kind == BREAK:
            broken = True
        elif (token.content or token.key) and not token.derived:
            joined.append(not broken)
            broken = False
    return joined


def _words_with_verbness(tokens: Sequence[Token]) -> list[tuple[Token, bool]]:
    """The content words of a sentence, each with whether it is used as a verb there: a past
    or -ing form, a verb after an auxiliary, "to" or a pronoun, or an -s form after its
    subject ("the shop rents")."""
    words: list[tuple[Token, bool]] = []
    previous: Token | None = None
    for position, token in enumerate(tokens):
        if token.kind == BREAK:
            previous = None
            continue
        if (token.content or token.key) and not token.derived:
            word = _bare_word(token.raw)
            verb = token.kind == WORD and is_verb_form(word)
            if verb:
                after_helper = previous is not None and (previous.norm in AUXILIARIES or previous.norm in _VERB_HELPERS)
                # "two domestic grills, a long oak worktop": an -s word that ends its phrase is a
                # plural noun; "the shop rents the room" goes on to what it rents.
                ends_phrase = (
                    position + 1 >= len(tokens)
                    or tokens[position + 1].kind == BREAK
                    or (tokens[position + 1].norm in {"and", "or"})
                )
                after_subject = (
                    previous is not None
                    and previous.kind in {WORD, PROPER}
                    and (previous.content or previous.kind == PROPER)
                    and word.endswith("s")
                    and not ends_phrase
                )
                # "a new heating system": an -ing word after an article or an adjective is a noun.
                ing_noun = word.endswith("ing") and (
                    previous is None
                    or previous.norm in _DETERMINERS
                    or (previous.kind == WORD and previous.content and not is_verb_form(_bare_word(previous.raw)))
                )
                verb = (
                    bool(PAST.search(word))
                    or (word.endswith("ing") and not ing_noun)
                    or word in IRREGULAR
                    or after_helper
                    or after_subject
                )
            words.append((token, verb))
        previous = token
    return words


_RELATIONS = frozenset(
    {"after", "before", "since", "until", "during", "from", "above", "below", "more", "most", "only"}
    | {"inside", "outside", "alongside", "behind", "beside", "beyond", "former", "old"}
)
_DEMONSTRATIVES = frozenset({"this", "that", "these", "those"})
_DETERMINERS = frozenset(
    {"the", "a", "an", "its", "their", "his", "her", "our", "your", "this", "that", "these", "those"}
    | {"each", "every", "some", "any", "no", "one", "per"}
)
_VERB_HELPERS = frozenset({"to", "will", "would", "shall", "she", "he", "they", "we", "i", "you", "who", "it", "not"})


def _same_kind(one: Token, other: Token) -> bool:
    """Two words that can name things of one kind, so that one in the other's place changes the
    fact: two nouns ("evening" / "morning", "oven" / "grill", "family" / "private" cubicles), or
    two adjectives not of one WordNet cluster ("wooden" / "metal", but not "soggy" / "wet"). A
    noun where the article has only an adjective or adverb ("space" / "long", "refit" /
    "roughly") or a word WordNet does not know ("risograph") is the sentence reworded, not a
    swap: at most a word of the draft's own, which the coverage check counts."""
    ours, theirs = _bare_word(one.raw), _bare_word(other.raw)
    if is_noun(ours) and is_noun(theirs):
        return True
    return is_adjective(ours) and is_adjective(theirs) and not similar_adjectives(ours, theirs)


def _one_way_synonyms(one: Token, other: Token) -> bool:
    """Either word lists the other among the words of its most frequent sense (WordNet)."""
    ours, theirs = _bare_word(one.raw), _bare_word(other.raw)
    return bool(synonym_words(ours) & {theirs, *lemmas(theirs)} or synonym_words(theirs) & {ours, *lemmas(ours)})


def _same_family(one: Token, other: Token) -> bool:
    ours, theirs = set(lemmas(_bare_word(one.raw))), set(lemmas(_bare_word(other.raw)))
    if any(frozenset((a, b)) in _ALIKE for a in ours for b in theirs):
        return False  # "donates" for "gives", "lets" for "rents": one act in other words
    return any(ours & family and theirs & family for family in VERB_FAMILIES)


_ALIKE = frozenset(
    frozenset(pair)
    for pair in (
        ("give", "donate"),
        ("rent", "lease"),
        ("rent", "let"),
        ("lease", "let"),
        ("fund", "sponsor"),
        ("fund", "pay"),
        ("fix", "repair"),
        ("close", "shut"),
        ("sack", "fire"),
        ("sack", "dismiss"),
        ("fire", "dismiss"),
        ("quit", "resign"),
        ("save", "rescue"),
        ("borrow", "loan"),
    )
)


def _opposite(claim_tokens: Sequence[Token], evidence_stems: frozenset[str], evidence_tokens: Sequence[Token]) -> str:
    """A word whose opposite the evidence uses instead: a listed antonym, or the same word with
    a negating prefix added or removed ("unpopular" for "popular")."""
    claim_stems = {token.norm for token in claim_tokens}
    claim_near = _near_words(claim_tokens)
    evidence_near = _near_words(evidence_tokens)
    # WordNet's antonyms are matched among the evidence's own words, never a stopword or a name
    # that shares the antonym's stem ("fore", the opposite of "after", is not the "for" of every
    # sentence nor "Fore Street").
    evidence_words = frozenset(token.norm for token in evidence_tokens if token.kind == WORD and token.content)
    # "dogs won't be allowed" says what "dogs will be banned" says: a denied word agrees with
    # its opposite (whether the "not" itself is the article's is the negation check's question).
    denied = set().union(*_negation_scopes(claim_tokens)[0])

    def about_the_same(token: Token, opposite: str) -> bool:
        # "old police station" is not contradicted by "moved to a new building": an opposite
        # counts when it is said of the same thing, i.e. shares a neighbouring word.
        return not claim_near.get(token.norm) or bool(claim_near[token.norm] & evidence_near.get(opposite, set()))

    for index, token in enumerate(claim_tokens):
        if token.norm in evidence_stems or token.kind != WORD or _is_light(token) or token.norm in denied:
            continue
        if token.norm == "old" and index and claim_tokens[index - 1].norm == "year":
            continue  # "16-to-25-year-olds" is an age, not the opposite of "young"
        for opposite in _prefix_opposites(token.norm):
            if opposite in evidence_words and opposite not in claim_stems and about_the_same(token, opposite):
                return f'The article says the opposite: "{token.raw}" where it has "{opposite}".'
        for opposite in OPPOSITES.get(token.norm, ()):
            if opposite in evidence_stems and opposite not in claim_stems and about_the_same(token, opposite):
                if {token.norm, opposite} <= _SEQUENCE_WORDS and _clauses_turned(
                    claim_tokens, index, evidence_tokens, opposite
                ):
                    continue
                return f'The article says the opposite: "{token.raw}" where it has "{OPPOSITE_RAW[opposite]}".'
        # WordNet's antonyms of the word's lemmas ("cheaper" / "expensive", "closed" / "open").
        for opposite, word in antonym_words(_bare_word(token.raw)).items():
            if opposite in evidence_words and opposite not in claim_stems and about_the_same(token, opposite):
                return f'The article says the opposite: "{token.raw}" where it has "{word}".'
    return ""


def _denied_opposite(token: Token, evidence_tokens: Sequence[Token]) -> bool:
    """The claim denies a word whose opposite the evidence states plainly: a listed antonym,
    a prefix opposite ("unchanged" for "not changed") or a WordNet antonym ("banned" for "not
    allowed")."""
    if token.kind != WORD or _is_light(token):
        return False
    evidence_stems = frozenset(other.norm for other in evidence_tokens)
    if token.norm in evidence_stems:
        return False
    evidence_words = frozenset(other.norm for other in evidence_tokens if other.kind == WORD and other.content)
    return (
        any(opposite in evidence_words for opposite in _prefix_opposites(token.norm))
        or any(opposite in evidence_stems for opposite in OPPOSITES.get(token.norm, ()))
        or any(opposite in evidence_words for opposite in antonym_words(_bare_word(token.raw)))
    )


# "A before B" says what "B after A" says.
_SEQUENCE_WORDS = frozenset({"befor", "after"})


def _clause_words(tokens: Sequence[Token], index: int, step: int) -> set[str]:
    """The content words from ``index`` towards one end of its clause (a comma or a stop ends it)."""
    words: set[str] = set()
    at = index + step
    while 0 <= at < len(tokens) and tokens[at].kind != BREAK:
        if (tokens[at].content or tokens[at].key) and not tokens[at].derived and not _is_light(tokens[at]):
            words.add(tokens[at].norm)
        at += step
    return words


def _clauses_turned(claim_tokens: Sequence[Token], index: int, evidence_tokens: Sequence[Token], opposite: str) -> bool:
    """ "trained in Bologna before opening in 2018" for "opened in 2018 after training in
    Bologna": the two events change sides with the word, so the order of events is the same. A
    claim that keeps the article's order and turns the word ("opened before training") is not."""
    at = next((place for place, token in enumerate(evidence_tokens) if token.norm == opposite), None)
    if at is None:
        return False
    claim_before, claim_after = _clause_words(claim_tokens, index, -1), _clause_words(claim_tokens, index, 1)
    evidence_before, evidence_after = _clause_words(evidence_tokens, at, -1), _clause_words(evidence_tokens, at, 1)
    crossed = claim_before & evidence_after, claim_after & evidence_before
    kept = len(claim_before & evidence_before) + len(claim_after & evidence_after)
    return all(crossed) and len(crossed[0]) + len(crossed[1]) > kept


def _near_words(tokens: Sequence[Token], span: int = 5) -> dict[str, set[str]]:
    """For each word of a sentence, the content words within ``span`` words of it."""
    words = [token for token in tokens if token.kind != BREAK and not token.derived]
    near: dict[str, set[str]] = {}
    for index, word in enumerate(words):
        around = words[max(0, index - span) : index] + words[index + 1 : index + 1 + span]
        near.setdefault(word.norm, set()).update(other.norm for other in around if other.content or other.key)
    return near


def _prefix_opposites(stem: str) -> list[str]:
    forms: list[str] = []
    for prefix in NEGATING_PREFIXES:
        if stem.startswith(prefix) and len(stem) - len(prefix) >= 4:
            forms.append(stem[len(prefix) :])
        forms.append(prefix + stem)
    return forms


def _negation_mismatch(
    claim_tokens: Sequence[Token],
    evidence_tokens: Sequence[Token],
    article_negated: frozenset[str] = frozenset(),
    *,
    texts: tuple[str, str] | None = None,
) -> str:
    """A negation on one side must meet a negation on the other over the same words.

    Each negation governs the next two content words. Where the claim negates words the
    evidence states plainly (or the reverse) the claim says the opposite; where both
    negate any of them, the paraphrase merely moved the "not".
    """
    claim_scopes, claim_plain = _negation_scopes(claim_tokens)
    evidence_scopes, evidence_plain = _negation_scopes(evidence_tokens)
    # Whether the other side negates the same words is asked of a wider reach: "has not used a
    # drop of mains water" denies the water as "no mains water" does, and "no longer has to be
    # wound by hand" what "nobody has to wind it by hand" denies.
    claim_negated = set().union(*_negation_scopes(claim_tokens, reach=_NEGATION_REACH)[0])
    evidence_negated = set().union(*_negation_scopes(evidence_tokens, reach=_NEGATION_REACH)[0])
    evidence_all = evidence_negated | evidence_plain
    claim_all = claim_negated | claim_plain
    # The evidence's negated words as tokens, so that a "not" over a paraphrase ("couldn't be
    # fixed" for "could not be mended") is the same "not".
    negated_words = [token for token in evidence_tokens if token.norm in evidence_negated and token.kind == WORD]
    by_norm = {token.norm: token for token in claim_tokens}
    ended = _ended_scopes(claim_tokens) if _told_as_before(evidence_tokens) else []
    for scope in claim_scopes:
        shared = (scope - claim_plain) & evidence_all
        if scope in ended:
            # "No more 70-minute drive" where the article says "until now ... a 70-minute
            # drive": the claim says what the news ends, which the article says was so.
            continue
        if not shared or scope & evidence_negated or scope & article_negated:
            # Negated here too, or negated in another sentence of the article ("never made
            # sense" said in the next sentence): the evidence nearest the claim lacks the
            # "not", it does not deny it.
            continue
        if any(
            by_norm[norm].kind == WORD and _paraphrased(by_norm[norm], negated_words)
            for norm in scope
            if norm in by_norm
        ):
            continue
        if any(norm in by_norm and _denied_opposite(by_norm[norm], evidence_tokens) for norm in scope):
            # "won't be allowed" for "will be banned": the "not" and the opposite cancel out.
            continue
        return _negation_message(claim_tokens, evidence_tokens, shared, texts, denied_by_claim=True)
    # "£31.50 a day, up from £28" for "£31.50 a day instead of £28": the figure the claim gives
    # as where a change started is the one the article denies is the new one.
    started_from = {
        token.norm
        for index, token in enumerate(claim_tokens)
        if token.kind == NUMBER and index and claim_tokens[index - 1].raw.lower() == "from"
    }
    for scope in evidence_scopes:
        shared = (scope - evidence_plain - started_from) & claim_all
        if shared and not scope & claim_negated:
            return _negation_message(claim_tokens, evidence_tokens, shared, texts, denied_by_claim=False)
    return ""


def _negation_message(
    claim_tokens: Sequence[Token],
    evidence_tokens: Sequence[Token],
    shared: set[str],
    texts: tuple[str, str] | None,
    *,
    denied_by_claim: bool,
) -> str:
    """Both sides quoted: 'The article says the opposite: it says "would not raise his
    prices", not "would raise his prices".'"""
    claim_text, evidence_text = texts or (reasons.text_of(claim_tokens), reasons.text_of(evidence_tokens))
    # A word names the fact better than a figure does ("caught fire", not "31").
    ours = min(
        (token for token in claim_tokens if token.norm in shared and not token.derived),
        key=lambda token: token.kind != WORD,
        default=None,
    )
    theirs = next(
        (token for token in evidence_tokens if ours is not None and token.norm == ours.norm and not token.derived),
        None,
    )
    if ours is None or theirs is None:
        return "The article says the opposite."
    if denied_by_claim:
        article, draft = reasons.span(evidence_text, theirs.raw), reasons.negated_span(claim_text, ours.raw)
    else:
        article, draft = reasons.negated_span(evidence_text, theirs.raw), reasons.span(claim_text, ours.raw)
    if article.lower() == draft.lower():
        return "The article says the opposite."
    return f'The article says the opposite: it says "{article}", not "{draft}".'


# How far a negation on the other side may stand from the words it shares with a claim's.
_NEGATION_REACH = 4

# What an article says of the way things were before its news: "until now", "had to", "ending
# six years of", "during the closure", "will no longer".
_BEFORE_NOW = (
    ("until", "now"),
    ("had", "to"),
    ("used", "to"),
    ("no", "longer"),
    ("ending",),
    ("during",),
    ("previously",),
)


def _ended_scopes(tokens: Sequence[Token]) -> list[set[str]]:
    """The words each "no more" of a claim governs ("No more 75-mile trips to Ayr"): the claim
    says something stops, not that it never was."""
    scopes, _ = _negation_scopes(tokens)
    opened = [
        index
        for index, token in enumerate(tokens)
        if token.kind == NEGATION
        and token.raw.lower() == "no"
        and index + 1 < len(tokens)
        and tokens[index + 1].raw.lower() == "more"
    ]
    if not opened:
        return []
    ended: list[set[str]] = []
    for scope_tokens in (_negation_scopes(tokens[index:])[0][:1] for index in opened):
        ended.extend(scope for scope in scope_tokens if scope in scopes)
    return ended


def _told_as_before(evidence_tokens: Sequence[Token]) -> bool:
    words = [token.raw.lower() for token in evidence_tokens]
    return any(
        tuple(words[index : index + len(marker)]) == marker for marker in _BEFORE_NOW for index in range(len(words))
    )


def _negation_scopes(tokens: Sequence[Token], *, reach: int = 2) -> tuple[list[set[str]], set[str]]:
    """The content words each negation governs (the next ``reach``), and the words outside any."""
    scopes: list[set[str]] = []
    plain: set[str] = set()
    remaining = 0
    for index, token in enumerate(tokens):
        if token.kind == NEGATION:
            following = tokens[index + 1].norm if index + 1 < len(tokens) else ""
            if token.norm in {"neither", "nor"} and following in AUXILIARIES:
                # "Neither can most of us": agrees with a "not" said before, it adds none of its own.
                remaining = 0
                continue
            scopes.append(set())
            remaining = reach
            continue
        if token.kind == BREAK or token.norm in SCOPE_BREAKERS:
            remaining = 0
            continue
        if not (token.content or token.key) or token.derived:
            continue
        if remaining:
            scopes[-1].add(token.norm)
            remaining -= 1
        else:
            plain.add(token.norm)
    return [scope for scope in scopes if scope], plain


def _verb_norms(tokens: Sequence[Token]) -> set[str]:
    """The words a sentence uses as verbs, by their form and place: a past or -ing form, a word
    after an auxiliary, "to" or a pronoun, an -s form after a name ("Trek sues Giant"). Not an
    -s word after another word: "dog classes" is a noun, whatever WordNet allows."""
    verbs: set[str] = set()
    previous: Token | None = None
    for position, token in enumerate(tokens):
        if token.kind == BREAK:
            previous = None
            continue
        word = _bare_word(token.raw)
        # "The clinic funds the scheme": an -s word between a noun and "the" is the verb.
        following_determiner = position + 1 < len(tokens) and tokens[position + 1].norm in _DETERMINERS
        if token.kind == WORD and (token.content or token.key) and not token.derived and is_verb_form(word):
            after_helper = previous is not None and (previous.norm in AUXILIARIES or previous.norm in _VERB_HELPERS)
            if after_helper and previous is not None and previous.norm in _DEMONSTRATIVES and is_noun(word):
                after_helper = False  # "this summer", "that evening": a determiner and its noun
            # "evening", "building", "meeting": an -ing word that is a noun in its own right is
            # one unless a helper makes it a verb ("we're running", "is building").
            ing_noun = word.endswith("ing") and (
                previous is None
                or previous.norm in _DETERMINERS
                or (not after_helper and word in wordnet().nouns and word not in wordnet().verbs)
            )
            if (
                PAST.search(word)
                or word in IRREGULAR
                or (word.endswith("ing") and not ing_noun)
                or after_helper
                or (word.endswith("s") and previous is not None and previous.kind == PROPER)
                or (word.endswith("s") and previous is not None and previous.content and following_determiner)
            ):
                verbs.add(token.norm)
        previous = token
    return verbs


def _swap_kind(token: Token) -> str:
    # A year is a date, not a count: "300 members ... in 2017" cannot trade "2017" for "1,400".
    if token.kind == NUMBER and re.fullmatch(r"(?:19|20)\d\d", token.norm):
        return DATE
    return PROPER if token.kind == MODEL else token.kind


def _compounds(text: str) -> frozenset[tuple[str, str]]:
    """Pairs of words joined by a hyphen ("award-winning", "council-funded"): one modifier."""
    return frozenset((left.lower(), right.lower()) for left, right in re.findall(r"([^\W\d_]+)-([^\W\d_]+)", text))


def _role_swap(
    claim_tokens: Sequence[Token],
    evidence_tokens: Sequence[Token],
    *,
    compounds: frozenset[tuple[str, str]] = frozenset(),
    sentence_of: Mapping[str, int] | None = None,
    texts: tuple[str, str] | None = None,
) -> str:
    """Catch "B <verb> A" offered for "A <verb> B": two words trading places across a third.

    Moving a whole clause ("X said Y" to "Y, X said") keeps each side's internal order and so
    never shows this pattern; exchanging subject and object does. A change of voice ("A was
    acquired by B") legitimately exchanges them, so a "by" between the pivot and the later
    word excuses it. Numbers swapped in a range ("from 20 to 10") need no pivot.
    """
    evidence_ranges = set(_ranges(evidence_tokens))
    for low, high in _ranges(claim_tokens):
        if (high, low) in evidence_ranges and (low, high) not in evidence_ranges:
            return f'The article has it from "{high}" to "{low}", not the other way round.'
    claim_words, claim_after_by = _words_marking_by(claim_tokens)
    evidence_words, evidence_after_by = _words_marking_by(evidence_tokens)
    claim_count = Counter(token.norm for token in claim_words)
    evidence_count = Counter(token.norm for token in evidence_words)
    evidence_position = {token.norm: index for index, token in enumerate(evidence_words)}
    claim_position = {token.norm: index for index, token in enumerate(claim_words)}
    # "Coming from old school gymnasiums: the maple is reclaimed": a phrase put in front of a
    # colon was moved whole; its words are not traded with the rest's.
    part: dict[str, int] = {}
    colons = 0
    for token in claim_tokens:
        if token.kind == BREAK and token.norm in {":", ";"}:
            colons += 1
        part.setdefault(token.norm, colons)
    shared = [token for token in claim_words if claim_count[token.norm] == 1 and evidence_count.get(token.norm, 0) == 1]
    positions = [evidence_position[token.norm] for token in shared]
    count = len(positions)
    # Two things of one kind trade places: two numbers ("up from £1.85" for "from £1.55"), two
    # names ("Millbrook beat Ashford"), or two words around a verb ("the dog bit the man").
    # Words of different kinds around a noun ("production ... Northern", "36 hours using
    # Millbrook Farm flour") were only reordered.
    verbs = _verb_norms(claim_tokens)
    kinds = [_swap_kind(token) for token in shared]
    pivots = [token.norm in verbs and not _is_light(token) for token in shared]
    for a in range(count):
        if not shared[a].informative:
            continue
        for c in range(a + 1, count):
            if positions[c] >= positions[a]:
                continue
            if (shared[a].raw.lower(), shared[c].raw.lower()) in compounds:
                continue  # "award-winning": a modifier, not a subject and its verb
            for b in range(c + 1, count):
                if positions[b] >= positions[c] or not shared[b].informative:
                    continue
                if shared[c].kind in {PROPER, MODEL}:
                    continue  # "Seaview's Sandra Whitlow ... English": a name is not what roles turn on
                if (kinds[a] != kinds[b] or kinds[a] == WORD) and not pivots[c]:
                    continue  # words trade roles around a verb; names and numbers around any word
                if kinds[a] != kinds[b] and (not shared[a].key or NUMBER in (kinds[a], kinds[b])):
                    # A fact and an ordinary word ("four classes went ... ask"), or a figure and
                    # a name ("212 patients were treated at Harrow Street Dental"): a count is
                    # no doer, so the two were only reordered.
                    continue
                if (
                    kinds[a] == WORD
                    and sentence_of is not None
                    and len({sentence_of.get(shared[x].norm) for x in (a, b, c)}) > 1
                ):
                    continue  # ordinary words from two sentences of the evidence: no roles between them
                if claim_position[shared[b].norm] - claim_position[shared[a].norm] > _SWAP_SPAN:
                    continue  # far apart: whole clauses moved, not a subject and object swapped
                if len({part[shared[x].norm] for x in (a, b, c)}) > 1:
                    continue
                if _agent_follows(claim_words, claim_position[shared[c].norm], claim_after_by) or _agent_follows(
                    evidence_words, positions[c], evidence_after_by
                ):
                    continue  # "B was acquired by A": the pivot's agent follows it
                if _reduced_passive(claim_tokens, shared[c].norm):
                    continue  # "412 blades sharpened on his first round": what was done to them
                if any(positions[x] in evidence_after_by for x in (a, b, c)) != any(
                    claim_position[shared[x].norm] in claim_after_by for x in (a, b, c)
                ):
                    continue  # "funded by a £40,000 grant" on one side only: the agent moved with the voice
                return _other_way_round(claim_tokens, evidence_tokens, texts, shared[a], shared[c], shared[b])
    return ""


# A verb's particle, which may stand between it and its "by": "written down by", "set up by".
def _other_way_round(
    claim_tokens: Sequence[Token],
    evidence_tokens: Sequence[Token],
    texts: tuple[str, str] | None,
    first: Token,
    pivot: Token,
    last: Token,
) -> str:
    """Who did what to whom, in the article's words and the draft's: 'it says "the council chose
    streets", not "Residents chose the streets"'. Where either side cannot be quoted as one
    short clause, plainly what the draft says that the article does not."""
    claim_text, evidence_text = texts or (reasons.text_of(claim_tokens), reasons.text_of(evidence_tokens))
    draft = reasons.between(claim_text, first.raw, last.raw)
    article = reasons.between(evidence_text, last.raw, first.raw)
    if draft and article:
        return f'The article has it the other way round: it says "{article}", not "{draft}".'
    # Too long or split by a comma as a whole: who did it, on each side ("library will lend").
    doer = reasons.between(claim_text, first.raw, pivot.raw, limit=6, after=2)
    their_doer = reasons.between(evidence_text, last.raw, pivot.raw, limit=6, after=2)
    if doer and their_doer:
        return f'The article has it the other way round: it says "{their_doer}", not "{doer}".'
    if their_doer:
        # "the restaurant was opened by Abdul and Rehana": the article's own words say who did it.
        return f'The article has it the other way round: it says "{their_doer}".'
    return f'The article doesn\'t say "{draft or reasons.span(claim_text, pivot.raw)}".'


_PARTICLES = frozenset({"down", "up", "out", "off", "over", "back", "away", "on", "in"})


def _agent_follows(words: Sequence[Token], position: int, after_by: set[int]) -> bool:
    """The verb at ``position`` is followed by its agent: "acquired by A", or past a particle,
    "written down by founder Edwin Hartley"."""
    if position + 1 in after_by:
        return True
    return position + 2 in after_by and words[position + 1].raw.lower() in _PARTICLES


# After a participle, words that start no object: "stems sold last summer", "blades sharpened on
# his first round". A determiner, a figure or a name would be its object ("sharpened 412 blades").
_PASSIVE_FOLLOWERS = frozenset(
    {"on", "in", "at", "for", "from", "with", "during", "over", "since", "after", "before", "until", "last"}
    | {"into", "across", "around", "through", "within", "locally", "here", "there", "today", "yesterday"}
)


def _reduced_passive(tokens: Sequence[Token], verb: str) -> bool:
    """ "Four hundred and twelve blades sharpened on his very first round": a past participle
    right after its noun, with no object after it, says what was done to the noun (a passive
    without "was"), so the words standing before it name no doer. "Ashford defeated Millbrook" has its
    object and stays an active verb."""
    for index, token in enumerate(tokens):
        if token.norm != verb:
            continue
        word = _bare_word(token.raw)
        previous = tokens[index - 1] if index else None
        if not (PAST.search(word) or word in IRREGULAR) or previous is None or not (previous.content or previous.key):
            return False
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        return following is None or following.kind == BREAK or following.raw.lower() in _PASSIVE_FOLLOWERS
    return False


def _voice_swap(
    claim_tokens: Sequence[Token], evidence_tokens: Sequence[Token], *, texts: tuple[str, str] | None = None
) -> str:
    """Catch an agent made into an object: "the hornet is preyed on by honeybees" where the
    article has "the hornet preys on honeybees". A true change of voice also swaps the order
    of the two words; keeping the order while adding (or dropping) "by" reverses the roles."""
    claim_text, evidence_text = texts or (reasons.text_of(claim_tokens), reasons.text_of(evidence_tokens))
    for one, other in ((claim_tokens, evidence_tokens), (evidence_tokens, claim_tokens)):
        words, after_by = _words_marking_by(one)
        other_words, other_after_by = _words_marking_by(other)
        counts = Counter(token.norm for token in words)
        other_counts = Counter(token.norm for token in other_words)
        other_position = {token.norm: index for index, token in enumerate(other_words)}
        for index in after_by:
            if index == 0:
                continue
            verb, agent = words[index - 1], words[index]
            if agent.kind == NUMBER:
                continue  # "rises by 15%": an amount, not an agent
            if not all(counts[t.norm] == 1 and other_counts.get(t.norm) == 1 for t in (verb, agent)):
                continue
            verb_at, agent_at = other_position[verb.norm], other_position[agent.norm]
            if verb_at + 1 in other_after_by:
                # "twenty of them donated by the chess club" for "20 sets donated by the club":
                # both sides give the act its agent with "by", in the same voice.
                continue
            # "made by media students": every word of the agent's phrase follows the "by".
            in_agent_phrase = any(
                start < agent_at
                and all(other_words[between].norm in agent_run for between in range(start, agent_at + 1))
                for start in other_after_by
                for agent_run in [_phrase_after(other, other_words[start].norm)]
            )
            if (
                0 < agent_at - verb_at <= 3
                and agent_at not in other_after_by
                and not in_agent_phrase
                and verb.kind == WORD
            ):
                if one is claim_tokens:
                    draft = reasons.between(claim_text, verb.raw, agent.raw) or reasons.span(claim_text, verb.raw)
                    return f'The article doesn\'t say "{draft}".'
                # The article marks the agent with "by" where the draft does not: quote the draft.
                draft = reasons.between(claim_text, agent.raw, verb.raw) or reasons.span(claim_text, agent.raw)
                return f'The article doesn\'t say "{draft}".'
    return _agents_exchanged(claim_tokens, evidence_tokens, texts=(claim_text, evidence_text))


def _agents_exchanged(
    claim_tokens: Sequence[Token], evidence_tokens: Sequence[Token], *, texts: tuple[str, str] | None = None
) -> str:
    """ "found by Neanderthals ... the researchers made it" where the article has "found by the
    researchers": the same act done by another of the sentence's actors, both named on each side."""
    words, after_by = _words_marking_by(claim_tokens)
    other_words, other_after_by = _words_marking_by(evidence_tokens)
    claim_norms = {token.norm for token in words}
    evidence_norms = {token.norm for token in other_words}
    evidence_agents = {
        other_words[index - 1].norm: other_words[index]
        for index in other_after_by
        if index and other_words[index - 1].kind == WORD
    }
    for index in after_by:
        if not index or words[index - 1].kind != WORD or words[index].kind == NUMBER:
            continue
        verb, agent = words[index - 1], words[index]
        theirs = evidence_agents.get(verb.norm)
        if (
            theirs is not None
            and theirs.kind != NUMBER
            and theirs.norm != agent.norm
            and theirs.norm in claim_norms
            and agent.norm in evidence_norms
            # "made by media students" for "made by students on the media course": one agent
            and not _agent_phrase(claim_tokens, agent.norm) & _agent_phrase(evidence_tokens, theirs.norm)
        ):
            claim_text, evidence_text = texts or (reasons.text_of(claim_tokens), reasons.text_of(evidence_tokens))
            article = reasons.between(evidence_text, verb.raw, theirs.raw, limit=6)
            draft = reasons.between(claim_text, verb.raw, agent.raw, limit=6)
            if article and draft:
                return f'The article has it the other way round: it says "{article}", not "{draft}".'
            return f"The article says it was {theirs.raw}, not {agent.raw}, who {verb.raw} it."
    return ""


def _agent_phrase(tokens: Sequence[Token], first: str) -> set[str]:
    """The phrase of ``first`` where it follows "by" ("donated by the chess club", not the
    "chess sets" said before it), else where it first stands."""
    for index, token in enumerate(tokens):
        if token.norm != "by":
            continue
        following = next((other for other in tokens[index + 1 :] if other.content or other.key), None)
        if following is not None and following.norm == first:
            return _phrase_after(tokens[index + 1 :], first)
    return _phrase_after(tokens, first)


def _phrase_after(tokens: Sequence[Token], first: str) -> set[str]:
    """The words of the phrase that starts with the word ``first``: it and the content words
    right after it ("media students" in "made by media students at the college")."""
    phrase: set[str] = set()
    for token in tokens:
        if phrase:
            if token.kind == BREAK or not (token.content or token.key):
                break
            phrase.add(token.norm)
        elif token.norm == first:
            phrase.add(token.norm)
    return phrase


def _words_marking_by(tokens: Sequence[Token]) -> tuple[list[Token], set[int]]:
    """The content words of a sentence, and the positions of those that follow a "by"."""
    words: list[Token] = []
    after_by: set[int] = set()
    pending = False
    previous = ""
    for token in tokens:
        # "were replaced with 40 cubicles" names its agent like "by" does.
        if token.norm == "by" or (token.norm == "with" and PAST.search(previous)):
            pending = True
        elif (token.content or token.key) and not token.derived:
            if pending:
                # The agent is the phrase's noun: "by a £40,000 grant" marks the amount and "grant".
                after_by.add(len(words))
                pending = token.kind == NUMBER
            words.append(token)
        previous = token.raw.lower()
    return words, after_by


def _neighbour_swap(
    claim_tokens: Sequence[Token],
    evidence_tokens: Sequence[Token],
    *,
    subjects: frozenset[str] = frozenset(),
    name_pairs: frozenset[frozenset[str]] = frozenset(),
    texts: tuple[str, str] | None = None,
) -> str:
    """Catch a word attached to the wrong partner: "Trek supplied" where the article has
    "Giant supplied", or "its star passed" where it has "the planet passed".

    For two words next to each other in the claim (function words aside), look at what
    stands next to the second one in the evidence. A claim quoted from its evidence, however
    trimmed, keeps its words in order and so never trips this. A paraphrase may move a whole
    clause, so only two cases count: a different name where the claim has a name, and a
    word in front of the claim's word that the claim puts somewhere else entirely.
    """
    claim_runs, claim_gaps = _runs_with_gaps(claim_tokens)
    claim_count = Counter(token.norm for run in claim_runs for token in run)
    claim_place = {
        token.norm: (run_index, index) for run_index, run in enumerate(claim_runs) for index, token in enumerate(run)
    }
    evidence_runs, evidence_gaps = _runs_with_gaps(evidence_tokens)
    evidence_count = Counter(token.norm for run in evidence_runs for token in run)
    before: dict[str, tuple[Token, list[Token]]] = {}
    after: dict[str, tuple[Token, list[Token]]] = {}
    # The prepositions between a word and its neighbour before it ("bookshop on Market").
    gap_before: dict[str, frozenset[str]] = {}
    # Each word's place in the evidence across punctuation: a claim that keeps a word within a
    # few words of its partner ("changed the "Custody" room" -> '"Custody" was changed') only
    # moved it.
    flat = {token.norm: index for index, token in enumerate(token for run in evidence_runs for token in run)}
    for run, run_gaps in zip(evidence_runs, evidence_gaps, strict=True):
        for index, token in enumerate(run):
            if index:
                before[token.norm] = (run[index - 1], run[max(0, index - 5) : index])
                gap_before[token.norm] = run_gaps[index]
            if index + 1 < len(run):
                after[token.norm] = (run[index + 1], run[index + 1 :])
    for run_index, run in enumerate(claim_runs):
        for index in range(len(run) - 1):
            partner, anchor = run[index], run[index + 1]
            once = claim_count[anchor.norm] == 1 and evidence_count.get(anchor.norm) == 1 and not _is_light(anchor)
            if not once or anchor.norm not in before or gap_before[anchor.norm] != claim_gaps[run_index][index + 1]:
                pass
            else:
                other, preceding = before[anchor.norm]
                # "Brightwell's Priya Nandakumar": the article's subject as an owner, not a substitute.
                owner = partner.raw.lower().endswith(("'s", "\u2019s")) and partner.norm in subjects
                # "Aisha will read" where the evidence has "Rahman will read": one person, the
                # article's "Aisha Rahman", by her first name.
                one_name = frozenset((other.norm, partner.norm)) in name_pairs
                if (
                    other.norm != partner.norm
                    and not owner
                    and not one_name
                    and _is_substitute(other, partner, preceding, claim_count)
                ):
                    return _partner_message(claim_tokens, evidence_tokens, texts, (other, anchor), (partner, anchor))
                if (
                    other.norm != partner.norm
                    and partner.norm not in {token.norm for token in preceding}
                    and not _close(flat, partner.norm, anchor.norm)
                    and other.kind == partner.kind == anchor.kind == WORD
                    and other.informative
                    and partner.informative
                    and claim_count.get(other.norm) == 1
                    and evidence_count.get(partner.norm) == 1
                    and _far_from(claim_place[other.norm], (run_index, index + 1))
                ):
                    return _bigram_message(claim_tokens, evidence_tokens, texts, other, partner, anchor, first=False)
            # A name after a word ("supplied by Trek") must be the article's name there too.
            subject, name = run[index], run[index + 1]
            if (
                claim_count[subject.norm] == 1
                and evidence_count.get(subject.norm) == 1
                and subject.norm in after
                and gap_before.get(after[subject.norm][0].norm) == claim_gaps[run_index][index + 1]
            ):
                other, following = after[subject.norm]
                owner = subject.raw.lower().endswith(("'s", "\u2019s")) and subject.norm in subjects
                one_name = frozenset((other.norm, name.norm)) in name_pairs
                if (
                    other.norm != name.norm
                    and not owner
                    and not one_name
                    and _is_substitute(other, name, following, claim_count)
                ):
                    return _partner_message(claim_tokens, evidence_tokens, texts, (subject, other), (subject, name))
                # Between ordinary words too ("the price of the multiplex", not "of the cinema").
                # The claim's "author Grace Mbeki" goes on as the article's does: quoted, only moved.
                quoted_on = (
                    index + 2 < len(run)
                    and run[index + 2].kind in {WORD, PROPER}
                    and run[index + 2].norm in {token.norm for token in after.get(name.norm, (name, []))[1][:1]}
                )
                if (
                    not quoted_on
                    and other.norm != name.norm
                    and name.norm not in {token.norm for token in following[:5]}
                    and not _close(flat, name.norm, subject.norm)
                    and subject.kind == other.kind == name.kind == WORD
                    and other.informative
                    and name.informative
                    and claim_count.get(other.norm) == 1
                    and evidence_count.get(name.norm) == 1
                    and _far_from(claim_place[other.norm], (run_index, index))
                ):
                    return _bigram_message(claim_tokens, evidence_tokens, texts, other, name, subject, first=True)
    return ""


def _bigram_message(
    claim_tokens: Sequence[Token],
    evidence_tokens: Sequence[Token],
    texts: tuple[str, str] | None,
    theirs: Token,
    ours: Token,
    anchor: Token,
    *,
    first: bool,
) -> str:
    """ "the price of the multiplex", not "of the cinema": named as a pair only when the two words
    are one in the other's place (``_pair_aligned``); "Volunteers nest" for "Volunteers counted"
    is two words that merely followed the same one, so the draft's words are quoted instead."""
    if _pair_aligned(ours, theirs, claim_tokens, evidence_tokens):
        if first:
            return f'The article says "{anchor.raw} {theirs.raw}", not "{anchor.raw} {ours.raw}".'
        return f'The article says "{theirs.raw} {anchor.raw}", not "{ours.raw} {anchor.raw}".'
    claim_text = texts[0] if texts else reasons.text_of(claim_tokens)
    return f'The article doesn\'t say "{reasons.span(claim_text, ours.raw)}".'


def _partner_message(
    claim_tokens: Sequence[Token],
    evidence_tokens: Sequence[Token],
    texts: tuple[str, str] | None,
    article_pair: tuple[Token, Token],
    draft_pair: tuple[Token, Token],
) -> str:
    """'The article says "Ms Lindqvist", not "Sophie Lindqvist's"': each side's two words as
    written there."""
    claim_text, evidence_text = texts or (reasons.text_of(claim_tokens), reasons.text_of(evidence_tokens))
    article = reasons.between(evidence_text, article_pair[0].raw, article_pair[1].raw, limit=5)
    draft = reasons.between(claim_text, draft_pair[0].raw, draft_pair[1].raw, limit=5)
    article = article or f"{article_pair[0].raw} … {article_pair[1].raw}"
    draft = draft or f"{draft_pair[0].raw} … {draft_pair[1].raw}"
    return f'The article says "{article}", not "{draft}".'


def _close(flat: Mapping[str, int], one: str, other: str, span: int = 3) -> bool:
    return one in flat and other in flat and abs(flat[one] - flat[other]) <= span


def _preposition_flip(claim_tokens: Sequence[Token], evidence_tokens: Sequence[Token]) -> str:
    """ "moved to the island" where the article has "moved off the island": the same two words,
    joined by prepositions of opposite direction."""
    evidence_runs, evidence_gaps = _runs_with_gaps(evidence_tokens)
    joined: dict[tuple[str, str], tuple[Token, Token, frozenset[str]]] = {}
    for run, gaps in zip(evidence_runs, evidence_gaps, strict=True):
        for index in range(1, len(run)):
            joined[(run[index - 1].norm, run[index].norm)] = (run[index - 1], run[index], gaps[index])
    claim_runs, claim_gaps = _runs_with_gaps(claim_tokens)
    for run, gaps in zip(claim_runs, claim_gaps, strict=True):
        for index in range(1, len(run)):
            found = joined.get((run[index - 1].norm, run[index].norm))
            if found is None:
                continue
            for ours in gaps[index] - found[2]:
                for theirs in found[2] - gaps[index]:
                    if frozenset((ours, theirs)) in _OPPOSITE_PREPOSITIONS:
                        return (
                            f'The article says "{found[0].raw} {theirs} … {found[1].raw}", '
                            f'not "{run[index - 1].raw} {ours} … {run[index].raw}".'
                        )
    return ""


_OPPOSITE_PREPOSITIONS = frozenset(
    frozenset(pair)
    for pair in (
        ("to", "from"),
        ("to", "off"),
        ("into", "out"),
        ("onto", "off"),
        ("in", "out"),
        ("up", "down"),
        ("before", "after"),
        ("above", "below"),
        ("over", "under"),
        ("with", "without"),
    )
)


def _is_substitute(other: Token, partner: Token, nearby: Sequence[Token], claim_count: Counter[str]) -> bool:
    """A name in the evidence where the claim has a different one it does not mention.

    When the claim's name stands a few words away in the evidence ("Dr Okafor of the British
    Dental Association welcomed", "fly to Faro ... and to Palma"), the claim only dropped
    the words in between.
    """
    if not (other.kind == partner.kind == PROPER) or other.norm in claim_count:
        return False
    return partner.norm not in {token.norm for token in nearby}


def _far_from(place: tuple[int, int], anchor_place: tuple[int, int]) -> bool:
    return place[0] != anchor_place[0] or abs(place[1] - anchor_place[1]) > 3


def _runs(tokens: Sequence[Token]) -> list[list[Token]]:
    """The words of a sentence (function words left out), in stretches between punctuation."""
    return _runs_with_gaps(tokens)[0]


def _runs_with_gaps(tokens: Sequence[Token]) -> tuple[list[list[Token]], list[list[frozenset[str]]]]:
    """The words of a sentence (function words left out) in stretches between punctuation and
    clause words ("if", "which", "because"), each with the prepositions just before it.

    Two words are neighbours only inside one clause, and "the bookshop on Market Street" does
    not put "Market" where "the bookshop Wren & Quill" has "Wren": the prepositions between
    two words are part of how they are related.
    """
    runs: list[list[Token]] = [[]]
    gaps: list[list[frozenset[str]]] = [[]]
    gap: set[str] = set()
    for token in tokens:
        if token.kind == BREAK or token.norm in _CLAUSE_WORDS:
            runs.append([])
            gaps.append([])
            gap = set()
        elif (token.content or token.key or token.kind == PROPER) and not token.derived:
            runs[-1].append(token)
            gaps[-1].append(frozenset(gap))
            gap = set()
        elif token.norm in _PREPOSITIONS:
            gap.add(token.norm)
    kept = [index for index, run in enumerate(runs) if run]
    return [runs[index] for index in kept], [gaps[index] for index in kept]


_CLAUSE_WORDS = frozenset(
    {"if", "when", "whenever", "because", "unless", "although", "though", "who", "which", "whose", "whom", "where"}
    # "Lloyd says the church's roof...": who said it, then what was said.
    | {"said", "says", "say", "told", "tells", "added", "adds"}
)
_PREPOSITIONS = frozenset(
    {"of", "on", "in", "at", "by", "for", "from", "to", "with", "into", "onto", "over", "under", "about", "after"}
    | {"off", "out", "up", "down", "above", "below"}
    | {"before", "near", "across", "through", "between", "against", "without", "within", "towards", "toward"}
)


def _ranges(tokens: Sequence[Token]) -> list[tuple[str, str]]:
    """The (from, to) number pairs of "from 10 to 20" phrases."""
    words = [token for token in tokens if token.kind != BREAK]
    return [
        (words[index + 1].norm, words[index + 3].norm)
        for index in range(len(words) - 3)
        if words[index].norm == "from"
        and words[index + 1].kind == NUMBER
        and words[index + 2].norm == "to"
        and words[index + 3].kind == NUMBER
    ]


def _evidence(source: SourceText, group: tuple[int, ...]) -> list[dict[str, object]]:
    return [{"sentence": index, "text": source.sentences[index]} for index in group]


def _unique(tokens: Iterable[Token]) -> list[Token]:
    seen: dict[str, Token] = {}
    for token in tokens:
        seen.setdefault(token.norm, token)
    return list(seen.values())


def _kind_words(tokens: Sequence[Token]) -> str:
    kinds = {token.kind for token in tokens}
    names = {NUMBER: "number", DATE: "date", PROPER: "name", MODEL: "model number"}
    words = sorted(names[kind] for kind in kinds if kind in names)
    label = " / ".join(words) or "term"
    return label[0].upper() + label[1:]


def _shorten(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
