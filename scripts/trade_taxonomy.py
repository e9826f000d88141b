"""Embed the bundled taxonomy of trades and news beats, once, into the repository (issue 10).

    .venv/bin/python scripts/trade_taxonomy.py

Reads ``posting/composer/data/trades.txt`` (one "name: description" a line, written from general
knowledge after a standard industry classification's titles and a local paper's beats, not from
the evaluation set's businesses) and writes ``posting/composer/data/trades.npz`` (committed): the
lines, their vectors from the bundled sentence model (``posting/semantic.py``) in float16, and a
digest of the text file, so the ranker can tell a stale file from a fresh one. The ranker only
loads it (``posting/composer/contrast.py``): nothing is embedded at run time.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from posting import semantic
from posting.composer.contrast import TAXONOMY_TEXT, TAXONOMY_VECTORS, taxonomy_digest, taxonomy_lines


def main() -> None:
    lines = taxonomy_lines(TAXONOMY_TEXT.read_text())
    vectors = semantic.embed_batch(lines)
    np.savez_compressed(
        TAXONOMY_VECTORS,
        lines=np.array(lines),
        vectors=vectors.astype(np.float16),
        digest=np.array(taxonomy_digest(TAXONOMY_TEXT.read_text())),
    )
    print(f"{len(lines)} trades and beats -> {TAXONOMY_VECTORS}")


if __name__ == "__main__":
    main()
