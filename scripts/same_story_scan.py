"""Same story over every pair of articles within each split of tests/data/compose (issue 10).

    DJANGO_DEBUG=1 .venv/bin/python scripts/same_story_scan.py [--split S ...] [--near 0.72]

"Never two drafts about the same story" is ``relevance.same_story`` on two articles' prints. Each
split labels its same-story pairs (``_same_story``); every other pair of its articles is two
different stories. This prints, for the shipped rule, how many labelled pairs it calls one story
(a miss is a story drafted twice) and how many different-story pairs it calls one story (each a
relevant article the night could skip as a repeat), with both lists, and the different-story
pairs whose gist is at least ``--near`` (the margin the thresholds keep). Relevance only: nothing
is drafted. Run it on the tuned-on splits only (the default); a held-out split is scored once
through ``make eval-compose``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from relevance_loso import SPLITS  # noqa: E402  (the tuned-on splits; this script's folder is on the path)

from posting.composer import relevance as rel  # noqa: E402
from posting.composer.checking import article_file_load  # noqa: E402
from posting.composer.evaluation import DATA_DIR  # noqa: E402
from posting.composer.meaning import article_vectors  # noqa: E402


@dataclass(frozen=True)
class StoryPair:
    split: str
    first: str
    second: str
    labelled: bool  # the split labels them one story
    relevant_to_one: bool  # both relevant to one business: a wrong "same" would skip one
    names: int
    terms: float
    gist: float
    verdict: bool  # the shipped rule calls them one story


def story_pairs(split: str) -> list[StoryPair]:
    root = DATA_DIR / split
    labels = json.loads((root / "labels.json").read_text())
    same = {frozenset(pair) for pair in labels.get("_same_story", [])}
    relevant_to: dict[str, set[str]] = {}
    for slug, label in labels.items():
        if not slug.startswith("_"):
            for name in label["relevant"]:
                relevant_to.setdefault(name, set()).add(slug)
    prints = {}
    for path in sorted((root / "articles").glob("*.txt")):
        article = article_file_load(path)
        vectors = article_vectors(title=article.title, body=article.body)
        prints[article.name] = rel.story_print(title=article.title, body=article.body, vectors=vectors)
    # The split is the batch, as a night's articles are (``relevance.story_names_common``).
    common = rel.story_names_common(printed.names for printed in prints.values())
    pairs = []
    for first, second in itertools.combinations(sorted(prints), 2):
        a, b = prints[first], prints[second]
        gist = float(a.gist @ b.gist) if a.gist is not None and b.gist is not None else 0.0
        pairs.append(
            StoryPair(
                split,
                first,
                second,
                frozenset((first, second)) in same,
                bool(relevant_to.get(first, set()) & relevant_to.get(second, set())),
                len(a.names & b.names),
                round(rel._cosine(a.terms, b.terms), 3),
                round(gist, 3),
                rel.same_story(a, b, common=common),
            )
        )
    return pairs


def _line(pair: StoryPair) -> str:
    return (
        f"  {pair.split}: {pair.first} | {pair.second}: gist {pair.gist:.3f}, terms {pair.terms:.3f}, "
        f"names {pair.names}{', both relevant to one business' if pair.relevant_to_one else ''}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", action="append")
    parser.add_argument("--near", type=float, default=0.72)
    args = parser.parse_args()
    pairs: list[StoryPair] = []
    for split in args.split or SPLITS:
        pairs.extend(story_pairs(split))
        print(f"{split}: {len(pairs)} pairs", file=sys.stderr, flush=True)
    labelled = [p for p in pairs if p.labelled]
    different = [p for p in pairs if not p.labelled]
    caught = [p for p in labelled if p.verdict]
    merged = [p for p in different if p.verdict]
    print(f"labelled same-story pairs: {len(labelled)}, called one story: {len(caught)}")
    print(f"different-story pairs: {len(different)}, called one story: {len(merged)}")
    print(f"same-story gists {min(p.gist for p in labelled):.3f}-{max(p.gist for p in labelled):.3f}")
    print("missed (drafted twice):")
    for pair in sorted(set(labelled) - set(caught), key=lambda p: p.gist):
        print(_line(pair))
    print("different stories called one story:")
    for pair in sorted(merged, key=lambda p: -p.gist):
        print(_line(pair))
    print(f"different stories with a gist of at least {args.near}:")
    for pair in sorted((p for p in different if p.gist >= args.near), key=lambda p: -p.gist):
        print(_line(pair) + (" (called one story)" if pair.verdict else ""))


if __name__ == "__main__":
    main()
