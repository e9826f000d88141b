"""Recall round 3 (issue 10): closeness candidates for relevance, each judged leave-one-split-out
over the ten tuned-on splits and on the other splits' articles (``--cross`` in relevance_loso.py).

    DJANGO_DEBUG=1 .venv/bin/python scripts/relevance_recall.py --dump /tmp/recall.pkl   # embeds, some minutes
    DJANGO_DEBUG=1 .venv/bin/python scripts/relevance_recall.py --load /tmp/recall.pkl   # no embedding
    DJANGO_DEBUG=1 .venv/bin/python scripts/relevance_recall.py --load /tmp/recall.pkl --misses blind7 --misses blind8

Every business of every tuned-on split is scored against every article of every tuned-on split:
its own split's articles are labelled (LOSO as relevance_loso.py --meaning: the thresholds chosen
on nine splits by the larger margin over both targets, then F1, and scored on the tenth); the
other splits' articles are the neighbouring-trade count (none written for that business, a few
on topic all the same: an upper bound on false positives, for comparing rules). What is cached
is the raw material: the posts', the industry line's, the own names' and each article's passage
vectors, and the words' share and evidence per pair; each candidate is a closeness computed from
them in numpy. Held-out splits (blind10 and later) are never read here.
"""

from __future__ import annotations

import argparse
import itertools
import os
import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django
import numpy as np

django.setup()

from relevance_loso import SPLITS, _objective, _pr, _split_load  # noqa: E402  (this folder, on the path)

from posting import semantic  # noqa: E402
from posting.composer import relevance as rel  # noqa: E402
from posting.composer.checking import business_topic  # noqa: E402
from posting.composer.meaning import article_vectors, business_meaning  # noqa: E402

Counts = tuple[int, int, int]


def build() -> dict[str, Any]:
    loaded = {split: _split_load(split) for split in SPLITS}
    arts = {}
    for split in SPLITS:
        for a in loaded[split][0][1]:
            arts[(split, a.name)] = {
                "title": a.title,
                "body": a.body,
                "vec": article_vectors(title=a.title, body=a.body),
            }
    biz = {}
    for split in SPLITS:
        for b, _, wanted in loaded[split]:
            meaning = business_meaning(posts=list(dict.fromkeys([*b.facebook_posts, *b.instagram_posts])))
            assert meaning is not None, "the sentence model is needed"
            topic = business_topic(b, meaning=False)
            said = list(dict.fromkeys(t.strip() for t in [b.industry, *b.names] if t.strip()))
            words = {}
            for key, a in arts.items():
                w = rel._words_score(topic=topic, title=a["title"], body=a["body"])
                words[key] = (w.score, w.evidence)
            biz[(split, b.name)] = {
                "posts": meaning.vectors,
                "industry": semantic.embed_batch([b.industry]) if b.industry.strip() else None,
                "said": semantic.embed_batch(said) if said else None,  # industry line and names, as shipped
                "names": semantic.embed_batch(list(b.names)),
                "wanted": set(wanted),
                "words": words,
            }
            print(split, b.name, file=sys.stderr, flush=True)
    return {"arts": arts, "biz": biz}


def _top_mean(x: np.ndarray, k: int) -> np.ndarray:
    k = min(k, x.shape[1])
    return np.sort(x, axis=1)[:, -k:].mean(axis=1)


def close(posts: np.ndarray, a: np.ndarray, extra: np.ndarray | None = None, k: int = 3, passages: int = 2) -> float:
    """The shipped closeness (3 nearest posts, 2 best passages), with ``extra`` rows as posts."""
    sims = a @ posts.T
    if extra is not None and len(extra):
        sims = np.hstack([sims, a @ extra.T])
    return float(np.sort(_top_mean(sims, k))[-passages:].mean())


def close_typical(posts: np.ndarray, a: np.ndarray, k: int = 3, alpha: float = 1.0) -> float:
    """The k nearest posts' similarities weighted by how typical each post is of the business
    (its mean cosine to the other posts), to the power alpha."""
    s = posts @ posts.T
    typical = np.clip((s.sum(1) - 1) / max(len(posts) - 1, 1), 1e-3, None) ** alpha
    sims = a @ posts.T
    idx = np.argsort(sims, axis=1)[:, -k:]
    w = typical[idx]
    per = (np.take_along_axis(sims, idx, axis=1) * w).sum(1) / w.sum(1)
    return float(np.sort(per)[-2:].mean())


def _stack(*rows: np.ndarray | None) -> np.ndarray | None:
    kept = [r for r in rows if r is not None]
    return np.vstack(kept) if kept else None


CLOSENESS: dict[str, Callable[[dict[str, Any], np.ndarray], float]] = {
    "shipped (3 nearest posts, 2 best passages)": lambda b, a: close(b["posts"], a),
    "the industry line as a post": lambda b, a: close(b["posts"], a, b["industry"]),
    "the own names as posts": lambda b, a: close(b["posts"], a, b["names"]),
    "industry line and names as posts (deduplicated)": lambda b, a: close(b["posts"], a, b["said"]),
    "the closest passage alone": lambda b, a: close(b["posts"], a, passages=1),
    "the 3 closest passages": lambda b, a: close(b["posts"], a, passages=3),
    "the nearest post alone": lambda b, a: close(b["posts"], a, k=1),
    "the 2 nearest posts": lambda b, a: close(b["posts"], a, k=2),
    "the 5 nearest posts": lambda b, a: close(b["posts"], a, k=5),
    "3 nearest posts weighted by typicality": lambda b, a: close_typical(b["posts"], a),
    "3 nearest posts weighted by typicality squared": lambda b, a: close_typical(b["posts"], a, alpha=2),
    "5 nearest posts weighted by typicality": lambda b, a: close_typical(b["posts"], a, k=5),
}

COMBINED = [round(0.20 + 0.01 * i, 2) for i in range(11)]
ALONE = [0.40, 0.42, 0.45, 0.48, 0.50, 0.55, 9.0]  # 9: no meaning-alone path
SHIPPED = (0.24, 0.45)


class Pairs:
    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        rows = [(bk, ak) for bk in data["biz"] for ak in data["arts"] if data["arts"][ak]["vec"] is not None]
        self.keys = rows
        b = data["biz"]
        self.split = np.array([bk[0] for bk, _ in rows])
        self.own = np.array([bk[0] == ak[0] for bk, ak in rows])
        self.wanted = np.array([bk[0] == ak[0] and ak[1] in b[bk]["wanted"] for bk, ak in rows])
        self.share = np.array([b[bk]["words"][ak][0] for bk, ak in rows])
        self.evidence = np.array([b[bk]["words"][ak][1] for bk, ak in rows])

    def closeness(self, fn: Callable[[dict[str, Any], np.ndarray], float]) -> np.ndarray:
        b, a = self.data["biz"], self.data["arts"]
        return np.array([fn(b[bk], a[ak]["vec"]) for bk, ak in self.keys])

    def counts(self, chosen: np.ndarray, mask: np.ndarray) -> Counts:
        c, w = chosen[mask], self.wanted[mask]
        return int((c & w).sum()), int((c & ~w).sum()), int((~c & w).sum())


Rule = Callable[..., np.ndarray]


def admitted(p: Pairs, combined_close: np.ndarray, alone_close: np.ndarray, c: float, a: float) -> np.ndarray:
    return (p.evidence & ((p.share + combined_close) / 2 >= c)) | (alone_close >= a)


def loso(p: Pairs, name: str, rule: Rule, grid: list[list[float]], shipped: tuple[float, ...]) -> None:
    combos = list(itertools.product(*grid))
    chosen = {c: rule(*c) for c in combos}
    table = {s: {c: p.counts(chosen[c], p.own & (p.split == s)) for c in combos} for s in SPLITS}
    total = [0, 0, 0]
    worst_p = worst_r = 1.0
    for held in SPLITS:
        train = {c: tuple(sum(table[s][c][i] for s in SPLITS if s != held) for i in range(3)) for c in combos}
        best = max(combos, key=lambda c: (_objective(train[c]), c == shipped))  # type: ignore[arg-type]
        held_counts = table[held][best]
        total = [total[i] + held_counts[i] for i in range(3)]
        hp, hr = _pr(*held_counts)
        worst_p, worst_r = min(worst_p, hp), min(worst_r, hr)
    every = {c: tuple(sum(table[s][c][i] for s in SPLITS) for i in range(3)) for c in combos}
    best = max(combos, key=lambda c: (_objective(every[c]), c == shipped))  # type: ignore[arg-type]
    lp, lr = _pr(*total)
    ap, ar = _pr(*every[best])
    at_shipped = rule(*shipped)
    print(
        f"| {name} | {lp:.3f} | {lr:.3f} | {total[1]} | {total[2]} | {worst_p:.3f} | {worst_r:.3f} | "
        f"{best}: {ap:.3f}/{ar:.3f}, {int((chosen[best] & ~p.own).sum())} | "
        f"{p.counts(at_shipped, p.own)} , {int((at_shipped & ~p.own).sum())} |",
        flush=True,
    )


def candidates(p: Pairs) -> None:
    shipped = p.closeness(CLOSENESS["shipped (3 nearest posts, 2 best passages)"])
    described = p.closeness(CLOSENESS["industry line and names as posts (deduplicated)"])
    print(
        "| candidate | LOSO precision | recall | false pos. | missed | worst split precision | recall "
        "| chosen on all ten: P/R, other splits' let in | at (0.24, 0.45): right, wrong, missed , let in |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    grid = [COMBINED, ALONE]
    for name, fn in CLOSENESS.items():
        c = shipped if name.startswith("shipped") else described if "deduplicated" in name else p.closeness(fn)
        loso(p, f"both paths read: {name}", lambda t, a, c=c: admitted(p, c, c, t, a), grid, SHIPPED)
    for name, fn in CLOSENESS.items():
        if name.startswith("shipped"):
            continue
        c = described if "deduplicated" in name else p.closeness(fn)
        loso(
            p,
            f"combined reads: {name}; alone the posts",
            lambda t, a, c=c: admitted(p, c, shipped, t, a),
            grid,
            SHIPPED,
        )
    for w in (0.8, 0.9):

        def scaled(b: dict[str, Any], a: np.ndarray, w: float = w) -> float:
            return close(b["posts"], a, None if b["said"] is None else w * b["said"])

        weighted = p.closeness(scaled)
        loso(
            p,
            f"combined reads: industry and names at weight {w}; alone the posts",
            lambda t, a, c=weighted: admitted(p, c, shipped, t, a),
            grid,
            SHIPPED,
        )
    # A third path: closeness at a lower bar with some of the words (a share, or the evidence).
    loso(
        p,
        "shipped + (closeness >= a2 and share >= s)",
        lambda t, a, a2, s: admitted(p, shipped, shipped, t, a) | ((shipped >= a2) & (p.share >= s)),
        [COMBINED, ALONE, [0.34, 0.36, 0.38, 0.40, 0.42, 9.0], [0.03, 0.05, 0.08, 0.10, 0.12]],
        (0.24, 0.45, 9.0, 0.05),
    )
    loso(
        p,
        "shipped + (closeness >= a2 and the words' evidence)",
        lambda t, a, a2: admitted(p, shipped, shipped, t, a) | ((shipped >= a2) & p.evidence),
        [COMBINED, ALONE, [0.32, 0.34, 0.35, 0.36, 0.38, 0.40, 9.0]],
        (0.24, 0.45, 9.0),
    )
    print()
    print(
        "| combined threshold | shipped: right, wrong, missed | let in "
        "| industry and names read: right, wrong, missed | let in |"
    )
    print("| --- | --- | --- | --- | --- |")
    for t in (0.22, 0.23, 0.235, 0.24, 0.245, 0.25):
        before = admitted(p, shipped, shipped, t, 0.45)
        after = admitted(p, described, shipped, t, 0.45)
        print(
            f"| {t} | {p.counts(before, p.own)} | {int((before & ~p.own).sum())} | "
            f"{p.counts(after, p.own)} | {int((after & ~p.own).sum())} |"
        )
    before = admitted(p, shipped, shipped, *SHIPPED)
    after = admitted(p, described, shipped, *SHIPPED)
    print("\nchanged at (0.24, 0.45):")
    for i, (bk, ak) in enumerate(p.keys):
        if before[i] != after[i]:
            label = ("relevant" if p.wanted[i] else "off-topic") if p.own[i] else "other split"
            print(
                f"  {'in ' if after[i] else 'out'} {label:11s} {bk[1]}: {ak[0]}/{ak[1]} "
                f"closeness {shipped[i]:.3f} -> {described[i]:.3f}, share {p.share[i]:.3f}"
            )


def misses(p: Pairs, split: str) -> None:
    shipped = p.closeness(CLOSENESS["shipped (3 nearest posts, 2 best passages)"])
    described = p.closeness(CLOSENESS["industry line and names as posts (deduplicated)"])
    before = admitted(p, shipped, shipped, *SHIPPED)
    after = admitted(p, described, shipped, *SHIPPED)
    for i, (bk, ak) in enumerate(p.keys):
        if p.own[i] and p.split[i] == split and p.wanted[i] and not (before[i] and after[i]):
            print(
                f"{bk[1]}: {ak[1]} share {p.share[i]:.3f} evidence {bool(p.evidence[i])} closeness "
                f"{shipped[i]:.3f} (with industry and names {described[i]:.3f}) "
                f"{'missed' if not before[i] else 'in'} -> {'in' if after[i] else 'missed'}"
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dump", help="embed and score, and keep the raw material in this pickle")
    parser.add_argument("--load", help="a pickle --dump wrote (no embedding)")
    parser.add_argument("--misses", action="append", help="list this tuned-on split's missed relevant articles")
    args = parser.parse_args()
    if args.load:
        data = pickle.loads(Path(args.load).read_bytes())  # noqa: S301 (a file --dump wrote)
    else:
        data = build()
        if args.dump:
            Path(args.dump).write_bytes(pickle.dumps(data))
    pairs = Pairs(data)
    if args.misses:
        for split in args.misses:
            misses(pairs, split)
    else:
        candidates(pairs)


if __name__ == "__main__":
    main()
