"""How much the topics a business names help relevance (issue 10; docs/BENCHMARKS.md, "Session 11").

    DJANGO_DEBUG=1 .venv/bin/python scripts/topics_eval.py [--split S ...] [--cut CUT ...]

``tests/data/compose_topics/topics.json`` holds, for every business of ``tests/data/compose``'s
splits up to blind21, the 3-8 topics a helper typed into the Voice page's field playing its owner
(shown its name, industry line and three of its posts; never an article or the ranker). Each
business's posts are cut (all of them; its Instagram captions alone; three a platform; three on
Facebook alone), ranked over its split's articles without topics, with topics in the words only
(the ranker before session 11), and as shipped (in the words and, as one more line describing the
business, in meaning), and counted against the split's labels. Since session 11's last change a
business of few words with no topics borrows its trade's usual ones (``relevance.topic_build``): the
"no topics" column counts those; the tables in docs/BENCHMARKS.md were measured before it.
Totals only: run it on a held-out split only to score it (``scripts/relevance_loso.py``
``HELD_OUT``). Without ``--split``, every split but the held-out ones.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from posting.composer.checking import ArticleFile, BusinessFile, article_file_load, business_file_load  # noqa: E402
from posting.composer.evaluation import DATA_DIR, HELD_OUT_SPLITS, splits_present  # noqa: E402
from posting.composer.meaning import business_description, business_meaning  # noqa: E402
from posting.composer.relevance import relevance_score, topic_build  # noqa: E402

TOPICS = Path(__file__).resolve().parent.parent / "tests" / "data" / "compose_topics" / "topics.json"
HELD_OUT = HELD_OUT_SPLITS

CUTS: dict[str, Callable[[BusinessFile], BusinessFile | None]] = {
    "all": lambda b: b,
    "instagram": lambda b: dataclasses.replace(b, facebook_posts=[]) if b.instagram_posts else None,
    "three": lambda b: dataclasses.replace(
        b, facebook_posts=b.facebook_posts[:3], instagram_posts=b.instagram_posts[:3]
    ),
    "facebook-three": lambda b: dataclasses.replace(b, facebook_posts=b.facebook_posts[:3], instagram_posts=[]),
}
MODES = ("no topics", "topics in the words", "shipped")


def _relevant(business: BusinessFile, topics: list[str], mode: str, articles: list[ArticleFile]) -> set[str]:
    posts = [*business.facebook_posts, *business.instagram_posts]
    chosen = [] if mode == "no topics" else topics
    described = business_description(
        industry=business.industry, names=business.names, topics=chosen if mode == "shipped" else []
    )
    topic = topic_build(
        industry=business.industry,
        own_names=business.names,
        past_posts=posts,
        topics=chosen,
        meaning=business_meaning(posts=list(dict.fromkeys(posts)), description=described),
    )
    return {a.name for a in articles if relevance_score(topic=topic, title=a.title, body=a.body).relevant}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", action="append", help="a split of tests/data/compose (repeatable)")
    parser.add_argument("--cut", action="append", choices=sorted(CUTS), help="a cut of the posts (repeatable)")
    args = parser.parse_args()
    topics = json.loads(TOPICS.read_text(encoding="utf-8"))
    # Every tuned-on split whose businesses the helper gave topics for (blind26 onwards were
    # written after, and have none).
    with_topics = {key.split("/", 1)[0] for key in topics}
    splits = args.split or [split for split in splits_present() if split not in HELD_OUT and split in with_topics]
    cuts = args.cut or list(CUTS)
    totals = {(cut, mode): [0, 0, 0] for cut in cuts for mode in MODES}
    for split in splits:
        root = DATA_DIR / split
        labels = json.loads((root / "labels.json").read_text(encoding="utf-8"))
        articles = [article_file_load(path) for path in sorted((root / "articles").glob("*.txt"))]
        for slug, label in sorted(labels.items()):
            if slug.startswith("_"):
                continue
            whole = business_file_load(root / "businesses" / f"{slug}.json")
            wanted = set(label["relevant"])
            for cut in cuts:
                business = CUTS[cut](whole)
                if business is None:
                    continue
                for mode in MODES:
                    got = _relevant(business, topics[f"{split}/{slug}"], mode, articles)
                    counts = totals[(cut, mode)]
                    counts[0] += len(got & wanted)
                    counts[1] += len(got - wanted)
                    counts[2] += len(wanted - got)
    print(f"splits: {', '.join(splits)}")
    for (cut, mode), (right, wrong, missed) in totals.items():
        precision = right / max(right + wrong, 1)
        recall = right / max(right + missed, 1)
        print(f"{cut:15s} {mode:20s} {right:4d} {wrong:3d} {missed:3d}  precision {precision:.3f} recall {recall:.3f}")


if __name__ == "__main__":
    main()
