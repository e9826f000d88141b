"""Leave-one-split-out for relevance (issue 10): each mechanism of posting/composer/relevance.py
switched off in turn, scored on every split of tests/data/compose; then the thresholds chosen on
all splits but one and scored on the one left out.

    DJANGO_DEBUG=1 .venv/bin/python scripts/relevance_loso.py [--mechanisms] [--thresholds] [--split S ...]
    DJANGO_DEBUG=1 .venv/bin/python scripts/relevance_loso.py --meaning [--dump-meaning F | --load-meaning F]
    DJANGO_DEBUG=1 .venv/bin/python scripts/relevance_loso.py --precision [--dump-meaning F | --load-meaning F]
    DJANGO_DEBUG=1 .venv/bin/python scripts/relevance_loso.py --contrast [--alone-contrast] [--share-floor] \
        [--dump-meaning F | --load-meaning F] [--dump-cross G | --load-cross G]

Relevance only (no drafts): the numbers were the ones ``compose_eval`` prints in its precision and
recall columns until session 16; since then these study the rules, whose verdict and signals the
weighing reads (``weighing.py``; its own leave-one-split-out is ``scripts/relevance_fit.py``).
A mechanism is switched off by setting its constant to a neutral value or by
replacing its helper for the run; nothing is written. ``--mechanisms`` and ``--thresholds`` study
the words alone (the sentence model aside); ``--meaning`` scores every split with words alone and
with meaning, then chooses COMBINED_MIN and MEANING_ALONE_MIN leave-one-split-out (embedding
every split takes some minutes on one core: ``--dump-meaning`` keeps the scores for a rerun).
``--precision`` (the precision round) scores, the same way, rules that might keep off-topic
articles out without costing recall: meaning alone only with the words' evidence or some share,
closeness as a margin over the business's closeness to news in general (every other split's
articles), closeness to the industry line; and what the two thresholds alone trade. ``--cross``
adds the one measure of precision no round has tuned on: every business against every other
split's articles (none written for it; a few on topic all the same), with the articles let in.
``--contrast`` (the trade-contrast round) holds back articles let in on the words' evidence that are
closer to another trade of the bundled taxonomy than to the business's own (``contrast.py``): what
its threshold trades on the labels and on the other splits' articles, against the combined
threshold's own trade, and the threshold chosen leave-one-split-out. ``--alone-contrast`` (precision
round 2, twelve splits) sets that against the same contrast applied to admissions by meaning alone
only, the meaning-alone bar and the combined threshold, each chosen the same way. ``--share-floor``
(precision round 3, thirteen splits) chooses the words' share floor on the combined path the same way.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django
import numpy as np

django.setup()

from posting import semantic  # noqa: E402
from posting.composer import relevance as rel  # noqa: E402
from posting.composer.checking import article_file_load, business_file_load, business_topic  # noqa: E402
from posting.composer.contrast import ALONE_CONTRAST_MIN, CONTRAST_MIN, trade_contrast  # noqa: E402
from posting.composer.evaluation import DATA_DIR, HELD_OUT_SPLITS, splits_present  # noqa: E402
from posting.composer.meaning import BusinessMeaning, article_vectors, closeness  # noqa: E402

# Held out: scored by the coordinator only, through ``make eval-compose``, never read here
# (``evaluation.HELD_OUT_SPLITS``). blind26 to blind29 were read at the start of session 16 (the
# relevance weighing); blind30 and blind31, written then, took their place.
HELD_OUT: frozenset[str] = HELD_OUT_SPLITS
# The tuned-on splits, oldest first.
SPLITS = [split for split in splits_present() if split not in HELD_OUT]


def _split_load(split: str) -> list[tuple[Any, list[Any], set[str]]]:
    root = DATA_DIR / split
    labels = json.loads((root / "labels.json").read_text())
    articles = [article_file_load(path) for path in sorted((root / "articles").glob("*.txt"))]
    return [
        (business_file_load(root / "businesses" / f"{slug}.json"), articles, set(label.get("relevant", [])))
        for slug, label in sorted(labels.items())
        if not slug.startswith("_")
    ]


def _counts(data: list[tuple[Any, list[Any], set[str]]]) -> tuple[int, int, int]:
    tp = fp = fn = 0
    for business, articles, wanted in data:
        topic = business_topic(business, meaning=False)
        chosen = {a.name for a in articles if rel.relevance_score(topic=topic, title=a.title, body=a.body).relevant}
        tp += len(chosen & wanted)
        fp += len(chosen - wanted)
        fn += len(wanted - chosen)
    return tp, fp, fn


def _pr(tp: int, fp: int, fn: int) -> tuple[float, float]:
    return (tp / (tp + fp) if tp + fp else 1.0), (tp / (tp + fn) if tp + fn else 1.0)


def _loso_row(name: str, total: list[int], worst: list[float], most: str) -> None:
    """One leave-one-split-out table row: right, wrong, missed, pooled and worst precision and
    recall, other splits' articles let in, and the settings the folds chose most."""
    p, r = _pr(*total[:3])
    print(
        f"| {name} | {total[0]} | {total[1]} | {total[2]} | {p:.3f} | {r:.3f} | {worst[0]:.3f} | {worst[1]:.3f} "
        f"| {total[3]} | {most} |",
        flush=True,
    )


@contextmanager
def _patched(changes: dict[str, Any]) -> Iterator[None]:
    saved = {name: getattr(rel, name) for name in changes}
    for name, value in changes.items():
        setattr(rel, name, value)
    rel._story_print.cache_clear()
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(rel, name, value)


# Each mechanism, and the change that switches it off (a neutral constant or a helper that does nothing).
MECHANISMS: dict[str, dict[str, Any]] = {
    "a post's story (POST_STORY_MIN_WORDS)": {"POST_STORY_MIN_WORDS": 10**6},
    "the industry line's phrase": {"_industry_phrases": lambda industry: frozenset()},
    "three trade words at 0.7": {"VERY_STRONG_MATCH_FACTOR": rel.STRONG_MATCH_FACTOR},
    "two trade words at 0.9": {"STRONG_MATCH_FACTOR": 1.0, "VERY_STRONG_MATCH_FACTOR": 1.0},
    "posts bear out the named trade": {
        "_vocabularies_confirmed": lambda industry, posts: tuple(
            dict.fromkeys(t for ts in rel.industry_vocabularies(industry).values() for t in ts)
        )
    },
    "own name as a phrase": {"_name_phrases": lambda name: []},
    "trade guessed from the posts": {"vocabularies_used_in": lambda *a, **k: ()},
    "sign-off lines are formulas": {"_formulas": lambda posts: {}},
    "a word in our sense (its company)": {"_in_our_sense": lambda *a: True},
    "word families": {"word_family": lambda stem: stem},
    "subject words from most posts": {"SUBJECT_MIN_POSTS": 10**6},
    "own-words threshold 0.08 (-> 0.14)": {"RELEVANT_MIN_OWN_WORDS": rel.RELEVANT_MIN},
    "evidence weight 0.5 (-> 0.35)": {"EVIDENCE_MIN": 0.35},
    "title weight 2 (-> 1)": {"TITLE_WEIGHT": 1.0},
    "key terms 30 (-> 40)": {"KEY_TERMS": 40},
}


def mechanisms(splits: list[str]) -> None:
    data = {split: _split_load(split) for split in splits}
    base = {split: _counts(data[split]) for split in splits}
    print("| switched off | " + " | ".join(splits) + " | all |")
    print("| --- |" + " --- |" * (len(splits) + 1))

    def row(name: str, counts: dict[str, tuple[int, int, int]]) -> None:
        cells = []
        for split in splits:
            p, r = _pr(*counts[split])
            bp, br = _pr(*base[split])
            cell = f"{p:.3f}/{r:.3f}"
            cells.append(cell if (p, r) == (bp, br) or name == "none (main)" else f"**{cell}**")
        total = tuple(sum(c[i] for c in counts.values()) for i in range(3))
        p, r = _pr(*total)
        print(f"| {name} | " + " | ".join(cells) + f" | {p:.3f}/{r:.3f} |", flush=True)

    row("none (main)", base)
    for name, changes in MECHANISMS.items():
        if not all(hasattr(rel, attribute) for attribute in changes):
            continue  # removed from relevance.py since
        with _patched(changes):
            row(name, {split: _counts(data[split]) for split in splits})


@dataclasses.dataclass
class Pair:
    split: str
    score: float
    enough: bool
    factor: float  # the share of the threshold this article needs (1, 0.9 or 0.7 class)
    own_words: bool  # the business is on the own-words threshold
    wanted: bool
    terms: int = 0  # how many words the business's topic holds
    business: str = ""


def _pairs(splits: list[str]) -> list[Pair]:
    """Each (business, article) with what the threshold decision needs, so thresholds can be
    varied without scoring again: relevant = enough and score >= threshold * factor."""
    pairs = []
    for split in splits:
        for business, articles, wanted in _split_load(split):
            topic = business_topic(business, meaning=False)
            own = topic.threshold == rel.RELEVANT_MIN_OWN_WORDS
            for a in articles:

                def probe(threshold: float, topic: Any = topic, a: Any = a) -> bool:
                    shifted = dataclasses.replace(topic, threshold=threshold)
                    return rel.relevance_score(topic=shifted, title=a.title, body=a.body).relevant

                score = rel.relevance_score(topic=topic, title=a.title, body=a.body).score
                enough = probe(0.0)
                factor = 1.0
                if enough and score > 0 and probe(score / 0.95):
                    factor = 0.9
                    if probe(score / 0.8):
                        factor = 0.7
                pairs.append(Pair(split, score, enough, factor, own, a.name in wanted, len(topic.terms), business.name))
    return pairs


def _decide(pairs: list[Pair], t: float, t_own: float, f2: float, f3: float) -> tuple[int, int, int]:
    tp = fp = fn = 0
    for p in pairs:
        base = t_own if p.own_words else t
        share = {1.0: 1.0, 0.9: f2, 0.7: f3}[p.factor]
        chosen = p.enough and p.score >= base * share
        tp += chosen and p.wanted
        fp += chosen and not p.wanted
        fn += (not chosen) and p.wanted
    return tp, fp, fn


def _objective(counts: tuple[int, int, int]) -> float:
    # Both targets: the smaller margin over its target (precision 0.9, recall 0.8), then F1.
    p, r = _pr(*counts)
    return min(p - 0.9, r - 0.8) + 0.001 * (2 * p * r / (p + r) if p + r else 0)


GRID = {
    "t": [0.10, 0.11, 0.12, 0.13, 0.14, 0.15, 0.16, 0.18],
    "t_own": [0.06, 0.07, 0.08, 0.09, 0.10, 0.12],
    "f2": [0.7, 0.8, 0.9, 1.0],
    "f3": [0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
}


def thresholds(splits: list[str]) -> None:
    pairs = _pairs(splits)
    combos = [c for c in itertools.product(*GRID.values()) if c[3] <= c[2]]
    print("| held out | chosen on the others (threshold, own words, two, three) | precision | recall | as is |")
    print("| --- | --- | --- | --- | --- |")
    total = [0, 0, 0]
    main_total = [0, 0, 0]
    for held in splits:
        train = [p for p in pairs if p.split != held]
        test = [p for p in pairs if p.split == held]
        best = max(combos, key=lambda c: (_objective(_decide(train, *c)), c == (0.14, 0.08, 0.9, 0.7)))
        counts = _decide(test, *best)
        main = _decide(test, 0.14, 0.08, 0.9, 0.7)
        for i in range(3):
            total[i] += counts[i]
            main_total[i] += main[i]
        p, r = _pr(*counts)
        mp, mr = _pr(*main)
        print(f"| {held} | {best} | {p:.3f} | {r:.3f} | {mp:.3f}/{mr:.3f} |", flush=True)
    p, r = _pr(*total)
    mp, mr = _pr(*main_total)
    print(f"| all, pooled | | {p:.3f} | {r:.3f} | {mp:.3f}/{mr:.3f} |")
    best_all = max(combos, key=lambda c: (_objective(_decide(pairs, *c)), c == (0.14, 0.08, 0.9, 0.7)))
    print(f"chosen on every split: {best_all} -> {_pr(*_decide(pairs, *best_all))}")


@dataclasses.dataclass
class MeaningPair:
    split: str
    business: str
    article: str
    wanted: bool
    words_relevant: bool  # the words alone's decision (their thresholds as they are)
    share: float  # the words' share
    evidence: bool  # the words' evidence
    meaning: float
    # The business's closeness to news in general: the 90th percentile of its closeness to every
    # article of the other splits (none of them about it). The precision round's background.
    background: float = 0.0
    # The mean cosine of the article's two closest passages to the industry line (None: blank).
    industry: float | None = None
    # The article's closeness to the business's own trade minus the nearest other trade's
    # (contrast.py; None: no taxonomy or no posts).
    contrast: float | None = None
    # Closeness with the industry line and own names read as posts (recall round 3): what the
    # combined path reads since (None: the business gave neither, or a file dumped before).
    described: float | None = None


def _near(p: MeaningPair | CrossPair) -> float:
    # The closeness the combined path reads: with the industry line and own names as posts.
    return p.described if p.described is not None else p.meaning


def _meaning_pairs(splits: list[str]) -> list[MeaningPair]:
    pairs = []
    posts: dict[tuple[str, str], Any] = {}
    articles: dict[tuple[str, str], Any] = {}
    for split in splits:
        for business, split_articles, wanted in _split_load(split):
            topic = business_topic(business)
            industry = semantic.embed_batch([business.industry]) if business.industry.strip() else None
            if topic.meaning is not None:
                posts[(split, business.name)] = topic.meaning.vectors
            for a in split_articles:
                vectors = article_vectors(title=a.title, body=a.body)
                articles[(split, a.name)] = vectors
                words = rel._words_score(topic=topic, title=a.title, body=a.body)
                both = rel.relevance_score(topic=topic, title=a.title, body=a.body, vectors=vectors)
                close = closeness(topic.meaning, vectors) if topic.meaning is not None and vectors is not None else None
                near_industry = None
                if industry is not None and vectors is not None and len(vectors):
                    near_industry = float(np.sort((vectors @ industry.T).ravel())[-2:].mean())
                pairs.append(
                    MeaningPair(
                        split,
                        business.name,
                        a.name,
                        a.name in wanted,
                        words.relevant,
                        words.score,
                        words.evidence,
                        both.meaning if both.meaning is not None else 0.0,
                        industry=near_industry,
                        contrast=_contrast(business.industry, topic, vectors),
                        described=close.described if close is not None else None,
                    )
                )
        print(f"{split}: {len(pairs)} pairs", file=sys.stderr, flush=True)
    background = {
        key: float(
            np.percentile(
                [
                    closeness(BusinessMeaning(vectors, ("",) * len(vectors)), v).score
                    for (s, _), v in articles.items()
                    if s != key[0] and v is not None
                ]
                or [0.0],
                90,
            )
        )
        for key, vectors in posts.items()
    }
    for pair in pairs:
        pair.background = background.get((pair.split, pair.business), 0.0)
    return pairs


def _contrast(industry: str, topic: Any, vectors: Any) -> float | None:
    if topic.meaning is None or vectors is None:
        return None
    found = trade_contrast(industry=industry, business=topic.meaning, vectors=vectors)
    return found.margin if found is not None else None


def _meaning_decide(pairs: list[MeaningPair], combined: float, alone: float) -> tuple[int, int, int]:
    tp = fp = fn = 0
    for p in pairs:
        chosen = (p.evidence and (p.share + _near(p)) / 2 >= combined) or p.meaning >= alone
        tp += chosen and p.wanted
        fp += chosen and not p.wanted
        fn += (not chosen) and p.wanted
    return tp, fp, fn


MEANING_GRID = {
    "combined": [round(0.20 + 0.01 * i, 2) for i in range(11)],
    "alone": [0.40, 0.42, 0.45, 0.48, 0.50, 0.55, 9.0],  # 9: no meaning-alone rule
}


def meaning(splits: list[str], pairs: list[MeaningPair]) -> None:
    shipped = (rel.COMBINED_MIN, rel.MEANING_ALONE_MIN)
    print("| split | words alone: precision | recall | with meaning (as shipped): precision | recall |")
    print("| --- | --- | --- | --- | --- |")
    for split in [*splits, "all"]:
        some = [p for p in pairs if split in ("all", p.split)]
        words = (
            sum(p.words_relevant and p.wanted for p in some),
            sum(p.words_relevant and not p.wanted for p in some),
            sum(not p.words_relevant and p.wanted for p in some),
        )
        wp, wr = _pr(*words)
        mp, mr = _pr(*_meaning_decide(some, *shipped))
        print(f"| {split} | {wp:.3f} | {wr:.3f} | {mp:.3f} | {mr:.3f} |")
    combos = list(itertools.product(*MEANING_GRID.values()))
    print()
    print("| held out | chosen on the others (combined, meaning alone) | precision | recall | as shipped |")
    print("| --- | --- | --- | --- | --- |")
    total = [0, 0, 0]
    for held in splits:
        train = [p for p in pairs if p.split != held]
        test = [p for p in pairs if p.split == held]
        best = max(combos, key=lambda c: (_objective(_meaning_decide(train, *c)), c == shipped))
        counts = _meaning_decide(test, *best)
        for i in range(3):
            total[i] += counts[i]
        p, r = _pr(*counts)
        sp, sr = _pr(*_meaning_decide(test, *shipped))
        print(f"| {held} | {best} | {p:.3f} | {r:.3f} | {sp:.3f}/{sr:.3f} |", flush=True)
    p, r = _pr(*total)
    print(f"| all, pooled | | {p:.3f} | {r:.3f} | |")
    best_all = max(combos, key=lambda c: (_objective(_meaning_decide(pairs, *c)), c == shipped))
    print(f"chosen on every split: {best_all} -> {_pr(*_meaning_decide(pairs, *best_all))}")


Rule = Callable[..., bool]


def _rule_counts(pairs: list[MeaningPair], rule: Rule, params: tuple[float, ...]) -> tuple[int, int, int]:
    tp = fp = fn = 0
    for p in pairs:
        chosen = rule(p, *params)
        tp += chosen and p.wanted
        fp += chosen and not p.wanted
        fn += (not chosen) and p.wanted
    return tp, fp, fn


def _summed(counts: Iterable[tuple[int, int, int]]) -> tuple[int, int, int]:
    tp = fp = fn = 0
    for a, b, c in counts:
        tp, fp, fn = tp + a, fp + b, fn + c
    return tp, fp, fn


def _rule_loso(
    splits: list[str], pairs: list[MeaningPair], rule: Rule, grid: list[list[float]], shipped: tuple[float, ...]
) -> tuple[tuple[int, int, int], list[tuple[str, tuple[float, ...], tuple[int, int, int]]]]:
    """Each split held out in turn, the rule's parameters chosen on the others (as --meaning)."""
    combos = list(itertools.product(*grid))
    by_split = {split: [p for p in pairs if p.split == split] for split in splits}
    table = {split: [_rule_counts(by_split[split], rule, c) for c in combos] for split in splits}
    folds = []
    for held in splits:
        train = [_summed(table[s][i] for s in splits if s != held) for i in range(len(combos))]
        best = max(range(len(combos)), key=lambda i: (_objective(train[i]), combos[i] == shipped))
        folds.append((held, combos[best], table[held][best]))
    total = (sum(f[2][0] for f in folds), sum(f[2][1] for f in folds), sum(f[2][2] for f in folds))
    return total, folds


def precision(splits: list[str], pairs: list[MeaningPair]) -> None:
    combined = [round(0.20 + 0.01 * i, 2) for i in range(11)]
    alone = MEANING_GRID["alone"]
    centre = sum(p.background for p in pairs) / len(pairs)

    def shipped(p: MeaningPair, c: float, a: float) -> bool:
        return (p.evidence and (p.share + _near(p)) / 2 >= c) or p.meaning >= a

    def alone_with_evidence(p: MeaningPair, c: float, a: float) -> bool:
        return (p.evidence and (p.share + _near(p)) / 2 >= c) or (p.meaning >= a and p.evidence)

    def alone_with_share(p: MeaningPair, c: float, a: float, s: float) -> bool:
        return (p.evidence and (p.share + _near(p)) / 2 >= c) or (p.meaning >= a and p.share >= s)

    def over_background(p: MeaningPair, c: float, a: float) -> bool:
        margin = p.meaning - p.background + centre
        return (p.evidence and (p.share + margin) / 2 >= c) or margin >= a

    def with_industry(p: MeaningPair, c: float, a: float, w: float) -> bool:
        close = p.meaning if p.industry is None else (1 - w) * p.meaning + w * p.industry
        return (p.evidence and (p.share + close) / 2 >= c) or close >= a

    def industry_floor(p: MeaningPair, c: float, a: float, f: float) -> bool:
        return shipped(p, c, a) and (p.industry is None or p.industry >= f)

    rules: list[tuple[str, Rule, list[list[float]], tuple[float, ...]]] = [
        ("as shipped (combined, alone)", shipped, [combined, alone], (0.24, 0.45)),
        ("meaning alone needs the words' evidence", alone_with_evidence, [combined, alone], (0.24, 0.45)),
        (
            "meaning alone needs a share (0-0.12)",
            alone_with_share,
            [combined, alone, [0.0, 0.05, 0.08, 0.1, 0.12]],
            (0.24, 0.45, 0.0),
        ),
        ("closeness over the business's background", over_background, [combined, alone], (0.24, 0.45)),
        (
            "closeness blended with the industry line (w)",
            with_industry,
            [combined, alone, [0.0, 0.2, 0.33, 0.5]],
            (0.24, 0.45, 0.0),
        ),
        (
            "industry-line closeness at least f",
            industry_floor,
            [combined, alone, [0.0, 0.15, 0.2, 0.25, 0.3]],
            (0.24, 0.45, 0.0),
        ),
    ]
    print(
        "| rule | held out, pooled: precision | recall | false pos. | missed "
        "| worst split: precision | recall | chosen on all |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, rule, grid, default in rules:
        total, folds = _rule_loso(splits, pairs, rule, grid, default)
        p, r = _pr(*total)
        worst_p = min(_pr(*f[2])[0] for f in folds)
        worst_r = min(_pr(*f[2])[1] for f in folds)
        combos = list(itertools.product(*grid))
        every = [_rule_counts(pairs, rule, c) for c in combos]
        best = max(range(len(combos)), key=lambda i: (_objective(every[i]), combos[i] == default))
        bp, br = _pr(*every[best])
        print(
            f"| {name} | {p:.3f} | {r:.3f} | {total[1]} | {total[2]} | {worst_p:.3f} | {worst_r:.3f} | "
            f"{combos[best]}: {bp:.3f}/{br:.3f} |",
            flush=True,
        )
    print()
    print("| combined, meaning alone (every split, tuned-on) | true pos. | false pos. | missed | precision | recall |")
    print("| --- | --- | --- | --- | --- | --- |")
    for c in (0.24, 0.25, 0.26, 0.27):
        for a in (0.45, 0.50, 9.0):
            tp, fp, fn = _rule_counts(pairs, shipped, (c, a))
            p, r = _pr(tp, fp, fn)
            print(f"| ({c}, {a}) | {tp} | {fp} | {fn} | {p:.3f} | {r:.3f} |")


@dataclasses.dataclass
class CrossPair:
    split: str  # the business's split
    business: str
    article_split: str  # another split: none of its articles was written for this business
    article: str
    share: float
    evidence: bool
    meaning: float
    contrast: float | None = None
    described: float | None = None  # as MeaningPair.described


def _cross_pairs(splits: list[str]) -> list[CrossPair]:
    """Every business against every article of the *other* splits: off-topic or neighbouring-trade
    articles nobody tuned the ranker on for that business (unlabelled: a few are on topic)."""
    loaded = {split: _split_load(split) for split in splits}
    pairs = []
    for split in splits:
        for business, _, _ in loaded[split]:
            topic = business_topic(business)
            if topic.meaning is None:
                continue
            for other in splits:
                if other == split:
                    continue
                for a in loaded[other][0][1]:
                    vectors = article_vectors(title=a.title, body=a.body)
                    words = rel._words_score(topic=topic, title=a.title, body=a.body)
                    close = closeness(topic.meaning, vectors) if vectors is not None else None
                    pairs.append(
                        CrossPair(
                            split,
                            business.name,
                            other,
                            a.name,
                            words.score,
                            words.evidence,
                            close.score if close is not None else 0.0,
                            contrast=_contrast(business.industry, topic, vectors),
                            described=close.described if close is not None else None,
                        )
                    )
        print(f"{split}: {len(pairs)} cross pairs", file=sys.stderr, flush=True)
    return pairs


def cross(pairs: list[MeaningPair], others: list[CrossPair]) -> None:
    """What the two thresholds trade on the splits' own labels and on the other splits' articles."""

    def admitted(p: MeaningPair | CrossPair, c: float, a: float) -> bool:
        return (p.evidence and (p.share + _near(p)) / 2 >= c) or p.meaning >= a

    print("| combined, meaning alone | right | wrong | missed | precision | recall | other splits' articles let in |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for c in (0.24, 0.25, 0.26):
        for a in (0.45, 0.50, 9.0):
            tp, fp, fn = _rule_counts(pairs, admitted, (c, a))
            p, r = _pr(tp, fp, fn)
            let_in = sum(admitted(o, c, a) for o in others)
            alone = sum(admitted(o, c, a) and not admitted(o, c, 9.0) for o in others)
            print(
                f"| ({c}, {a}) | {tp} | {fp} | {fn} | {p:.3f} | {r:.3f} | {let_in} of {len(others)} "
                f"({alone} on meaning alone) |"
            )
    print()
    shipped = (rel.COMBINED_MIN, rel.MEANING_ALONE_MIN)
    for o in sorted(others, key=lambda o: (o.business, -o.meaning)):
        if admitted(o, *shipped):
            print(f"  {o.business}: {o.article_split}/{o.article} meaning {o.meaning:.3f} share {o.share:.3f}")


def _admitted(
    p: MeaningPair | CrossPair, combined: float, alone: float, least: float | None, alone_least: float | None = None
) -> bool:
    """The shipped rule with the trade contrast's hold-back at ``least`` on the words' path (None:
    none) and at ``alone_least`` on admissions by meaning alone only (precision round 2)."""
    words = p.evidence and (p.share + _near(p)) / 2 >= combined
    close = p.meaning >= alone
    if words and close:
        return True
    if words:
        return least is None or p.contrast is None or p.contrast >= least
    if close:
        return alone_least is None or p.contrast is None or p.contrast >= alone_least
    return False


CONTRAST_GRID: list[float | None] = [None, *(round(-0.40 + 0.02 * i, 2) for i in range(13))]


def contrast(splits: list[str], pairs: list[MeaningPair], others: list[CrossPair]) -> None:
    """The trade contrast's threshold against the combined threshold, on the labels and on the
    other splits' articles; then chosen leave-one-split-out."""

    def counts(labelled: list[MeaningPair], cross: list[CrossPair], *rule: Any) -> tuple[int, int, int, int]:
        tp, fp, fn = _rule_counts(labelled, _admitted, rule)
        return tp, fp, fn, sum(_admitted(o, *rule) for o in cross)

    print("| rule (meaning alone 0.45) | right | wrong | missed | precision | recall | other splits' articles let in |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    rows: list[tuple[str, tuple[Any, ...]]] = [
        (f"combined {c}", (c, 0.45, None)) for c in (0.24, 0.245, 0.25, 0.255, 0.26, 0.27)
    ]
    rows += [(f"combined 0.24, contrast at least {t}", (0.24, 0.45, t)) for t in CONTRAST_GRID[1:]]
    for name, rule in rows:
        tp, fp, fn, let_in = counts(pairs, others, *rule)
        p, r = _pr(tp, fp, fn)
        print(f"| {name} | {tp} | {fp} | {fn} | {p:.3f} | {r:.3f} | {let_in} of {len(others)} |", flush=True)

    # Leave one split out. The labels alone cannot choose this threshold (below about -0.28 it
    # changes no labelled pair), so each fold chooses it on the other splits' businesses against
    # the other splits' articles, by the neighbours it keeps out beyond the combined threshold's
    # own rate (3 per right article lost, or wrong one let in), and is scored on the held-out
    # split's businesses: their own labels and every other split's articles.
    print()
    print("| held out | chosen on the others | right | wrong | other splits' articles let in | as shipped |")
    print("| --- | --- | --- | --- | --- | --- |")
    total = [0, 0, 0, 0]
    shipped_total = [0, 0, 0, 0]
    for held in splits:
        train = [p for p in pairs if p.split != held]
        train_cross = [o for o in others if held not in (o.split, o.article_split)]
        base = counts(train, train_cross, 0.24, 0.45, None)

        def gain(t: float | None, train: Any = train, train_cross: Any = train_cross, base: Any = base) -> float:
            tp, fp, _, let_in = counts(train, train_cross, 0.24, 0.45, t)
            return (base[3] - let_in) - 3 * (base[0] - tp) + 3 * (base[1] - fp)

        best = max(CONTRAST_GRID, key=lambda t: (gain(t), t is None, -(t or 0.0)))
        test = [p for p in pairs if p.split == held]
        test_cross = [o for o in others if o.split == held]
        got = counts(test, test_cross, 0.24, 0.45, best)
        was = counts(test, test_cross, 0.24, 0.45, None)
        for i in range(4):
            total[i] += got[i]
            shipped_total[i] += was[i]
        print(f"| {held} | {best} | {got[0]} | {got[1]} | {got[3]} | {was[0]}, {was[1]}, {was[3]} |", flush=True)
    print(
        f"| all, pooled | | {total[0]} | {total[1]} | {total[3]} | "
        f"{shipped_total[0]}, {shipped_total[1]}, {shipped_total[3]} |"
    )
    print()
    for o in sorted(others, key=lambda o: (o.business, o.contrast or 0.0)):
        if _admitted(o, 0.24, 0.45, None) and not _admitted(o, 0.24, 0.45, CONTRAST_MIN):
            print(f"  held back: {o.business}: {o.article_split}/{o.article} contrast {o.contrast:.3f}")
    for labelled in pairs:
        if _admitted(labelled, 0.24, 0.45, None) and not _admitted(labelled, 0.24, 0.45, CONTRAST_MIN):
            wanted = "relevant" if labelled.wanted else "off-topic"
            print(f"  held back ({wanted}): {labelled.business}: {labelled.article}")


def alone_contrast(splits: list[str], pairs: list[MeaningPair], others: list[CrossPair]) -> None:
    """Precision round 2: the contrast applied to admissions by meaning alone only, its bar chosen
    leave-one-split-out as --contrast's (neighbours kept out beyond 3 per right article lost or
    wrong one let in), beside the words' bar and the combined threshold chosen the same way."""

    def counts(labelled: list[MeaningPair], cross: list[CrossPair], rule: tuple[Any, ...]) -> tuple[int, ...]:
        tp, fp, fn = _rule_counts(labelled, _admitted, rule)
        return tp, fp, fn, sum(_admitted(o, *rule) for o in cross)

    shipped = (0.24, 0.45, CONTRAST_MIN, None)  # before this round
    grids: dict[str, list[tuple[Any, ...]]] = {
        "as before (words' bar -0.30 only)": [shipped],
        "combined threshold chosen": [(c, 0.45, CONTRAST_MIN, None) for c in (0.23, 0.24, 0.245, 0.25, 0.26, 0.27)],
        "words' contrast bar chosen": [(0.24, 0.45, t, None) for t in CONTRAST_GRID],
        "meaning-alone bar chosen": [(0.24, a, CONTRAST_MIN, None) for a in (0.42, 0.45, 0.48, 0.50, 0.55, 9.0)],
        "contrast on meaning alone only, its bar chosen": [(0.24, 0.45, CONTRAST_MIN, t) for t in CONTRAST_GRID],
        "one contrast bar on both paths": [(0.24, 0.45, t, t) for t in CONTRAST_GRID],
    }
    print("| rule | right | wrong | missed | precision | recall | worst P | worst R | other splits' let in | chosen |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, grid in grids.items():
        total = [0, 0, 0, 0]
        worst = [1.0, 1.0]
        chosen: dict[tuple[Any, ...], int] = {}
        for held in splits:
            train = [p for p in pairs if p.split != held]
            train_cross = [o for o in others if held not in (o.split, o.article_split)]
            base = counts(train, train_cross, shipped)

            def gain(
                rule: tuple[Any, ...], train: Any = train, train_cross: Any = train_cross, base: Any = base
            ) -> int:
                tp, fp, _, let_in = counts(train, train_cross, rule)
                return (base[3] - let_in) - 3 * (base[0] - tp) + 3 * (base[1] - fp)

            best = max(grid, key=lambda rule: (gain(rule), rule == shipped))
            chosen[best] = chosen.get(best, 0) + 1
            got = counts([p for p in pairs if p.split == held], [o for o in others if o.split == held], best)
            total = [a + b for a, b in zip(total, got, strict=True)]
            p, r = _pr(*got[:3])
            worst = [min(worst[0], p), min(worst[1], r)]
        most = ", ".join(f"{rule[:4]} x{n}" for rule, n in sorted(chosen.items(), key=lambda kv: -kv[1])[:2])
        _loso_row(name, total, worst, most)
    print()
    for labelled in pairs:
        if _admitted(labelled, *shipped) != _admitted(labelled, 0.24, 0.45, CONTRAST_MIN, ALONE_CONTRAST_MIN):
            wanted = "relevant" if labelled.wanted else "off-topic"
            print(f"  held back ({wanted}): {labelled.business}: {labelled.article} contrast {labelled.contrast:.3f}")
    for o in others:
        if _admitted(o, *shipped) != _admitted(o, 0.24, 0.45, CONTRAST_MIN, ALONE_CONTRAST_MIN):
            print(f"  held back: {o.business}: {o.article_split}/{o.article} contrast {o.contrast:.3f}")


def share_floor(splits: list[str], pairs: list[MeaningPair], others: list[CrossPair]) -> None:
    """Precision round 3: the words' evidence counts on the combined path only with a share of at
    least a floor (``relevance.COMBINED_SHARE_MIN``), the floor chosen leave-one-split-out as
    --alone-contrast's bars (neighbours kept out beyond 3 per right article lost or wrong one let
    in), beside the combined threshold chosen the same way. The rest of the rule as shipped before
    the round (words' contrast -0.30, meaning-alone contrast -0.16)."""
    rule = (0.24, 0.45, CONTRAST_MIN, ALONE_CONTRAST_MIN)

    def floored(items: list[Any], floor: float | None, combined: float = 0.24) -> list[Any]:
        return [
            dataclasses.replace(
                p,
                evidence=p.evidence and (floor is None or p.share >= floor) and (p.share + _near(p)) / 2 >= combined,
            )
            for p in items
        ]

    grids: dict[str, dict[Any, tuple[list[MeaningPair], list[CrossPair]]]] = {
        "share floor chosen": {
            f: (floored(pairs, f), floored(others, f)) for f in (None, 0.05, 0.06, 0.07, 0.08, 0.09, 0.10)
        },
        "combined threshold chosen": {
            c: (floored(pairs, None, c), floored(others, None, c)) for c in (0.24, 0.245, 0.25, 0.26, 0.27)
        },
    }

    def counts(labelled: list[MeaningPair], cross: list[CrossPair]) -> tuple[int, int, int, int]:
        tp, fp, fn = _rule_counts(labelled, _admitted, rule)
        return tp, fp, fn, sum(_admitted(o, *rule) for o in cross)

    print("| rule | right | wrong | missed | precision | recall | worst P | worst R | other splits' let in | chosen |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, grid in grids.items():
        first = next(iter(grid))
        total = [0, 0, 0, 0]
        worst = [1.0, 1.0]
        chosen: dict[Any, int] = {}
        for held in splits:
            train = {
                v: counts(
                    [p for p in lab if p.split != held], [o for o in cr if held not in (o.split, o.article_split)]
                )
                for v, (lab, cr) in grid.items()
            }
            base = train[first]

            def gain(v: Any, train: Any = train, base: Any = base) -> int:
                tp, fp, _, let_in = train[v]
                return (base[3] - let_in) - 3 * (base[0] - tp) + 3 * (base[1] - fp)

            best = max(grid, key=lambda v: (gain(v), v == first))
            chosen[best] = chosen.get(best, 0) + 1
            lab, cr = grid[best]
            got = counts([p for p in lab if p.split == held], [o for o in cr if o.split == held])
            total = [a + b for a, b in zip(total, got, strict=True)]
            p, r = _pr(*got[:3])
            worst = [min(worst[0], p), min(worst[1], r)]
        most = ", ".join(f"{v} x{n}" for v, n in sorted(chosen.items(), key=lambda kv: -kv[1])[:2])
        _loso_row(name, total, worst, most)
    before, after = grids["share floor chosen"][None], grids["share floor chosen"][rel.COMBINED_SHARE_MIN]
    print()
    for was, now in zip(before[0], after[0], strict=True):
        if _admitted(was, *rule) != _admitted(now, *rule):
            wanted = "relevant" if now.wanted else "off-topic"
            print(f"  held back ({wanted}): {now.split} {now.business}: {now.article} share {now.share:.3f}")
    for was_cross, now_cross in zip(before[1], after[1], strict=True):
        if _admitted(was_cross, *rule) != _admitted(now_cross, *rule):
            print(f"  held back: {now_cross.business}: {now_cross.article_split}/{now_cross.article}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", action="append")
    parser.add_argument("--mechanisms", action="store_true")
    parser.add_argument("--thresholds", action="store_true")
    parser.add_argument("--dump", help="write every (business, article) pair's score to this JSON file")
    parser.add_argument("--meaning", action="store_true", help="words alone against words and meaning, LOSO")
    parser.add_argument("--dump-meaning", help="keep --meaning's per-pair scores in this JSON file")
    parser.add_argument("--load-meaning", help="--meaning from a file --dump-meaning wrote (no embedding)")
    parser.add_argument("--precision", action="store_true", help="the precision round's candidate rules, LOSO")
    parser.add_argument("--cross", action="store_true", help="the thresholds on the other splits' articles too")
    parser.add_argument("--contrast", action="store_true", help="the trade-contrast round's hold-back, LOSO")
    parser.add_argument(
        "--alone-contrast", action="store_true", help="precision round 2: the contrast on meaning alone"
    )
    parser.add_argument("--share-floor", action="store_true", help="precision round 3: the words' share floor")
    parser.add_argument("--dump-cross", help="keep the other splits' pairs (--cross, --contrast) in this JSON file")
    parser.add_argument("--load-cross", help="the other splits' pairs from a file --dump-cross wrote")
    args = parser.parse_args()
    splits = args.split or SPLITS
    if args.mechanisms:
        mechanisms(splits)
    if args.dump:
        Path(args.dump).write_text(json.dumps([dataclasses.asdict(p) for p in _pairs(splits)]))
    if args.thresholds:
        thresholds(splits)
    if args.meaning or args.precision or args.cross or args.contrast or args.alone_contrast or args.share_floor:
        if args.load_meaning:
            pairs = [MeaningPair(**row) for row in json.loads(Path(args.load_meaning).read_text())]
            pairs = [p for p in pairs if p.split in splits]
        else:
            pairs = _meaning_pairs(splits)
        if args.dump_meaning:
            Path(args.dump_meaning).write_text(json.dumps([dataclasses.asdict(p) for p in pairs]))
        if args.meaning:
            meaning(splits, pairs)
        if args.precision:
            precision(splits, pairs)
        others: list[CrossPair] = []
        if args.cross or args.contrast or args.alone_contrast or args.share_floor:
            if args.load_cross:
                others = [CrossPair(**row) for row in json.loads(Path(args.load_cross).read_text())]
                others = [o for o in others if o.split in splits and o.article_split in splits]
            else:
                others = _cross_pairs(splits)
            if args.dump_cross:
                Path(args.dump_cross).write_text(json.dumps([dataclasses.asdict(o) for o in others]))
        if args.cross:
            cross(pairs, others)
        if args.contrast:
            contrast(splits, pairs, others)
        if args.alone_contrast:
            alone_contrast(splits, pairs, others)
        if args.share_floor:
            share_floor(splits, pairs, others)


if __name__ == "__main__":
    main()
