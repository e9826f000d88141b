from __future__ import annotations

from pathlib import Path

from research.dedupe import FingerprintIndex, canonical_url, fingerprint, hamming, is_near_duplicate
from research.extract import article_extract_bytes

ARTICLES = Path(__file__).resolve().parents[2] / "demo" / "articles"


def test_canonical_url_strips_tracking_and_fragments_only() -> None:
    assert (
        canonical_url("HTTPS://News.Example.org:443/a/story?id=7&utm_source=x&fbclid=y&gclid=z#comments")
        == "https://news.example.org/a/story?id=7"
    )
    assert canonical_url("http://example.org:8080/p?page=2") == "http://example.org:8080/p?page=2"


def test_a_syndicated_copy_with_other_boilerplate_is_a_near_duplicate() -> None:
    text = article_extract_bytes((ARTICLES / "salon.com.emissions.html").read_bytes(), url="https://x/").text
    syndicated = "Originally published by Grist. " + text.replace("2019", "2019 ") + " Republished with permission."

    assert is_near_duplicate(fingerprint(text), fingerprint(syndicated))


def test_different_stories_are_far_apart() -> None:
    texts = [
        article_extract_bytes((ARTICLES / name).read_bytes(), url="https://x/").text
        for name in ("salon.com.emissions.html", "nature.com.telescope.html", "phys.org.tool.html")
    ]
    prints = [fingerprint(t) for t in texts]

    assert min(hamming(a, b) for i, a in enumerate(prints) for b in prints[i + 1 :]) > 10


def test_fingerprints_fit_a_signed_64_bit_column() -> None:
    value = fingerprint("one two three four five six seven eight nine ten " * 20)

    assert value is not None and -(2**63) <= value < 2**63
    assert fingerprint("too short") is None


def test_the_fingerprint_index_finds_near_duplicates_without_a_full_scan() -> None:
    base = fingerprint("the quick brown fox jumps over the lazy dog near the river bank today " * 5)
    assert base is not None
    near = base ^ 0b1001 ^ (1 << 40)  # three bits apart, in different bands
    far = base ^ 0xFFFF  # sixteen bits apart

    index = FingerprintIndex([(7, base), (3, far)])

    assert index.find(near) == 7
    assert index.find(base, exclude=7) is None
    assert index.find(far) == 3
    assert FingerprintIndex().find(base) is None
