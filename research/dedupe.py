"""One story, many URLs and outlets: canonical URLs and content fingerprints."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from functools import partial
from operator import methodcaller
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

# Query parameters that say who sent the reader, not what the page is.
_TRACKING_PREFIXES = ("utm_", "mc_", "pk_", "piwik_", "hsa_", "_hs")
_TRACKING_NAMES = {
    "fbclid",
    "gclid",
    "dclid",
    "msclkid",
    "yclid",
    "igshid",
    "mkt_tok",
    "ref",
    "ref_src",
    "referrer",
    "cmpid",
    "ncid",
    "sr_share",
    "spm",
    "guccounter",
    "_ga",
    "oly_anon_id",
    "oly_enc_id",
    "vero_id",
    "wt.mc_id",
    "at_medium",
    "at_campaign",
    "s_cid",
}

# Simhash over word 3-shingles: two texts whose fingerprints differ in at most this many of
# 64 bits are the same story (syndicated copies, light edits, different boilerplate).
NEAR_DUPLICATE_BITS = 3
_WORD = re.compile(r"\w+", re.UNICODE)
_MASK64 = (1 << 64) - 1
_HASH8 = partial(hashlib.blake2b, digest_size=8)
_DIGEST = methodcaller("digest")


def canonical_url(url: str) -> str:
    """Lower-case scheme and host, no default port, no fragment, no tracking parameters."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower().rstrip(".")
    try:
        port = parts.port
    except ValueError:
        port = None
    host_part = f"[{host}]" if ":" in host else host
    default_port = port is None or (scheme, port) in {("http", 80), ("https", 443)}
    netloc = host_part if default_port else f"{host_part}:{port}"
    query = [
        (key, value)
        for key, value in parse_qsl(parts.query, keep_blank_values=True)
        if key.lower() not in _TRACKING_NAMES and not key.lower().startswith(_TRACKING_PREFIXES)
    ]
    # The path is kept as is (no "www." or trailing-slash folding): we fetch this URL, and
    # some sites only answer on the exact host and path they published.
    path = parts.path or "/"
    return urlunsplit((scheme, netloc, path, urlencode(query), ""))


def fingerprint(text: str) -> int | None:
    """A 64-bit simhash of the text, as a signed integer (it fits a BigIntegerField)."""
    # Every word counts: a fingerprint of only the first words would call a page the same
    # story as one with paragraphs appended after them (the page size cap bounds the text).
    words = _WORD.findall(text.lower())
    if len(words) < 3:
        return None
    # The shorter slices end the zip: the last shingle starts at the third-last word.
    shingles = set(map(" ".join, zip(words, words[1:], words[2:], strict=False)))
    # Hashing and bit counting run in C (map over C callables, big-integer arithmetic); a
    # Python loop per shingle or per bit would cost more than the rest of the stage around
    # extraction. Bit i of the 64 (most significant first) is bit 7 - i % 8 of byte i // 8
    # of each big-endian digest. Every 8th byte of the joined digests, read as one integer,
    # holds byte i // 8 of all of them, one per 8-bit lane; shifted and masked to the lowest
    # bit of each lane, its bit count is how many digests have bit i set.
    digests = b"".join(map(_DIGEST, map(_HASH8, map(str.encode, shingles))))
    count = len(shingles)
    lowest_bits = int.from_bytes(b"\x01" * count, "little")
    value = 0
    for offset in range(8):
        lanes = int.from_bytes(digests[offset::8], "little")
        for bit in range(7, -1, -1):
            value = (value << 1) | (1 if ((lanes >> bit) & lowest_bits).bit_count() > count / 2 else 0)
    return value - (1 << 64) if value >= 1 << 63 else value


def hamming(a: int, b: int) -> int:
    return ((a & _MASK64) ^ (b & _MASK64)).bit_count()


def is_near_duplicate(a: int, b: int) -> bool:
    return hamming(a, b) <= NEAR_DUPLICATE_BITS


def distinct_stories(items: Iterable[tuple[int, int | None]]) -> list[int]:
    """The ids of ``items`` (id, fingerprint) that are not near-duplicates of an earlier one.

    Order is precedence: the first of each group of near-duplicates stands for the story.
    An item without a fingerprint is its own story.
    """
    index = FingerprintIndex()
    kept = []
    for pk, value in items:
        if value is not None:
            if index.find(value) is not None:
                continue
            index.add(pk, value)
        kept.append(pk)
    return kept


class FingerprintIndex:
    """Near-duplicate lookup without comparing against every known story.

    The 64 bits are cut into NEAR_DUPLICATE_BITS + 1 bands; two fingerprints that differ
    in at most NEAR_DUPLICATE_BITS bits agree exactly on at least one band (pigeonhole),
    so only stories sharing a band are compared.
    """

    _BANDS = NEAR_DUPLICATE_BITS + 1
    _WIDTH = 64 // _BANDS

    def __init__(self, items: Iterable[tuple[int, int]] = ()) -> None:
        self._buckets: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for pk, value in items:
            self.add(pk, value)

    def add(self, pk: int, value: int) -> None:
        for key in self._keys(value):
            self._buckets.setdefault(key, []).append((pk, value))

    def find(self, value: int, *, exclude: int | None = None) -> int | None:
        """The id of a known near-duplicate of ``value`` (the first stored), or None."""
        best: int | None = None
        for key in self._keys(value):
            for pk, other in self._buckets.get(key, ()):
                if pk != exclude and is_near_duplicate(value, other) and (best is None or pk < best):
                    best = pk
        return best

    def _keys(self, value: int) -> list[tuple[int, int]]:
        value &= _MASK64
        mask = (1 << self._WIDTH) - 1
        return [(band, (value >> (band * self._WIDTH)) & mask) for band in range(self._BANDS)]
