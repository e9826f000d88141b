"""How the offline composer and the gate scale with an article's length, against a short article
measured in the same run.

    .venv/bin/python scripts/bench_long_article.py
    .venv/bin/python scripts/bench_long_article.py --words 1000 --times 10 100 --json

Why: research caps a page at RESEARCH_PAGE_MAX_BYTES (3 MB), so an article's text can run to
tens of thousands of words, and ``compose_check`` takes any file. The composer used to read each
sentence against the whole text before it, and a 90,000-word article took four minutes to draft.
This prints, for each length, the time of ``compose_check`` (relevance, the offline composer and
the gate, as the night and the public command run them) and its ratio to the short article's,
next to the ratio of the lengths: linear scaling keeps the two about equal; the exponent printed
is log(time ratio) / log(length ratio), 1.0 for linear, 2.0 for quadratic.

The article is the gate set's bodies (tests/data/gate) joined until it has --words words; the
longer ones repeat it. The business is the dev split's bakery. No database and no LLM.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "1")

import django  # noqa: E402

django.setup()

from posting.composer import extractive  # noqa: E402
from posting.composer.checking import ArticleFile, business_file_load, compose_check  # noqa: E402
from posting.gate.evaluation import labelled_set_load  # noqa: E402

BUSINESS = ROOT / "tests" / "data" / "compose" / "dev" / "businesses" / "crumb-and-crust.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--words", type=int, default=1000, help="the short article's length in words")
    parser.add_argument("--times", type=int, nargs="+", default=[10, 40, 90], help="longer articles, in multiples")
    parser.add_argument("--repeat", type=int, default=3, help="runs per length (the median is reported)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    options = parser.parse_args()

    business = business_file_load(BUSINESS)
    paragraphs = _paragraphs(options.words)
    compose_check(business=business, article=_article(paragraphs, 1), platform="facebook_page", use_llm=False)

    rows = []
    base_ms = 0.0
    for times in (1, *options.times):
        article = _article(paragraphs, times)
        runs = []
        for _ in range(options.repeat):
            extractive._article_reading.cache_clear()  # each run reads the article afresh
            started = time.perf_counter()
            compose_check(business=business, article=article, platform="facebook_page", use_llm=False)
            runs.append((time.perf_counter() - started) * 1000)
        ms = statistics.median(runs)
        base_ms = base_ms or ms
        words = len(article.body.split())
        ratio = ms / base_ms
        exponent = math.log(ratio) / math.log(times) if times > 1 and ratio > 0 else None
        rows.append(
            {"words": words, "times": times, "ms": round(ms, 1), "ratio": round(ratio, 2), "exponent": exponent}
        )

    if options.json:
        print(json.dumps(rows))
        return 0
    print(f"compose_check (relevance, offline composer, gate) on one article, median of {options.repeat}")
    for row in rows:
        shown = "" if row["exponent"] is None else f"  exponent {row['exponent']:.2f}"
        print(f"{row['words']:>7} words  {row['ms']:>9.1f} ms  x{row['ratio']:<7} (length x{row['times']}){shown}")
    return 0


def _paragraphs(words: int) -> list[str]:
    paragraphs: list[str] = []
    count = 0
    for article in labelled_set_load():
        for paragraph in article.body.split("\n\n"):
            paragraphs.append(paragraph)
            count += len(paragraph.split())
            if count >= words:
                return paragraphs
    return paragraphs


def _article(paragraphs: list[str], times: int) -> ArticleFile:
    body = "\n\n".join(paragraphs * times)
    return ArticleFile(name="long.txt", title="Flour prices rise as the wheat harvest falls short", body=body)


if __name__ == "__main__":
    raise SystemExit(main())
