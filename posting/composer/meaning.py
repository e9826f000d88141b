"""How close in meaning an article is to what a business writes (issue 10, relevance).

The lexical ranker (``relevance.py``) matches words; a business's trade shows in words an
article may never use, and word lists tuned on our splits did not carry to splits written by
others. Here the bundled sentence model (``posting/semantic.py``) embeds each of the business's
past posts and each passage of the article (its headline, then its paragraphs). A passage's
closeness is its mean similarity to its ``NEAREST_POSTS`` most similar posts, and an article's
the mean of its ``BEST_PASSAGES`` closest passages'. Passages, not the whole text, so a business
reached only in the second half of a story is still found; two of them, so one sentence in
passing does not make the story the business's; a few posts, not one, so one odd post does not
make the business about anything. (Chosen leave-one-split-out over the tuned-on splits: the best
single passage, or the posts' centroid, held out worse; docs/BENCHMARKS.md.)

The business's industry line and own names are embedded too and read as a few more posts, by
the combined score only (``Closeness.described``): a business whose posts hardly name its trade
is still known by it, and a name shared with a town never opens the meaning-alone path (recall
round 3, docs/BENCHMARKS.md).

Cost is bounded on both sides: an article is embedded on at most ``ARTICLE_MAX_TOKENS`` word
pieces (about 700 words; a longer one keeps paragraphs spread over its whole length) and
once per article (the product stores the vectors on the article row, ``research.Article.meaning``;
in one process they are also cached by the text), a business on its ``BUSINESS_MAX_POSTS``
most recent posts, each embedded once (``PastPost.meaning``).

With the model missing (``semantic.available()`` False) every function here says so by
returning None, and relevance is the lexical ranker's alone; that is logged once per process.
"""

from __future__ import annotations

import hashlib
import logging
import multiprocessing
import threading
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from posting import semantic

logger = logging.getLogger(__name__)

# The posts a passage is compared with: its closest few, averaged.
NEAREST_POSTS = 3
# The passages an article is judged by: its closest two, averaged.
BEST_PASSAGES = 2
# A business is known by its most recent posts; older ones add cost, not meaning.
BUSINESS_MAX_POSTS = 40
# An article's word pieces embedded at most (headline and paragraphs together): 4 full windows
# of the model, about 700 words, ~0.4 s on one core. Articles in our splits are 200-600 words.
ARTICLE_MAX_TOKENS = 1024
# A paragraph shorter than this many words is read with the next one: a one-line paragraph
# ("Tickets are £5.") says little on its own.
PASSAGE_MIN_WORDS = 25
# The stored form: float16 is enough for cosines to three decimals and halves the row.
STORED_DTYPE = np.float16
DIGEST_BYTES = 16
# Each article's vectors in one worker process, keyed by its text (as the lexical key terms).
ARTICLE_CACHE_SIZE = 2048

Vectors = semantic.Floats

_missing_logged = False
# One embedding at a time per process. A worker runs several compose tasks in threads, and at the
# start of a night they all reach the same new articles at once: without this each thread embedded
# each article itself (measured: the small night's compose stage took 84 s for 20 articles and 10
# accounts, threads thrashing two cores); with it the first thread embeds and the others read the
# process's cache. The model runs on one BLAS thread, so nothing is lost by taking turns.
_embedding = threading.Lock()
# In a worker that runs tasks in threads (Celery's thread pool, production's shape), the forward
# pass runs in a child process of its own. numpy gives up the GIL at every one of its ~150
# operations per text and then waits for it behind the other threads' Python (the lexical ranker,
# the gate): measured, 13 ms for one passage alone and 676 ms beside four busy threads, and the
# small night's compose stage went from 1.1 s to 30 s. The child has no other threads. A process
# whose main thread embeds (the commands, the tests, a prefork or solo worker) embeds in place.
_child: ProcessPoolExecutor | None = None
_child_lock = threading.Lock()


def _embed(texts: list[str]) -> Vectors:
    if threading.current_thread() is threading.main_thread():
        return semantic.embed_batch(texts)
    global _child
    with _child_lock:
        if _child is None:
            _child = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        child = _child
    try:
        return child.submit(semantic.embed_batch, texts).result()
    except BrokenProcessPool:
        # The child died (killed, out of memory): embed here this time, a fresh child next time.
        logger.warning("the embedding process stopped; embedding in the worker's thread")
        with _child_lock:
            _child = None
        return semantic.embed_batch(texts)


def model_available() -> bool:
    """Whether meaning can be used here; logs once per process when it cannot."""
    global _missing_logged
    if semantic.available():
        return True
    if not _missing_logged:
        _missing_logged = True
        logger.warning("the sentence model is not installed: relevance uses words alone")
    return False


@dataclass(frozen=True)
class BusinessMeaning:
    """What a business writes about, as vectors: one per past post (most recent first)."""

    vectors: Vectors
    posts: tuple[str, ...]
    # What the business says it is, its industry line and its own names, as vectors (None: neither).
    # Read as a few more posts by the combined score only (``Closeness.described``): a business
    # whose posts carry few trade words ("Barber shop", chatty posts) is still known by its trade.
    described: Vectors | None = None
    # How many of the last ``posts`` are articles the customer taught us (``TaughtArticle``): read
    # for closeness like posts, but not for what the business is (its trade's place, how much its
    # posts say): a café that asked for the late buses is no bus company.
    taught: int = 0

    @property
    def own_posts(self) -> tuple[str, ...]:
        return self.posts[: len(self.posts) - self.taught]

    @property
    def own_vectors(self) -> Vectors:
        return self.vectors[: len(self.vectors) - self.taught]

    def untaught(self) -> BusinessMeaning:
        """The same business as it was before the customer taught us anything."""
        return replace(self, vectors=self.own_vectors, posts=self.own_posts, taught=0)


@dataclass(frozen=True)
class Closeness:
    """How close an article is to the business's posts, and to which post most."""

    score: float
    nearest_post: str
    # The same closeness with the industry line and own names read as posts too (None: the
    # business gave neither): what relevance's combined score uses; ``score`` alone is what the
    # meaning-alone path uses, where a name shared with a street or a town must not count.
    described: float | None = None


def business_description(*, industry: str, names: Sequence[str], topics: Sequence[str] = ()) -> list[str]:
    """What describes a business besides its posts, as the combined score reads it (a few more
    posts, ``Closeness.described``): its industry line, its names, and the topics it chose as one
    line ("nails, gel nails, bridal nails"), the way an industry line reads. Topics help most a
    business whose posts say little: cutting the tuned-on splits' businesses to their Instagram
    captions, recall 0.608 without topics, 0.803 with them in the words, 0.824 with them here too
    (docs/BENCHMARKS.md, "Session 11: the topics a customer names")."""
    chosen = ", ".join(topic.strip() for topic in topics if topic.strip())
    return [industry, *names, chosen]


def description_texts(description: Sequence[str]) -> tuple[str, ...]:
    """The industry line and own names as embedded: stripped, blank ones and repeats left out."""
    return tuple(dict.fromkeys(text.strip() for text in description if text.strip()))


def business_meaning(
    *,
    posts: Sequence[str],
    vectors: Sequence[Vectors | None] | None = None,
    description: Sequence[str] = (),
    described: Vectors | None = None,
    taught: Sequence[str] = (),
    taught_vectors: Sequence[Vectors | None] | None = None,
) -> BusinessMeaning | None:
    """The business's posts as vectors, or None without the model or without posts.

    ``vectors``, when given, holds a stored vector per post (None for one not stored yet):
    only the missing ones are embedded. ``description``: the industry line and the business's
    own names (blank ones skipped), embedded together in one short pass (cached in the process
    by their text), unless ``described`` holds their stored vectors (``Account.description_meaning``:
    in a worker the pass is a round trip to the embedding process, behind the articles').
    ``taught`` (and their stored ``taught_vectors``): articles the customer taught us, read after
    the posts (``BusinessMeaning.taught``); a business with taught articles and no posts yet has
    no meaning (nothing says what it is).
    """
    stored = list(vectors) if vectors is not None else [None] * len(posts)
    pairs = [(post, vector) for post, vector in zip(posts, stored, strict=True) if post.strip()]
    taught_stored = list(taught_vectors) if taught_vectors is not None else [None] * len(taught)
    taught_pairs = [(text, vector) for text, vector in zip(taught, taught_stored, strict=True) if text.strip()]
    pairs = pairs[: BUSINESS_MAX_POSTS - len(taught_pairs)]
    if not pairs or not model_available():
        return None
    pairs += taught_pairs
    said = description_texts(description)
    if not said:
        described = None
    with _embedding:
        wanted = tuple(post for post, vector in pairs if vector is None)
        embedded = _posts_vectors(wanted) if wanted else np.zeros((0, semantic.DIMENSIONS), dtype=np.float32)
        if said and described is None:
            described = _posts_vectors(said).astype(np.float32)
    fresh = iter(embedded)
    rows = [vector if vector is not None else next(fresh) for _, vector in pairs]
    return BusinessMeaning(
        vectors=np.vstack(rows).astype(np.float32),
        posts=tuple(post for post, _ in pairs),
        described=described,
        taught=len(taught_pairs),
    )


@lru_cache(maxsize=ARTICLE_CACHE_SIZE)
def _posts_vectors(posts: tuple[str, ...]) -> Vectors:
    # The commands and the evaluation build a business's topic once per article checked.
    return _embed(list(posts))


def article_passages(*, title: str, body: str) -> list[str]:
    """The headline, then the body's paragraphs (short ones joined to the next), within
    ARTICLE_MAX_TOKENS word pieces; over that, paragraphs spread evenly over the article."""
    paragraphs = [p.strip() for p in body.split("\n") if p.strip()]
    passages: list[str] = []
    pending = ""
    for paragraph in paragraphs:
        pending = f"{pending} {paragraph}".strip()
        if len(pending.split()) >= PASSAGE_MIN_WORDS:
            passages.append(pending)
            pending = ""
    if pending:
        passages.append(pending)
    head = [title.strip()] if title.strip() else []
    costs = [min(len(semantic.token_ids(text)), semantic.MAX_TOKENS) for text in head + passages]
    budget = ARTICLE_MAX_TOKENS - sum(costs[: len(head)])
    body_costs = costs[len(head) :]
    if sum(body_costs) <= budget:
        return head + passages
    # Too long: every k-th passage, so the end of the story is read as well as its start.
    for step in range(2, len(passages) + 1):
        chosen = list(range(0, len(passages), step))
        if sum(body_costs[i] for i in chosen) <= budget:
            return head + [passages[i] for i in chosen]
    return head + passages[:1]


def article_vectors(*, title: str, body: str) -> Vectors | None:
    """The article's passages as vectors (None without the model); once per text per process."""
    if not model_available():
        return None
    with _embedding:
        return _article_vectors(title, body)


@lru_cache(maxsize=ARTICLE_CACHE_SIZE)
def _article_vectors(title: str, body: str) -> Vectors:
    passages = article_passages(title=title, body=body)
    return _embed(passages) if passages else np.zeros((0, semantic.DIMENSIONS), dtype=np.float32)


def story_gist(vectors: Vectors | None) -> Vectors | None:
    """What an article says, as one unit vector: the mean of its passages (None without them).
    Two outlets' reports of one story lie close together whatever words each chose."""
    if vectors is None or not len(vectors):
        return None
    mean = np.asarray(vectors, dtype=np.float32).mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm else None


def closeness(business: BusinessMeaning, vectors: Vectors) -> Closeness:
    """The mean, over the article's BEST_PASSAGES closest passages, of each one's mean
    similarity to its NEAREST_POSTS closest posts; and the post nearest the closest passage.
    ``described``: the same with the industry line and own names among the posts."""
    if not len(vectors) or not len(business.vectors):
        return Closeness(score=0.0, nearest_post="")
    sims = vectors @ business.vectors.T  # passages x posts
    per_passage = _nearest_mean(sims)
    score = float(np.sort(per_passage)[-BEST_PASSAGES:].mean())
    best = int(np.argmax(per_passage))
    # Shown as "close in meaning to your post ...": one of its own posts, never an article it taught us.
    post = int(np.argmax(sims[best][: len(business.own_posts)]))
    described = None
    if business.described is not None and len(business.described):
        both = np.hstack([sims, vectors @ business.described.T])
        described = round(float(np.sort(_nearest_mean(both))[-BEST_PASSAGES:].mean()), 4)
    return Closeness(score=round(score, 4), nearest_post=business.posts[post], described=described)


def _nearest_mean(sims: Vectors) -> Vectors:
    # Each passage's mean similarity to its NEAREST_POSTS most similar posts.
    k = min(NEAREST_POSTS, sims.shape[1])
    return np.sort(sims, axis=1)[:, -k:].mean(axis=1)


# --- storing vectors on rows: a digest of the text they were computed from, then float16 rows.


def text_digest(*parts: str) -> bytes:
    return hashlib.sha256("\x1f".join(parts).encode()).digest()[:DIGEST_BYTES]


def vectors_pack(vectors: Vectors, *, digest: bytes, dtype: type[np.floating] = STORED_DTYPE) -> bytes:
    return digest + np.asarray(vectors, dtype=dtype).tobytes()


def vectors_unpack(
    data: bytes | memoryview | None, *, digest: bytes, dtype: type[np.floating] = STORED_DTYPE
) -> Vectors | None:
    """The stored vectors, or None when nothing is stored or the text has changed since."""
    if not data:
        return None
    raw = bytes(data)
    if raw[:DIGEST_BYTES] != digest:
        return None
    flat = np.frombuffer(raw[DIGEST_BYTES:], dtype=dtype)
    if flat.size % semantic.DIMENSIONS:
        return None
    return flat.reshape(-1, semantic.DIMENSIONS).astype(np.float32)
