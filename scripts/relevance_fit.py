"""Fit the relevance weighing (posting/composer/weighing.py) on the labelled splits (issue 10).

    DJANGO_DEBUG=1 .venv/bin/python scripts/relevance_fit.py [--dump F | --load F] [--write]

Every (business, article) pair of every split of tests/data/compose but the held-out ones
(``evaluation.HELD_OUT_SPLITS``) gives the signals ``relevance.relevance_signals`` computes and the
label. A logistic regression (Newton's method, an L2 penalty of L2 on standardised features) is
fitted, and the likelihood an article needs is chosen for the smaller margin over the targets
(precision 0.9, recall 0.8), then F1, as ``relevance_loso.py`` chooses its thresholds.

First it prints leave-one-split-out: each split scored by a weighing fitted, and its bar chosen,
on all the others, next to the rules' own verdict on that split. That is the number to believe;
the fit on every split is what ``--write`` stores in posting/composer/data/relevance_weighing.json.
Signals take some minutes to compute (every split's articles through the sentence model):
``--dump`` keeps them for a rerun with ``--load``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django
import numpy as np

django.setup()

from posting.composer import relevance as rel  # noqa: E402
from posting.composer import weighing  # noqa: E402
from posting.composer.checking import article_file_load, business_file_load, business_topic  # noqa: E402
from posting.composer.evaluation import DATA_DIR, HELD_OUT_SPLITS, tuned_on_splits  # noqa: E402
from posting.composer.meaning import article_vectors  # noqa: E402

L2 = 1.0
NEWTON_STEPS = 40
BARS = np.round(np.arange(0.10, 0.91, 0.01), 2)


def pairs(splits: list[str]) -> list[dict[str, Any]]:
    """One row per (business, article): the split, the label, the rules' verdict and the signals."""
    rows: list[dict[str, Any]] = []
    for split in splits:
        root = DATA_DIR / split
        labels = json.loads((root / "labels.json").read_text())
        articles = [article_file_load(path) for path in sorted((root / "articles").glob("*.txt"))]
        vectors = {a.name: article_vectors(title=a.title, body=a.body) for a in articles}
        for slug, label in sorted(labels.items()):
            if slug.startswith("_"):
                continue
            topic = business_topic(business_file_load(root / "businesses" / f"{slug}.json"))
            wanted = set(label.get("relevant", []))
            for a in articles:
                ruled, signals = rel.relevance_signals(topic=topic, title=a.title, body=a.body, vectors=vectors[a.name])
                if signals is None:
                    continue
                rows.append(
                    {
                        "split": split,
                        "business": slug,
                        "article": a.name,
                        "wanted": a.name in wanted,
                        "ruled": ruled.relevant,
                        "values": signals.values(),
                    }
                )
        print(f"{split}: {len(rows)} pairs", file=sys.stderr, flush=True)
    return rows


def fit(x: np.ndarray, y: np.ndarray, l2: float = L2) -> np.ndarray:
    """Logistic regression weights (intercept first) by Newton's method; x has a column of ones."""
    w = np.zeros(x.shape[1])
    penalty = l2 * np.eye(len(w)) / len(y)
    penalty[0, 0] = 0.0  # the intercept is not shrunk
    for _ in range(NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-x @ w))
        gradient = x.T @ (p - y) / len(y) + penalty @ w
        hessian = (x.T * (p * (1 - p))) @ x / len(y) + penalty
        w -= np.linalg.solve(hessian, gradient)
    return w


def counts(chosen: np.ndarray, y: np.ndarray) -> tuple[int, int, int]:
    return int((chosen & y).sum()), int((chosen & ~y).sum()), int((~chosen & y).sum())


def pr(c: tuple[int, int, int]) -> tuple[float, float]:
    tp, fp, fn = c
    return (tp / (tp + fp) if tp + fp else 1.0), (tp / (tp + fn) if tp + fn else 1.0)


def objective(c: tuple[int, int, int]) -> float:
    p, r = pr(c)
    return min(p - 0.9, r - 0.8) + 0.001 * (2 * p * r / (p + r) if p + r else 0.0)


def standardised(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mean = values.mean(axis=0)
    scale = values.std(axis=0)
    scale[scale == 0] = 1.0
    return np.hstack([np.ones((len(values), 1)), (values - mean) / scale]), mean, scale


def fitted(values: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Weights, mean, scale and the bar chosen on these pairs."""
    x, mean, scale = standardised(values)
    w = fit(x, y)
    likelihood = 1.0 / (1.0 + np.exp(-x @ w))
    bar = max(BARS, key=lambda b: objective(counts(likelihood >= b, y)))
    return w, mean, scale, float(bar)


def likelihoods(values: np.ndarray, w: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    x = np.hstack([np.ones((len(values), 1)), (values - mean) / scale])
    return 1.0 / (1.0 + np.exp(-x @ w))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dump", type=Path)
    parser.add_argument("--load", type=Path)
    parser.add_argument("--write", action="store_true", help="store the fit on every split in the weighing file")
    args = parser.parse_args()
    splits = tuned_on_splits()
    rows: list[dict[str, Any]] = json.loads(args.load.read_text()) if args.load else pairs(splits)
    if args.dump:
        args.dump.write_text(json.dumps(rows))
    if any(row["split"] in HELD_OUT_SPLITS for row in rows):
        raise SystemExit("the pairs include a held-out split: dump them again")
    features = weighing.FEATURES
    values = np.array([[row["values"][name] for name in features] for row in rows], dtype=np.float64)
    y = np.array([bool(row["wanted"]) for row in rows])
    ruled = np.array([bool(row["ruled"]) for row in rows])
    split_of = np.array([row["split"] for row in rows])

    print("| left out | bar chosen on the others | weighed: precision | recall | rules: precision | recall |")
    print("| --- | --- | --- | --- | --- | --- |")
    weighed_total = np.zeros(3, dtype=int)
    ruled_total = np.zeros(3, dtype=int)
    for held in dict.fromkeys(split_of):
        train, test = split_of != held, split_of == held
        w, mean, scale, bar = fitted(values[train], y[train])
        weighed_counts = counts(likelihoods(values[test], w, mean, scale) >= bar, y[test])
        ruled_counts = counts(ruled[test], y[test])
        weighed_total += weighed_counts
        ruled_total += ruled_counts
        wp, wr = pr(weighed_counts)
        rp, rr = pr(ruled_counts)
        print(f"| {held} | {bar:.2f} | {wp:.3f} | {wr:.3f} | {rp:.3f} | {rr:.3f} |")
    wp, wr = pr(tuple(weighed_total))
    rp, rr = pr(tuple(ruled_total))
    print(f"| all, pooled ({len(rows)} pairs) | | {wp:.3f} | {wr:.3f} | {rp:.3f} | {rr:.3f} |")
    print(f"right / wrong / missed: weighed {weighed_total.tolist()}, rules {ruled_total.tolist()}")

    w, mean, scale, bar = fitted(values, y)
    print(f"\nfitted on all {len(set(split_of))} splits: bar {bar:.2f}")
    for name, weight in zip(features, w[1:], strict=True):
        print(f"  {name:12} {weight:+.3f}")
    if args.write:
        stored = {
            "about": "relevance weighing, fitted by scripts/relevance_fit.py; see posting/composer/weighing.py",
            "fitted_on": sorted(set(split_of), key=lambda s: (len(s), s)),
            "pairs": len(rows),
            "features": list(features),
            "mean": [round(float(v), 6) for v in mean],
            "scale": [round(float(v), 6) for v in scale],
            "weights": [round(float(v), 6) for v in w[1:]],
            "intercept": round(float(w[0]), 6),
            "likelihood_min": bar,
        }
        weighing.WEIGHING_FILE.write_text(json.dumps(stored, indent=1) + "\n")
        print(f"written: {weighing.WEIGHING_FILE}")


if __name__ == "__main__":
    main()
