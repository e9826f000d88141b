"""The bundled sentence model run on numpy (posting/semantic.py) gives the original's answers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from posting import semantic

ROOT = Path(__file__).resolve().parents[2]


def test_the_forward_pass_matches_sentence_transformers_published_similarity() -> None:
    # sentence-transformers' own documentation gives 0.7553 for this pair with all-MiniLM-L6-v2
    # (torch, exact GELU); ours must agree to well within what the ranker could notice.
    score = semantic.similarity("A man is eating food.", "A man is eating a piece of bread.")
    assert score == pytest.approx(0.7553, abs=0.002)


def test_related_texts_are_closer_than_unrelated_ones() -> None:
    hifi = "We sell turntables, amplifiers and loudspeakers from our listening rooms."
    related = "A new record player with a built-in phono stage goes on sale next month."
    unrelated = "The council will resurface the car park behind the library in March."
    assert semantic.similarity(hifi, related) > semantic.similarity(hifi, unrelated) + 0.15


def test_word_pieces_are_berts_uncased_ones() -> None:
    # bert-base-uncased's ids: [CLS] hello , world ! [SEP]; accents are stripped, case folded.
    assert semantic.token_ids("Hello, world!") == [101, 7592, 1010, 2088, 999, 102]
    assert semantic.token_ids("CAFÉ") == semantic.token_ids("cafe")


def test_a_long_text_is_cut_to_the_models_limit() -> None:
    ids = semantic.token_ids("word " * 1000)
    assert len(ids) == semantic.MAX_TOKENS
    assert ids[0] == 101 and ids[-1] == 102


def test_embeddings_are_unit_length_rows() -> None:
    vectors = semantic.embed(["one text", "another text", ""])
    assert vectors.shape == (3, semantic.DIMENSIONS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert semantic.embed([]).shape == (0, semantic.DIMENSIONS)


def test_loading_the_model_prints_nothing() -> None:
    # The wheel's package prints a line when imported; relevance_rank and compose_check print
    # JSON on stdout, so the model must be found without importing that package.
    code = "from posting import semantic; semantic.embed(['a sentence'])"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout == ""


def test_a_missing_model_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(semantic, "_model", None)
    monkeypatch.setattr(semantic, "PACKAGE", "no_such_model_package")
    assert semantic.available() is False
    with pytest.raises(semantic.SemanticModelMissing, match="could not be read"):
        semantic._load()


def test_word_vectors_are_the_texts_words_in_context() -> None:
    words = semantic.word_vectors("The Café opened; it sells coffee.")
    assert [word for word, _ in words] == ["the", "cafe", "opened", ";", "it", "sells", "coffee", "."]
    assert all(np.isclose(np.linalg.norm(vector), 1.0, atol=1e-5) for _, vector in words)
    # The same word reads differently in another sentence: the vectors are contextual.
    river = dict(semantic.word_vectors("They sat on the bank of the river and fished."))["bank"]
    money = dict(semantic.word_vectors("She paid the cheque into her account at the bank."))["bank"]
    loan = dict(semantic.word_vectors("The bank approved the loan for the new shop."))["bank"]
    assert float(money @ loan) > float(money @ river) + 0.05
