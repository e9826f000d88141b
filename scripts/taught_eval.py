"""What "Draft it anyway" teaches relevance (issue 10; docs/BENCHMARKS.md, "Session 13").

    DJANGO_DEBUG=1 .venv/bin/python scripts/taught_eval.py [--split S ...] [--teach lead|title]

A customer who has an article drafted although relevance skipped it teaches us what the business
is about (``models.TaughtArticle``): the next nights read its headline and lead after the
business's posts (``relevance.taught_text``). Simulated here on each split: its articles are two
nights (by a hash of the file name). Each business is ranked over the first night; every relevant
article it skipped is one the owner would rescue (it is on the Drafts page's "Skipped" list) and is
taught; the second night is ranked with and without what was taught and counted against the
split's labels; an article the shipped check calls the same story as a rescued one (drafted the
night before) is skipped either way. Then the other way round (the second night teaches, the first
is ranked), so every article is ranked once each way. ``--teach title`` teaches the headline alone.

Totals only: run it on a held-out split only to score it (``scripts/relevance_loso.py``
``HELD_OUT``). Without ``--split``, every split but the held-out ones.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from relevance_loso import HELD_OUT  # noqa: E402  (this script's folder is on the path)

from posting.composer.checking import (  # noqa: E402
    ArticleFile,
    BusinessFile,
    article_file_load,
    business_file_load,
    relevance_rank,
)
from posting.composer.evaluation import DATA_DIR, splits_present  # noqa: E402
from posting.composer.meaning import article_vectors  # noqa: E402
from posting.composer.relevance import same_story, story_print, taught_text  # noqa: E402


def _relevant(business: BusinessFile, articles: list[ArticleFile]) -> set[str]:
    return {
        row["article"] for row in relevance_rank(business=business, articles=articles, use_llm=False) if row["relevant"]
    }


def _count(chosen: set[str], night: list[ArticleFile], labelled: set[str]) -> tuple[int, int, int]:
    names = {article.name for article in night}
    wanted = labelled & names
    return len(chosen & wanted), len(chosen - wanted), len(wanted - chosen)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", action="append", help="a split of tests/data/compose (repeatable)")
    parser.add_argument("--teach", choices=("lead", "title"), default="lead")
    args = parser.parse_args()
    splits = args.split or [split for split in splits_present() if split not in HELD_OUT]
    totals = {"untaught": [0, 0, 0], "taught": [0, 0, 0]}
    rescued = 0
    for split in splits:
        root = DATA_DIR / split
        labels = json.loads((root / "labels.json").read_text())
        articles = [article_file_load(path) for path in sorted((root / "articles").glob("*.txt"))]
        prints = {
            a.name: story_print(title=a.title, body=a.body, vectors=article_vectors(title=a.title, body=a.body))
            for a in articles
        }
        nights = (
            [a for a in articles if zlib.crc32(a.name.encode()) % 2 == 0],
            [a for a in articles if zlib.crc32(a.name.encode()) % 2 == 1],
        )
        for path in sorted((root / "businesses").glob("*.json")):
            business = business_file_load(path)
            labelled = set(labels[path.stem]["relevant"])
            for first, second in (nights, nights[::-1]):
                skipped = [a for a in first if a.name in labelled and a.name not in _relevant(business, first)]
                rescued += len(skipped)
                taught = [taught_text(title=a.title, body=a.body) if args.teach == "lead" else a.title for a in skipped]
                # The rescued articles were drafted: the next night's retelling of one is skipped as the
                # same story, taught or not.
                repeats = {a.name for a in second if any(same_story(prints[a.name], prints[b.name]) for b in skipped)}
                untaught = _relevant(business, second) - repeats
                learned = (
                    _relevant(dataclasses.replace(business, taught=taught), second) - repeats if taught else untaught
                )
                for key, chosen in (("untaught", untaught), ("taught", learned)):
                    counted = _count(chosen, second, labelled)
                    totals[key] = [total + count for total, count in zip(totals[key], counted, strict=True)]
        print(f"{split}: {totals} rescued {rescued}", file=sys.stderr, flush=True)
    print(f"splits: {', '.join(splits)}; articles rescued on the first night: {rescued}")
    for key, (right, wrong, missed) in totals.items():
        precision = right / (right + wrong) if right + wrong else 0.0
        recall = right / (right + missed) if right + missed else 0.0
        print(f"{key:10} {right:4} {wrong:4} {missed:4}  precision {precision:.3f} recall {recall:.3f}")


if __name__ == "__main__":
    main()
