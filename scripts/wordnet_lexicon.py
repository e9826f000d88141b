"""Derive the factual gate's compact word table from WordNet 3.0, once, into the repository.

    python scripts/wordnet_lexicon.py --wordnet /usr/share/wordnet   # Debian: apt install wordnet-base

Writes ``posting/gate/data/wordnet.json.gz`` (committed): what the gate needs from WordNet and
nothing more, so that a fresh machine installs it from the project's own files and nothing
is downloaded at run time (``wordnet-base`` is an apt package that ``make install`` cannot
rely on, and no PyPI package ships the data without a download step).

The table holds, all lower case and single words only:

* ``words``: every word WordNet writes in lower case somewhere (an ordinary word, not only a
  name); ``verbs``: the lemmas it knows as verbs. A capitalised first
  word of a draft sentence that is an ordinary word ("Coming", "Plus", "Big") is grammar,
  not a name the article must contain.
* ``synonyms``: for each word, the other words of its most frequent sense (the first synset
  of its index entry) for nouns, verbs and adjectives. Only the first sense, so that "fire"
  finds "dismiss" and "shop" finds "store", but not every far-fetched sense under the sun.
* ``antonyms``: WordNet's direct antonym pairs for verbs, adjectives and adverbs ("rise" /
  "fall", "open" / "close"), plus the head antonym of an adjective's first sense when it is a
  satellite ("huge" is similar to "large", the opposite of "small").
* ``nouns``: the lemmas WordNet knows as nouns. A word standing where the article has another
  is a swap of things only when both can be nouns ("evening" for "morning", "oven" for
  "grill"); "space" where the article has "long", or a word WordNet does not know at all, is a
  reworded phrase, which the coverage check weighs instead.
* ``adjectives`` and ``similar``: the lemmas WordNet knows as adjectives, and for each, the
  head adjectives of the clusters its senses belong to ("soggy" -> "wet"): a draft's
  "soggy Sunday" paraphrases the article's "wet Sunday", "toasty" does not swap "warm".
* ``general``: for each noun, the words of the more general things its two most frequent senses
  are, up to two steps up WordNet's hypernym tree ("dad" -> "father", "kit" -> "gear",
  "equipment", "loo" -> "toilet"). A draft that calls the article's "equipment" "kit", or its
  "father" "dad", names the same thing more loosely, not another thing of its kind ("kidney" for
  "liver" is neither's hypernym, and stays a swap). The gate reads it one way only
  (``posting.gate.lexicon.more_general``).
* ``irregular``: irregular verb and noun forms from WordNet's exception lists ("stood" ->
  "stand", "children" -> "child"), left out where the form is itself an ordinary noun or
  adjective ("saw", "left", "found"), which would be misread.

WordNet 3.0 licence (Princeton University): permission to use, copy, modify and distribute
the database for any purpose and without fee is granted, provided the copyright notice and
the statement appear in all copies. That notice is carried inside the generated file.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path
from typing import TypedDict

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "posting" / "gate" / "data" / "wordnet.json.gz"
POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
LICENCE = (
    "Derived from WordNet 3.0 by scripts/wordnet_lexicon.py. WordNet 3.0 Copyright 2006 by Princeton "
    'University. All rights reserved. THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON '
    "UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. Permission to use, copy, "
    "modify and distribute this software and database and its documentation for any purpose and without "
    "fee or royalty is hereby granted, provided that you agree to comply with the copyright notice and "
    "statements, including the disclaimer, and that the same appear on ALL copies of the software, "
    "database and documentation. The name of Princeton University may not be used in advertising or "
    "publicity pertaining to distribution of the software and/or database."
)


class Lexicon(TypedDict):
    """The table written to the output file (JSON, gzipped)."""

    licence: str
    words: list[str]
    verbs: list[str]
    synonyms: dict[str, list[str]]
    antonyms: list[tuple[str, str]]
    irregular: dict[str, str]
    nouns: list[str]
    adjectives: list[str]
    similar: dict[str, list[str]]
    general: dict[str, list[str]]


def _pair(one: str, other: str) -> tuple[str, str]:
    """An antonym pair in sorted order, so that each pair is stored once."""
    return (one, other) if one <= other else (other, one)


def _single(lemma: str) -> bool:
    return lemma.isalpha() and lemma.islower() and len(lemma) > 1


def _synsets(dictionary: Path, pos: str) -> dict[str, tuple[list[str], list[tuple[str, str, int, int]]]]:
    """offset -> (words in the synset, pointers as (symbol, target offset+pos, source, target))."""
    synsets: dict[str, tuple[list[str], list[tuple[str, str, int, int]]]] = {}
    for line in (dictionary / f"data.{POS_FILES[pos]}").read_text(encoding="latin-1").splitlines():
        if line.startswith(" "):
            continue  # the licence header
        fields = line.split(" | ")[0].split()
        offset, count = fields[0], int(fields[3], 16)
        words = [fields[4 + 2 * index].split("(")[0] for index in range(count)]
        at = 4 + 2 * count
        pointer_count = int(fields[at])
        pointers = []
        for index in range(pointer_count):
            symbol, target, target_pos, source_target = fields[at + 1 + 4 * index : at + 5 + 4 * index]
            pointers.append(
                (
                    symbol,
                    f"{target}{'a' if target_pos == 's' else target_pos}",
                    int(source_target[:2], 16),
                    int(source_target[2:], 16),
                )
            )
        synsets[offset + pos] = (words, pointers)
    return synsets


def _index(dictionary: Path, pos: str) -> dict[str, list[str]]:
    """lemma -> its synset offsets, most frequent sense first."""
    entries: dict[str, list[str]] = {}
    for line in (dictionary / f"index.{POS_FILES[pos]}").read_text(encoding="latin-1").splitlines():
        if line.startswith(" "):
            continue
        fields = line.split()
        lemma, synset_count, pointer_count = fields[0], int(fields[2]), int(fields[3])
        offsets = fields[4 + pointer_count + 2 :]
        entries[lemma] = [offset + pos for offset in offsets[:synset_count]]
    return entries


def build(dictionary: Path) -> Lexicon:
    synsets: dict[str, tuple[list[str], list[tuple[str, str, int, int]]]] = {}
    indexes: dict[str, dict[str, list[str]]] = {}
    for pos in POS_FILES:
        synsets.update(_synsets(dictionary, pos))
        indexes[pos] = _index(dictionary, pos)

    # Ordinary words: written in lower case in some synset (the index lower-cases names too).
    words = sorted({word for members, _ in synsets.values() for word in members if _single(word)})
    verbs = sorted({lemma for lemma in indexes["v"] if _single(lemma)})

    synonyms: dict[str, set[str]] = {}
    for pos in ("n", "v", "a"):
        for lemma, offsets in indexes[pos].items():
            if not _single(lemma) or not offsets:
                continue
            others = {word.lower() for word in synsets[offsets[0]][0] if word.lower() != lemma}
            others = {word for word in others if _single(word)}
            if others:
                synonyms.setdefault(lemma, set()).update(others)

    antonyms: set[tuple[str, str]] = set()
    for key, (members, pointers) in synsets.items():
        pos = key[-1]
        if pos == "n":
            continue
        for symbol, target, source, target_word in pointers:
            if symbol != "!" or not source:
                continue
            left = members[source - 1].split("(")[0].lower()
            right = synsets[target][0][target_word - 1].split("(")[0].lower()
            if _single(left) and _single(right):
                antonyms.add(_pair(left, right))
    # A satellite adjective's first sense shares its head's opposites ("huge" ~ "large" / "small").
    for lemma, offsets in indexes["a"].items():
        if not _single(lemma) or not offsets:
            continue
        members, pointers = synsets[offsets[0]]
        for symbol, target, _, _ in pointers:
            if symbol != "&":
                continue
            _, head_pointers = synsets[target]
            for head_symbol, head_target, source, target_word in head_pointers:
                if head_symbol == "!" and source:
                    right = synsets[head_target][0][target_word - 1].split("(")[0].lower()
                    if _single(right) and right != lemma:
                        antonyms.add(_pair(lemma, right))

    nouns = sorted(lemma for lemma in indexes["n"] if _single(lemma))
    adjectives = sorted(lemma for lemma in indexes["a"] if _single(lemma))
    similar: dict[str, set[str]] = {}
    for lemma, offsets in indexes["a"].items():
        if not _single(lemma):
            continue
        for offset in offsets[:3]:
            for symbol, target, _, _ in synsets[offset][1]:
                if symbol == "&":
                    heads = {word.split("(")[0].lower() for word in synsets[target][0]}
                    similar.setdefault(lemma, set()).update(word for word in heads if _single(word) and word != lemma)

    general: dict[str, set[str]] = {}
    for lemma, offsets in indexes["n"].items():
        if not _single(lemma):
            continue
        # Two senses, two steps: "kit" (its second sense) -> "gear" -> "equipment". A third sense or
        # step reaches words so general ("object", "abstraction") that every noun would match.
        frontier = offsets[:2]
        for _ in range(2):
            frontier = [
                target for offset in frontier for symbol, target, _, _ in synsets[offset][1] if symbol in {"@", "@i"}
            ]
            for offset in frontier:
                general.setdefault(lemma, set()).update(
                    word.lower() for word in synsets[offset][0] if _single(word.lower()) and word.lower() != lemma
                )

    ordinary = set(indexes["n"]) | set(indexes["a"])
    irregular: dict[str, str] = {}
    for name in ("verb", "noun"):
        for line in (dictionary / f"{name}.exc").read_text(encoding="latin-1").splitlines():
            form, *lemmas = line.split()
            if lemmas and _single(form) and _single(lemmas[0]) and form != lemmas[0] and form not in ordinary:
                irregular.setdefault(form, lemmas[0])

    return {
        "licence": LICENCE,
        "words": words,
        "verbs": verbs,
        "synonyms": {word: sorted(others) for word, others in sorted(synonyms.items())},
        "antonyms": sorted(antonyms),
        "irregular": dict(sorted(irregular.items())),
        "nouns": nouns,
        "adjectives": adjectives,
        "similar": {word: sorted(heads) for word, heads in sorted(similar.items())},
        "general": {word: sorted(more) for word, more in sorted(general.items()) if more},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"), help="WordNet 3.0 dict folder")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    options = parser.parse_args()
    table = build(options.wordnet)
    options.output.parent.mkdir(parents=True, exist_ok=True)
    payload = json.dumps(table, separators=(",", ":"), sort_keys=True).encode()
    # mtime=0: the same WordNet gives the same bytes, so a rerun changes nothing in git.
    options.output.write_bytes(gzip.compress(payload, mtime=0))
    print(
        f"{options.output}: {len(table['words'])} words, {len(table['synonyms'])} with synonyms, "
        f"{len(table['antonyms'])} antonym pairs, {len(table['irregular'])} irregular forms, "
        f"{len(table['general'])} nouns with more general words"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
