"""Which of an article's sentences the offline composer quotes, against a reader's picks (issue 10,
done-means 3: "the one to three facts from the article that matter most to this business").

    DJANGO_DEBUG=1 .venv/bin/python scripts/fact_choice_eval.py [--part tune|blind|all] [--items]

``tests/data/compose_facts/labels.json`` holds 90 (business, relevant article) pairs drawn at random
(seed 11) from the eighteen tuned-on splits of ``tests/data/compose``. For each, a reader who never
saw the composer's code or drafts chose, from the article's numbered sentences
(``posting.gate.core.sentences_split``), the one to three the owner would most want to quote to
their customers (``best``, best first) and any others that would also do (``fine``). Every draft
the offline composer writes for the pair's platforms is scored: the share of its quoted sentences
that are ``best`` or ``fine`` (acceptable), whether it quotes the reader's first pick, and whether it
quotes any ``best`` one. Items 0-59 are the part one may tune on; 60-89 were scored in session 11
for the shipped composer, two candidate fact scores and the leaning-facts change (docs/BENCHMARKS.md,
"Session 11"): read them as tuned-on from here.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from posting.composer.checking import (  # noqa: E402
    PLATFORMS,
    article_file_load,
    business_file_load,
    business_stats,
    business_topic,
)
from posting.composer.evaluation import DATA_DIR  # noqa: E402
from posting.composer.extractive import compose_extractive  # noqa: E402

LABELS = Path(__file__).resolve().parent.parent / "tests" / "data" / "compose_facts" / "labels.json"


@dataclass
class FactScore:
    drafts: int = 0
    facts: int = 0
    acceptable: int = 0
    first_pick: int = 0
    a_best: int = 0

    def line(self, part: str) -> str:
        if not self.drafts:
            return f"{part}: no drafts"
        return (
            f"{part}: {self.drafts} drafts, {self.facts / self.drafts:.2f} facts a draft, "
            f"acceptable {self.acceptable / max(self.facts, 1):.3f}, the reader's first pick in "
            f"{self.first_pick / self.drafts:.3f}, one of the best in {self.a_best / self.drafts:.3f}"
        )


def score(part: str, *, show: bool = False) -> FactScore:
    result = FactScore()
    for item in json.loads(LABELS.read_text(encoding="utf-8")):
        if part != "all" and item["part"] != part:
            continue
        root = DATA_DIR / item["split"]
        business = business_file_load(root / "businesses" / f"{item['business']}.json")
        article = article_file_load(root / "articles" / item["article"])
        topic = business_topic(business)
        acceptable = set(item["best"]) | set(item["fine"])
        for platform in PLATFORMS:
            if not business.posts(platform):
                continue
            stats = business_stats(business, platform)
            post = compose_extractive(
                title=article.title, body=article.body, platform=platform, stats=stats, topic=topic
            )
            if post is None:
                continue
            quoted = [int(source["sentence"]) for source in post.sources]
            result.drafts += 1
            result.facts += len(quoted)
            result.acceptable += sum(number in acceptable for number in quoted)
            result.first_pick += bool(item["best"]) and item["best"][0] in quoted
            result.a_best += bool(set(quoted) & set(item["best"]))
            if show:
                print(f"{item['item']:02d} {platform}: quoted {quoted}, best {item['best']}, fine {item['fine']}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=["tune", "blind", "all"], default="tune")
    parser.add_argument("--items", action="store_true", help="one line per draft")
    args = parser.parse_args()
    print(score(args.part, show=args.items).line(args.part))


if __name__ == "__main__":
    main()
