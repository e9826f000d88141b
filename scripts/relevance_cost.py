"""What relevance costs, words alone against words + meaning (one process, one BLAS thread).

    DJANGO_DEBUG=1 .venv/bin/python scripts/relevance_cost.py

blind8's articles ranked for dev's and blind8's businesses: the model's load, embedding each
article and post once, and ranking a pair with the vectors stored (docs/BENCHMARKS.md, the
meaning round); and ranking with the rules' verdict alone against the weighing of every signal
(``weighing.py``, which works out the trade contrast for every pair), in the same run, as a ratio
(docs/BENCHMARKS.md, session 16).
"""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
import django

django.setup()

# ruff: noqa: E402

from posting import semantic
from posting.composer import meaning, weighing
from posting.composer.checking import article_file_load, business_file_load, business_topic
from posting.composer.evaluation import DATA_DIR
from posting.composer.relevance import relevance_score

semantic.embed_batch(["warm up"])  # the model's load, once per process: measured apart
t = time.perf_counter()
semantic._model = None
semantic._load()
load_s = time.perf_counter() - t

businesses = [
    business_file_load(p) for s in ("dev", "blind8") for p in sorted((DATA_DIR / s / "businesses").glob("*.json"))
]
articles = [article_file_load(p) for p in sorted((DATA_DIR / "blind8" / "articles").glob("*.txt"))]

t = time.perf_counter()
topics = [business_topic(b, meaning=False) for b in businesses]
for topic in topics:
    for a in articles:
        relevance_score(topic=topic, title=a.title, body=a.body)
words_s = time.perf_counter() - t

t = time.perf_counter()
vectors = [meaning.article_vectors(title=a.title, body=a.body) for a in articles]
articles_s = time.perf_counter() - t
tokens = sum(
    min(len(semantic.token_ids(p)), semantic.MAX_TOKENS)
    for a in articles
    for p in meaning.article_passages(title=a.title, body=a.body)
)

t = time.perf_counter()
metopics = [business_topic(b) for b in businesses]
posts_s = time.perf_counter() - t
posts = sum(len(set(b.facebook_posts + b.instagram_posts)) for b in businesses)

t = time.perf_counter()
for topic in metopics:
    for a, v in zip(articles, vectors, strict=True):
        relevance_score(topic=topic, title=a.title, body=a.body, vectors=v)
both_s = time.perf_counter() - t
# The rules alone (no weighing file) against the weighing, each twice, alternating, best of two.
rules_s: list[float] = []
weighed_s: list[float] = []
fitted = weighing.weighing
for _ in range(2):
    for patched, times in ((lambda: None, rules_s), (fitted, weighed_s)):
        weighing.weighing = patched  # type: ignore[assignment]
        t = time.perf_counter()
        for topic in metopics:
            for a, v in zip(articles, vectors, strict=True):
                relevance_score(topic=topic, title=a.title, body=a.body, vectors=v)
        times.append(time.perf_counter() - t)
weighing.weighing = fitted
n = len(businesses) * len(articles)
print(f"model load {load_s:.2f} s")
print(f"{len(businesses)} businesses x {len(articles)} articles = {n} pairs")
print(f"words alone: {words_s:.2f} s ({1000 * words_s / n:.2f} ms a pair, topics included)")
per_article = 1000 * articles_s / len(articles)
print(f"embedding {len(articles)} articles once: {articles_s:.2f} s ({per_article:.0f} ms an article, ", end="")
print(f"{tokens / len(articles):.0f} word pieces)")
print(f"embedding {posts} posts once (topics included): {posts_s:.2f} s")
print(f"words + meaning with stored vectors: {both_s:.2f} s ({1000 * both_s / n:.2f} ms a pair)")
print(
    f"rules alone {1000 * min(rules_s) / n:.2f} ms a pair, weighed {1000 * min(weighed_s) / n:.2f} ms a pair: "
    f"ratio {min(weighed_s) / min(rules_s):.2f}"
)
