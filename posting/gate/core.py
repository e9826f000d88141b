"""The factual gate, as pure functions: a draft's claims checked against the article's full text.

How a draft is judged (DESIGN.md lesson 5: the full source text, never the headline alone):

1. The source is split into numbered sentences: 0 is the headline, 1.. the body.
2. The draft is split into sentences. Hashtags, @mentions, links, emoji, calls to action
   ("Read more", "Link in bio", "What do you think?"), the sign-offs learned from the
   account's past posts (written word for word) and the account's own names and handles
   are removed. What is left is a *claim* if it has substance: a number, date, name or
   superlative, or at least three content words. Own names are not claims on their own,
   but a fact attached to them ("We at Harbour Bikes have 20 years of experience") is a
   claim like any other and needs the article's support, and a first-person statement
   must be covered word for word, because an article about the industry cannot vouch for
   the business that posts it. A claim whose subject is the business ("We supplied...")
   is unsupported when the article never names the business, however well its words match.
3. Each claim's evidence is found with BM25 over the sentences (and pairs of sentences,
   for a claim that joins two facts), reranked by how much of the claim each covers. A
   sentence of two clauses ("A asked for 7%, while B offered 4%") is checked clause by
   clause as well as whole.
4. Hard veto: every number, date, price, percentage, model number and proper noun in the
   claim must occur in its evidence after normalisation ("3.5bn" = "3,500,000,000",
   "Oct." = "October", "20%" = "20 percent"); so must any superlative ("biggest", "first").
   Only the article's main subjects (named in the headline or in two sentences or more)
   may be named in a claim whose evidence just says "the company".
5. Overlap is never proof on its own: the claim must not negate what the evidence says
   (or the reverse), must not flip a word to its opposite ("rose" for "fell"), must not
   swap the roles around a verb ("Trek sued Giant" for "Giant sued Trek"), and must not
   put a word next to the wrong partner ("Trek supplied" for "Giant supplied").
   Finally most of its words must be in the evidence (paraphrases may differ by a word).
6. Verdict: ``no_substance`` when nothing checkable is left, ``rejected`` when any claim is
   unsupported (with the reason per claim), ``passed`` otherwise.

Sentence numbers in evidence are the ones ``sentences_split`` gives the body, from 1 (the
composer cites the same numbers); 0 is the headline.

An optional ``judge`` (an LLM, wired elsewhere) decides claims whose words are only
partly covered, a paraphrase being what it understands better than word overlap; the
hard veto and the negation, opposite and role checks still apply with a judge.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from posting.gate.lexicon import (
    AUXILIARIES,
    CLAUSE_BREAK,
    CTA_LEAD,
    CTA_START,
    DASHES,
    DID_YOU_KNOW,
    FIRST_PERSON,
    IRREGULAR,
    NEGATING_PREFIXES,
    OPPOSITE_RAW,
    OPPOSITES,
    PAST,
    RELATIVE,
    SCOPE_BREAKERS,
    URL,
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

Judge = Callable[[str, list[str]], tuple[bool, str]]

PASSED = "passed"
REJECTED = "rejected"
NO_SUBSTANCE = "no_substance"

# A claim needs this much of its content covered by its evidence (see _coverage_failure).
COVERAGE_MIN = 0.75
# Sentences BM25 hands to the reranker, and how many candidates the checks may try.
RETRIEVE_TOP = 6
CHECK_TOP = 3
# Subject, verb and object sit within this many content words of each other.
_SWAP_SPAN = 7


@dataclass(frozen=True)
class ClaimResult:
    text: str
    supported: bool
    evidence: list[dict[str, object]]
    reason: str

    def as_dict(self) -> dict[str, object]:
        return {"text": self.text, "supported": self.supported, "evidence": self.evidence, "reason": self.reason}


@dataclass(frozen=True)
class GateResult:
    verdict: str
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
    judge: Judge | None = None,
) -> GateResult:
    """Judge the draft ``text`` against the article (``title`` and its full ``body``).

    ``sign_offs`` are the closing lines the business itself has used again and again (its
    learned voice, ``VoiceProfile.stats["sign_offs"]``): written verbatim in a draft they
    are the business's own standing words, not something the article has to support.
    """
    source = SourceText.build(title=title, body=body)
    claims = claims_split(text, own_names=own_names, sign_offs=sign_offs, source=source)
    if not claims:
        return GateResult(
            verdict=NO_SUBSTANCE,
            claims=[],
            reason="Nothing checkable: the draft makes no factual claim (only hype, hashtags or calls to action).",
        )
    business_named = _names_business(f"{title}\n{body}", own_names)
    results = [
        _business_claim_judge(claim, source)
        if claim.business_subject and not business_named
        else _claim_judge(claim, source, judge)
        for claim in claims
    ]
    failing = [result for result in results if not result.supported]
    if failing:
        details = "; ".join(f'"{_shorten(result.text)}": {result.reason}' for result in failing)
        return GateResult(
            verdict=REJECTED,
            claims=results,
            reason=f"{len(failing)} of {len(results)} claims not supported by the article: {details}",
        )
    return GateResult(verdict=PASSED, claims=results, reason=f"All {len(results)} claims supported by the article.")


# --------------------------------------------------------------------------- claims


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


def claims_split(
    text: str, *, own_names: Sequence[str] = (), sign_offs: Sequence[str] = (), source: SourceText | None = None
) -> list[Claim]:
    """The draft's sentences that say something checkable, cleaned of tags, links, the
    business's own sign-offs and its own names."""
    vocabulary = source.lower_vocabulary if source else frozenset()
    words = source.all_stems if source else frozenset()
    claims: list[Claim] = []
    for raw_sentence in sentences_split(_strip_decorations(_strip_sign_offs(text, sign_offs))):
        sentence = _strip_own_names(raw_sentence, own_names)
        sentence = CTA_LEAD.sub("", sentence).strip(DASHES)
        if not sentence or _is_call_to_action(sentence):
            continue
        tokens = tokenize(sentence, source_vocabulary=vocabulary, is_claim=True)
        if not _has_substance(tokens, words):
            continue
        about_business = sentence != raw_sentence.strip() or any(token.norm in FIRST_PERSON for token in tokens)
        clauses = tuple(
            Claim(text=clause, tokens=tuple(clause_tokens), about_business=about_business)
            for clause in CLAUSE_BREAK.split(sentence)
            if (clause_tokens := tokenize(clause, source_vocabulary=vocabulary, is_claim=True))
            and _has_substance(clause_tokens, words)
        )
        claims.append(
            Claim(
                text=raw_sentence.strip(),
                tokens=tuple(tokens),
                about_business=about_business,
                clauses=clauses if len(clauses) > 1 else (),
                business_subject=_business_is_subject(raw_sentence, own_names),
            )
        )
    return claims


def _business_is_subject(sentence: str, own_names: Sequence[str]) -> bool:
    """The sentence opens with the business: "We...", "Our team...", "Harbour Bikes...",
    "At Harbour Bikes we..."."""
    opening = CTA_LEAD.sub("", sentence.strip()).lstrip(DASHES).lower()
    opening = re.sub(r"^(?:here |all of us )?at ", "", opening)
    if re.match(r"(?:we|i|our|my)\b", opening):
        return True
    return any(opening.startswith(name) for name in _own_name_forms(own_names))


def _names_business(text: str, own_names: Sequence[str]) -> bool:
    lowered = text.lower()
    return any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", lowered) for name in _own_name_forms(own_names))


def _own_name_forms(own_names: Sequence[str]) -> list[str]:
    return [form for name in own_names if (form := name.strip().lstrip("@#").lower())]


def _strip_decorations(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = URL.sub(" ", text)
    # A run of tags ends a line or post: drop it. A tag inside a sentence is a word.
    text = re.sub(r"(?:\s*[#@][\w.]+)+\s*$", "", text, flags=re.MULTILINE)
    text = re.sub(r"[#@](\w)", r"\1", text)
    # An emoji often ends a sentence without a full stop ("Big news 🎉 The council...").
    text = "".join("\u0000" if _is_emoji(ch) else ch for ch in text)
    text = re.sub(r"\u0000+\s*(?=[A-Z0-9\"'])", "\n", text)
    return text.replace("\u0000", " ")


_APOSTROPHE = re.compile("['\u2019]")


def _strip_sign_offs(text: str, sign_offs: Sequence[str]) -> str:
    """Remove the business's learned sign-offs where the draft carries one word for word.

    Matching ignores case, spacing and the kind of apostrophe, but nothing else: a sign-off
    edited into a new statement ("Ride safe, 20 years of the Harbour Bikes crew") is judged
    like any other sentence, and so is one that runs on inside a sentence ("the shop said see
    you soon to 40 staff"). The cut leaves a line break so the text around it stays apart.
    """
    text = unicodedata.normalize("NFKC", text)
    cleaned = {unicodedata.normalize("NFKC", str(sign_off)).strip() for sign_off in sign_offs}
    for sign_off in sorted(filter(None, cleaned), key=len, reverse=True):
        words = [_APOSTROPHE.sub("['\u2019]", re.escape(word)) for word in sign_off.split()]
        # It must open a line or follow the end of a sentence (or an emoji), as a sign-off does.
        pattern = rf"(?:^|(?<=[^\w\s,;:]))[ \t]*{r'\s+'.join(words)}(?!\w)"
        text = re.sub(pattern, "\n", text, flags=re.IGNORECASE | re.MULTILINE)
    return text


def _is_emoji(ch: str) -> bool:
    return unicodedata.category(ch) in {"So", "Sk", "Cs", "Co"} or ch in "\u200d\ufe0f"


def _strip_own_names(sentence: str, own_names: Sequence[str]) -> str:
    for name in sorted({name.strip().lstrip("@#") for name in own_names if name.strip()}, key=len, reverse=True):
        sentence = re.sub(rf"(?<!\w)[@#]?{re.escape(name)}(?:'s)?(?!\w)", " ", sentence, flags=re.IGNORECASE)
    return " ".join(sentence.split())


def _is_call_to_action(sentence: str) -> bool:
    lowered = sentence.lower().strip(" .!?")
    has_number = bool(re.search(r"\d", lowered))
    if CTA_START.match(lowered) and not has_number:
        return True
    # A question is an invitation to talk unless it smuggles a fact ("Did you know ... 40%?").
    return sentence.rstrip().endswith("?") and not has_number and not DID_YOU_KNOW.match(lowered)


def _has_substance(tokens: Sequence[Token], source_words: frozenset[str]) -> bool:
    """A number, date, name or superlative makes a claim; so do three content words in a
    statement (a verb) or on the article's subject. "Tough times for bakers everywhere" and
    "Your dream home is waiting" are mood, not facts."""
    tokens = [token for token in tokens if not token.guessed]
    if any(token.key or token.superlative for token in tokens):
        return True
    content = {token.norm for token in tokens if token.content}
    if len(content) < 3:
        return False
    has_verb = any(
        token.norm in AUXILIARIES or token.raw.lower() in IRREGULAR or PAST.search(token.raw) for token in tokens
    )
    return has_verb or len(content & source_words) >= 2


# --------------------------------------------------------------------------- source


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
    all_stems: frozenset[str]
    # Names in the headline or in two sentences or more: what the article is about.
    subjects: frozenset[str]

    @classmethod
    def build(cls, *, title: str, body: str) -> SourceText:
        sentences = [" ".join(title.split()), *sentences_split(body)]
        lower_vocabulary = frozenset(
            word for sentence in sentences[1:] for word in re.findall(r"\b[^\W\dA-Z][\w']*", sentence)
        )
        tokens = [tokenize(sentence, source_vocabulary=lower_vocabulary) for sentence in sentences]
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
            all_stems=frozenset().union(*stems),
            subjects=_subjects(tokens),
        )

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
    """Names in the headline or in two sentences or more, with the rest of their full names
    ("Peter" of "Peter Lowe", once the article goes on to say "Lowe")."""
    mentions: Counter[str] = Counter()
    chains: list[list[str]] = []
    for index, sentence_tokens in enumerate(tokens):
        names = {token.norm for token in sentence_tokens if token.kind in {PROPER, MODEL}}
        mentions.update(dict.fromkeys(names, 2 if index == 0 else 1))
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


@dataclass(frozen=True)
class _Candidate:
    indexes: tuple[int, ...]
    score: float


def _claim_judge(claim: Claim, source: SourceText, judge: Judge | None) -> ClaimResult:
    result = _claim_judge_one(claim, source, judge)
    if not result.supported or not claim.clauses:
        return result
    evidence = list(result.evidence)
    for clause in claim.clauses:
        clause_result = _claim_judge_one(clause, source, judge)
        if not clause_result.supported:
            return ClaimResult(
                text=claim.text,
                supported=False,
                evidence=clause_result.evidence,
                reason=f'In "{_shorten(clause.text, 60)}": {clause_result.reason}',
            )
        evidence.extend(item for item in clause_result.evidence if item not in evidence)
    return ClaimResult(text=claim.text, supported=True, evidence=evidence, reason=result.reason)


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
        reason="A statement about the business itself that the article does not make (it never names the business).",
    )


def _claim_judge_one(claim: Claim, source: SourceText, judge: Judge | None) -> ClaimResult:
    if not any(source.sentences[1:]):
        return ClaimResult(
            text=claim.text, supported=False, evidence=[], reason="The article has no text to check against."
        )
    candidates = _candidates(claim, source)
    if not candidates:
        # Nothing to cite; still say which of the claim's facts are missing, when any are.
        failure = _failure(claim, source, (), None)
        reason = failure.message if failure and failure.message.endswith("not in the evidence.") else ""
        return ClaimResult(
            text=claim.text,
            supported=False,
            evidence=[],
            reason=reason.replace("the evidence", "the article") or "Nothing in the article matches this claim.",
        )
    failures: list[_Failure] = []
    for candidate in candidates[:CHECK_TOP]:
        failure = _failure(claim, source, candidate.indexes, judge)
        if failure is None:
            return ClaimResult(
                text=claim.text,
                supported=True,
                evidence=_evidence(source, candidate.indexes),
                reason="Supported by the cited sentences.",
            )
        failures.append(failure)
        if failure.contradiction:
            # The best evidence contradicts the claim: a weaker match elsewhere must not outvote it.
            break
    return ClaimResult(
        text=claim.text,
        supported=False,
        evidence=_evidence(source, candidates[0].indexes),
        reason=failures[0].message,
    )


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
    # A pair must earn its place: on a tie the single sentence is the better evidence.
    return (covered / total if total else 0.0) - 0.02 * (len(group) - 1)


def _group_stems(source: SourceText, group: tuple[int, ...]) -> frozenset[str]:
    return frozenset().union(*(source.stems[index] for index in group))


def _failure(claim: Claim, source: SourceText, group: tuple[int, ...], judge: Judge | None) -> _Failure | None:
    """Why this evidence does not support the claim, or None when it does."""
    stems = _group_stems(source, group)
    evidence_tokens = [token for index in group for token in source.tokens[index]]

    # The article's main subjects (named in the headline, or in two sentences or more) may
    # be named in a claim whose evidence only says "the company" or "the charity".
    missing = [
        token
        for token in _unique(claim.tokens)
        if token.key
        and token.norm not in stems
        and not (token.kind in {PROPER, MODEL} and token.norm in source.subjects)
    ]
    if missing:
        listed = ", ".join(f'"{token.raw}"' for token in missing[:4])
        return _Failure(f"{_kind_words(missing)} {listed} not in the evidence.")
    superlative = _superlative_unsupported(claim.tokens, evidence_tokens)
    if superlative:
        return _Failure(superlative)
    shifted = _relative_date_shift(claim.tokens, stems)
    if shifted:
        return _Failure(shifted, contradiction=True)
    contradiction = (
        _opposite(claim.tokens, stems)
        or _negation_mismatch(claim.tokens, evidence_tokens)
        or _role_swap(claim.tokens, evidence_tokens)
        or _voice_swap(claim.tokens, evidence_tokens)
        or _neighbour_swap(claim.tokens, evidence_tokens)
    )
    if contradiction:
        return _Failure(contradiction, contradiction=True)
    coverage_failure = _coverage_failure(claim, stems, source.subjects)
    if judge is None:
        return _Failure(coverage_failure) if coverage_failure else None
    try:
        supported, reason = judge(claim.text, [source.sentences[index] for index in group])
    except Exception:
        # A broken judge must not sink the gate: its own checks stand alone.
        return _Failure(coverage_failure) if coverage_failure else None
    if not supported:
        return _Failure(f"Judge: {reason}" if reason else "The judge found the claim unsupported.", contradiction=True)
    return None


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


def _superlative_unsupported(claim_tokens: Sequence[Token], evidence_tokens: Sequence[Token]) -> str:
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
            return f'Superlative "{token.raw}" not in the article\'s words.'
        following = claim_words[index + 1].norm if index + 1 < len(claim_words) else ""
        if token.norm not in {"most", "least"}:
            continue
        # "most" and "least" make a superlative of the next word, which must be the article's too.
        if following and following not in evidence_next[token.norm] and "" not in evidence_next[token.norm]:
            return f'The article does not say "{token.raw} {claim_words[index + 1].raw}".'
    return ""


def _coverage_failure(claim: Claim, stems: frozenset[str], subjects: frozenset[str]) -> str:
    content = {token.norm: token for token in claim.tokens if token.content and not token.derived}
    if not content:
        return ""
    uncovered = [
        token
        for norm, token in content.items()
        if norm not in stems and not (token.kind in {PROPER, MODEL} and norm in subjects)
    ]
    covered = len(content) - len(uncovered)
    if claim.about_business and uncovered:
        return f'A statement about the business itself that the article does not make ("{uncovered[0].raw}").'
    if covered / len(content) >= COVERAGE_MIN or len(uncovered) <= 1:
        return ""
    listed = ", ".join(f'"{token.raw}"' for token in uncovered[:4])
    return f"Not in the article: {listed} (only {covered} of {len(content)} words are)."


def _opposite(claim_tokens: Sequence[Token], evidence_stems: frozenset[str]) -> str:
    """A word whose opposite the evidence uses instead: a listed antonym, or the same word with
    a negating prefix added or removed ("unpopular" for "popular")."""
    claim_stems = {token.norm for token in claim_tokens}
    for token in claim_tokens:
        if token.norm in evidence_stems or token.kind != WORD:
            continue
        for opposite in _prefix_opposites(token.norm):
            if opposite in evidence_stems and opposite not in claim_stems:
                return f'The article says the opposite: "{token.raw}" where it has "{opposite}".'
        for opposite in OPPOSITES.get(token.norm, ()):
            if opposite in evidence_stems and opposite not in claim_stems:
                return f'The article says the opposite: "{token.raw}" where it has "{OPPOSITE_RAW[opposite]}".'
    return ""


def _prefix_opposites(stem: str) -> list[str]:
    forms: list[str] = []
    for prefix in NEGATING_PREFIXES:
        if stem.startswith(prefix) and len(stem) - len(prefix) >= 4:
            forms.append(stem[len(prefix) :])
        forms.append(prefix + stem)
    return forms


def _negation_mismatch(claim_tokens: Sequence[Token], evidence_tokens: Sequence[Token]) -> str:
    """A negation on one side must meet a negation on the other over the same words.

    Each negation governs the next two content words. Where the claim negates words the
    evidence states plainly (or the reverse) the claim says the opposite; where both
    negate any of them, the paraphrase merely moved the "not".
    """
    claim_scopes, claim_plain = _negation_scopes(claim_tokens)
    evidence_scopes, evidence_plain = _negation_scopes(evidence_tokens)
    claim_negated = set().union(*claim_scopes)
    evidence_negated = set().union(*evidence_scopes)
    evidence_all = evidence_negated | evidence_plain
    claim_all = claim_negated | claim_plain
    for scope in claim_scopes:
        shared = (scope - claim_plain) & evidence_all
        if shared and not scope & evidence_negated:
            return "The claim negates what the article states."
    for scope in evidence_scopes:
        shared = (scope - evidence_plain) & claim_all
        if shared and not scope & claim_negated:
            return "The article negates what the claim states."
    return ""


def _negation_scopes(tokens: Sequence[Token]) -> tuple[list[set[str]], set[str]]:
    """The content words each negation governs (the next two), and the words outside any."""
    scopes: list[set[str]] = []
    plain: set[str] = set()
    remaining = 0
    for token in tokens:
        if token.kind == NEGATION:
            scopes.append(set())
            remaining = 2
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


def _role_swap(claim_tokens: Sequence[Token], evidence_tokens: Sequence[Token]) -> str:
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
    shared = [token for token in claim_words if claim_count[token.norm] == 1 and evidence_count.get(token.norm, 0) == 1]
    positions = [evidence_position[token.norm] for token in shared]
    count = len(positions)
    for a in range(count):
        if not shared[a].informative:
            continue
        for c in range(a + 1, count):
            if positions[c] >= positions[a]:
                continue
            for b in range(c + 1, count):
                if positions[b] >= positions[c] or not shared[b].informative:
                    continue
                if claim_position[shared[b].norm] - claim_position[shared[a].norm] > _SWAP_SPAN:
                    continue  # far apart: whole clauses moved, not a subject and object swapped
                if claim_position[shared[c].norm] + 1 in claim_after_by or positions[c] + 1 in evidence_after_by:
                    continue  # "B was acquired by A": the pivot's agent follows it
                return (
                    f'Roles swapped: the article has "{shared[b].raw}" before "{shared[c].raw}" '
                    f'before "{shared[a].raw}".'
                )
    return ""


def _voice_swap(claim_tokens: Sequence[Token], evidence_tokens: Sequence[Token]) -> str:
    """Catch an agent made into an object: "the hornet is preyed on by honeybees" where the
    article has "the hornet preys on honeybees". A true change of voice also swaps the order
    of the two words; keeping the order while adding (or dropping) "by" reverses the roles."""
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
            if not all(counts[t.norm] == 1 and other_counts.get(t.norm) == 1 for t in (verb, agent)):
                continue
            verb_at, agent_at = other_position[verb.norm], other_position[agent.norm]
            if 0 < agent_at - verb_at <= 3 and agent_at not in other_after_by and verb.kind == WORD:
                return f'Roles swapped: "{agent.raw}" does the "{verb.raw}" on one side and receives it on the other.'
    return ""


def _words_marking_by(tokens: Sequence[Token]) -> tuple[list[Token], set[int]]:
    """The content words of a sentence, and the positions of those that follow a "by"."""
    words: list[Token] = []
    after_by: set[int] = set()
    pending = False
    for token in tokens:
        if token.norm == "by":
            pending = True
        elif (token.content or token.key) and not token.derived:
            if pending:
                after_by.add(len(words))
                pending = False
            words.append(token)
    return words, after_by


def _neighbour_swap(claim_tokens: Sequence[Token], evidence_tokens: Sequence[Token]) -> str:
    """Catch a word attached to the wrong partner: "Trek supplied" where the article has
    "Giant supplied", or "its star passed" where it has "the planet passed".

    For two words next to each other in the claim (function words aside), look at what
    stands next to the second one in the evidence. A claim quoted from its evidence, however
    trimmed, keeps its words in order and so never trips this. A paraphrase may move a whole
    clause, so only two cases count: a different name where the claim has a name, and a
    word in front of the claim's word that the claim puts somewhere else entirely.
    """
    claim_runs = _runs(claim_tokens)
    claim_count = Counter(token.norm for run in claim_runs for token in run)
    claim_place = {
        token.norm: (run_index, index) for run_index, run in enumerate(claim_runs) for index, token in enumerate(run)
    }
    evidence_runs = _runs(evidence_tokens)
    evidence_count = Counter(token.norm for run in evidence_runs for token in run)
    before: dict[str, tuple[Token, list[Token]]] = {}
    after: dict[str, tuple[Token, list[Token]]] = {}
    for run in evidence_runs:
        for index, token in enumerate(run):
            if index:
                before[token.norm] = (run[index - 1], run[max(0, index - 5) : index])
            if index + 1 < len(run):
                after[token.norm] = (run[index + 1], run[index + 1 :])
    for run_index, run in enumerate(claim_runs):
        for index in range(len(run) - 1):
            partner, anchor = run[index], run[index + 1]
            once = claim_count[anchor.norm] == 1 and evidence_count.get(anchor.norm) == 1
            if not once or anchor.norm not in before:
                pass
            else:
                other, preceding = before[anchor.norm]
                if other.norm != partner.norm and _is_substitute(other, partner, preceding, claim_count):
                    return f'The article says "{other.raw}", not "{partner.raw}", before "{anchor.raw}".'
                if (
                    other.norm != partner.norm
                    and other.kind == partner.kind == WORD
                    and other.informative
                    and partner.informative
                    and claim_count.get(other.norm) == 1
                    and evidence_count.get(partner.norm) == 1
                    and _far_from(claim_place[other.norm], (run_index, index + 1))
                ):
                    return (
                        f'Roles swapped: the article has "{other.raw} {anchor.raw}", not "{partner.raw} {anchor.raw}".'
                    )
            # A name after a word ("supplied by Trek") must be the article's name there too.
            subject, name = run[index], run[index + 1]
            if claim_count[subject.norm] == 1 and evidence_count.get(subject.norm) == 1 and subject.norm in after:
                other, following = after[subject.norm]
                if other.norm != name.norm and _is_substitute(other, name, following, claim_count):
                    return f'The article says "{other.raw}", not "{name.raw}", after "{subject.raw}".'
                # Between ordinary words too ("the price of the multiplex", not "of the cinema").
                if (
                    other.norm != name.norm
                    and subject.kind == other.kind == name.kind == WORD
                    and other.informative
                    and name.informative
                    and claim_count.get(other.norm) == 1
                    and evidence_count.get(name.norm) == 1
                    and _far_from(claim_place[other.norm], (run_index, index))
                ):
                    return (
                        f'Roles swapped: the article has "{subject.raw} {other.raw}", not "{subject.raw} {name.raw}".'
                    )
    return ""


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
    runs: list[list[Token]] = [[]]
    for token in tokens:
        if token.kind == BREAK:
            runs.append([])
        elif (token.content or token.key or token.kind == PROPER) and not token.derived:
            runs[-1].append(token)
    return [run for run in runs if run]


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
