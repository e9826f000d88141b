"""How a business writes, measured from its past posts. Pure functions: no Django.

``voice_stats`` turns a list of post texts into the numbers the composer shapes drafts
with; ``voice_describe`` turns those numbers into sentences a customer can read.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any

EMOJI_RE = re.compile(
    "[\U0001f1e6-\U0001f1ff\U0001f300-\U0001faff\u2600-\u27bf\u2b50\u2b55\u2934\u2935\u3030\u303d]"
    "[\ufe0f\U0001f3fb-\U0001f3ff]?"
)
HASHTAG_RE = re.compile(r"(?<![\w#])#(\w{1,100})")
MENTION_RE = re.compile(r"(?<![\w@])@(\w[\w.]{0,99})")
URL_RE = re.compile(r"https?://\S+")
WORD_RE = re.compile(r"[A-Za-z']+")

PERSON_WORDS = {
    "we": {"we", "we're", "we've", "we'll", "we'd", "our", "ours", "us"},
    "I": {"i", "i'm", "i've", "i'll", "i'd", "my", "mine", "me"},
    "you": {"you", "you're", "you've", "you'll", "your", "yours"},
}
# A sign-off or phrase must recur in at least this many posts (and this share of them).
MIN_RECURRENCE = 2
MIN_RECURRENCE_SHARE = 0.2
EXEMPLAR_COUNT = 3
# A platform whose posts name the business in at least this share speaks of it in the third person
# by choice: the composer does not lend it another platform's "we", and the Voice page says so.
NAMES_SELF_MIN = 0.1


def voice_stats(texts: list[str], *, own_names: Sequence[str] = ()) -> dict[str, Any]:
    """Statistics of one platform's past posts; empty posts are ignored. ``own_names``: the
    business's name and the names it goes by, to tell how often it speaks of itself by name."""
    posts = [t.strip() for t in texts if t and t.strip()]
    n = len(posts)
    if not n:
        return {"post_count": 0}
    lengths = sorted(len(p) for p in posts)
    emoji_per_post = [EMOJI_RE.findall(p) for p in posts]
    hashtags_per_post = [HASHTAG_RE.findall(p) for p in posts]
    sign_offs = _sign_offs(posts)
    return {
        "post_count": n,
        "length": {
            "median": int(statistics.median(lengths)),
            "p25": _quantile(lengths, 0.25),
            "p75": _quantile(lengths, 0.75),
            "min": lengths[0],
            "max": lengths[-1],
        },
        "emoji": {
            "rate": round(sum(1 for e in emoji_per_post if e) / n, 3),
            "per_post": round(sum(len(e) for e in emoji_per_post) / n, 2),
            "placement": _placement(posts, EMOJI_RE),
            "top": [e for e, _ in Counter(e for es in emoji_per_post for e in es).most_common(5)],
        },
        "hashtags": {
            "rate": round(sum(1 for h in hashtags_per_post if h) / n, 3),
            "per_post": round(sum(len(h) for h in hashtags_per_post) / n, 2),
            "typical": int(statistics.median(len(h) for h in hashtags_per_post)),
            "placement": _placement(posts, HASHTAG_RE),
            "top": _top_hashtags(hashtags_per_post),
        },
        "mentions_per_post": round(sum(len(MENTION_RE.findall(p)) for p in posts) / n, 2),
        "links_rate": round(sum(1 for p in posts if URL_RE.search(p)) / n, 3),
        "punctuation": {
            "exclamation_rate": round(sum(1 for p in posts if "!" in p) / n, 3),
            "question_rate": round(sum(1 for p in posts if "?" in _strip_tokens(p)) / n, 3),
            "ellipsis_rate": round(sum(1 for p in posts if "..." in p or "\u2026" in p) / n, 3),
            "line_break_rate": round(sum(1 for p in posts if "\n" in p) / n, 3),
        },
        "person": _person(posts),
        "person_rate": _person_rate(posts),
        "names_self_rate": names_self_rate(posts, own_names),
        "you_rate": _addresses_reader_rate(posts),
        "calls_to_action": _calls_to_action(posts, sign_offs=sign_offs),
        "phrases": _recurring_phrases(posts, sign_offs=sign_offs),
        "sign_offs": sign_offs,
    }


def voice_exemplars(texts: list[str], *, count: int = EXEMPLAR_COUNT) -> list[str]:
    """A few posts that look most typical: closest to the median length, distinct."""
    posts = list(dict.fromkeys(t.strip() for t in texts if t and t.strip()))
    if not posts:
        return []
    median = statistics.median(len(p) for p in posts)
    return sorted(posts, key=lambda p: (abs(len(p) - median), p))[:count]


def voice_describe(stats: dict[str, Any], *, platform_label: str) -> list[str]:
    """The profile in plain words, one sentence per habit, for the customer's voice page."""
    n = stats.get("post_count", 0)
    if not n:
        return [f"We have not seen any of your {platform_label} posts yet."]
    stats = _with_defaults(stats)
    lines = [f"Learned from {n} of your {platform_label} posts."]
    length = stats["length"]
    if length["median"]:
        size = "short" if length["median"] < 160 else "medium-length" if length["median"] < 500 else "long"
        lines.append(
            f"Your posts are {size}: about {length['median']} characters, most between {length['p25']} and "
            f"{length['p75']}."
        )
    emoji = stats["emoji"]
    if emoji["rate"] >= 0.1:
        where = {"start": " at the start", "end": " at the end", "inline": " within the text"}.get(
            emoji["placement"], ""
        )
        examples = f", e.g. {' '.join(emoji['top'][:3])}" if emoji["top"] else ""
        lines.append(f"You use emoji in {_share(emoji['rate'], n)} posts{where}{examples}.")
    else:
        lines.append("You rarely use emoji.")
    tags = stats["hashtags"]
    if tags["rate"] >= 0.1:
        where = " at the end" if tags["placement"] == "end" else ""
        examples = f", such as {' '.join(tags['top'][:3])}" if tags["top"] else ""
        typical = max(tags["typical"], 1)
        lines.append(f"You usually add {typical} hashtag{'s' if typical > 1 else ''}{where}{examples}.")
    else:
        lines.append("You rarely use hashtags.")
    person = stats["person"]
    if person:
        lines.append(f"You mostly write as \u201c{person}\u201d.")
    elif float(stats.get("names_self_rate") or 0) >= NAMES_SELF_MIN:
        share = _share(stats["names_self_rate"], n)
        lines.append(
            f"You speak of your business by its name in {share} posts, never as \u201cwe\u201d or \u201cI\u201d."
        )
    if stats.get("you_rate", 0) >= 0.3:
        lines.append(f"You speak to your readers as \u201cyou\u201d in {_share(stats['you_rate'], n)} posts.")
    punctuation = stats["punctuation"]
    if punctuation["exclamation_rate"] >= 0.3:
        lines.append(f"You like exclamation marks ({_share(punctuation['exclamation_rate'], n)} posts).")
    if punctuation["question_rate"] >= 0.3:
        lines.append(f"You often ask your readers a question ({_share(punctuation['question_rate'], n)} posts).")
    if stats["sign_offs"]:
        lines.append(f"You often sign off with \u201c{stats['sign_offs'][0]}\u201d.")
    if stats["phrases"]:
        quoted = ", ".join(f"\u201c{p}\u201d" for p in stats["phrases"][:3])
        lines.append(f"Phrases you come back to: {quoted}.")
    return lines


def _with_defaults(stats: dict[str, Any]) -> dict[str, Any]:
    """Fill in what a partial profile (learned by an older version, say) does not have."""
    defaults: dict[str, Any] = {
        "length": {"median": 0, "p25": 0, "p75": 0},
        "emoji": {"rate": 0, "placement": "", "top": []},
        "hashtags": {"rate": 0, "placement": "", "top": [], "typical": 0},
        "punctuation": {"exclamation_rate": 0, "question_rate": 0},
        "person": "",
        "you_rate": 0,
        "sign_offs": [],
        "phrases": [],
    }
    merged = {**defaults, **stats}
    for key, value in defaults.items():
        if isinstance(value, dict):
            merged[key] = {**value, **(stats.get(key) or {})}
    return merged


def _top_hashtags(hashtags_per_post: list[list[str]]) -> list[str]:
    """The ten tags used most (case folded to count), each in the casing the business uses most."""
    counts = Counter(h.lower() for hs in hashtags_per_post for h in hs)
    casings = Counter(h for hs in hashtags_per_post for h in hs)
    spelled: dict[str, str] = {}
    for tag, _ in casings.most_common():
        spelled.setdefault(tag.lower(), tag)
    return ["#" + spelled[h] for h, _ in counts.most_common(10)]


def _share(rate: float, n: int) -> str:
    """ "6 of 8": the posts themselves, counted back from the stored rate (never "of 10")."""
    return f"{round(rate * n)} of {n}"


def _quantile(sorted_values: list[int], q: float) -> int:
    index = round(q * (len(sorted_values) - 1))
    return sorted_values[index]


def _placement(posts: list[str], pattern: re.Pattern[str]) -> str:
    """Where a token habitually sits: "start", "end", "inline" or "" (never used)."""
    places: Counter[str] = Counter()
    for post in posts:
        for match in pattern.finditer(post):
            if not post[: match.start()].strip():
                places["start"] += 1
            elif not _strip_tokens(post[match.end() :]).strip(" \n.!"):
                places["end"] += 1
            else:
                places["inline"] += 1
    return places.most_common(1)[0][0] if places else ""


def _strip_tokens(text: str) -> str:
    """Text without hashtags, mentions, emoji and links: the words a reader reads."""
    for pattern in (URL_RE, HASHTAG_RE, MENTION_RE, EMOJI_RE):
        text = pattern.sub("", text)
    return text


def _person(posts: list[str]) -> str:
    """How the business speaks of itself: "we", "I", or "" when it never does."""
    counts: Counter[str] = Counter()
    for post in posts:
        for word in WORD_RE.findall(_strip_tokens(post).lower()):
            for person in ("we", "I"):
                if word in PERSON_WORDS[person]:
                    counts[person] += 1
    return counts.most_common(1)[0][0] if counts else ""


def _person_rate(posts: list[str]) -> float:
    """The share of posts in which the business speaks of itself at all ("we", "our", "I")."""
    own = PERSON_WORDS["we"] | PERSON_WORDS["I"]
    hits = sum(1 for p in posts if any(w in own for w in WORD_RE.findall(_strip_tokens(p).lower())))
    return round(hits / len(posts), 3)


def names_self_rate(posts: list[str], own_names: Sequence[str]) -> float:
    """The share of posts that name the business ("Skylark over the Renn valley"), by its name or
    a name it goes by: how often it speaks of itself in the third person."""
    # Written as a name, in any case: its words joined by spaces, "&" or "and" (a full stop may end
    # one: "St. Anne's"), never by a comma. A stonemason called Banker & Mallet who posts "Banker,
    # mallet, claw chisel. The whole kit." is listing its tools, not speaking of itself.
    patterns = [
        re.compile(r"\b" + _NAME_JOIN.join(re.escape(word) for word in words) + r"\b", re.IGNORECASE)
        for name in own_names
        # "Fig and Thistle" is also written "Fig & Thistle": the joining word is the join's.
        if (words := [word for word in WORD_RE.findall(str(name).lstrip("@#")) if word.lower() != "and"])
    ]
    if not patterns:
        return 0.0
    said = [_strip_tokens(post) for post in posts]
    return round(sum(1 for text in said if any(pattern.search(text) for pattern in patterns)) / len(posts), 3)


_NAME_JOIN = r"(?:\.?\s+|\s*&\s*|\s+and\s+)"


def _calls_to_action(posts: list[str], *, sign_offs: list[str]) -> list[str]:
    """Short invitations the business writes again and again ("Pop in for a listen."), verbatim.

    Only ones that carry no fact of their own (no number, no name past the first word):
    the composer may end any draft with them.
    """
    counts: Counter[str] = Counter()
    for post in posts:
        seen: set[str] = set()
        for line in _strip_tokens(post).splitlines():
            for sentence in re.split(r"(?<=[.!?])\s+", line.strip()):
                sentence = sentence.strip()
                if sentence and sentence not in sign_offs and _is_invitation(sentence):
                    seen.add(sentence)
        counts.update(seen)
    return [text for text, count in counts.most_common(3) if _recurs(count, len(posts))]


def _split(text: str) -> list[str]:
    return text.split()


CTA_VERBS = frozenset(
    _split("""come pop drop swing stop visit book call ring order grab try ask bring head join tell let share tag
    message dm shop find read listen hear see give check enjoy treat""")
)


def _is_invitation(sentence: str) -> bool:
    words = WORD_RE.findall(sentence)
    if not 2 <= len(words) <= 12 or re.search(r"\d", sentence):
        return False
    if any(word[0].isupper() for word in words[1:] if word.lower() not in {"i"}):
        return False
    return words[0].lower() in CTA_VERBS


def _addresses_reader_rate(posts: list[str]) -> float:
    you = PERSON_WORDS["you"]
    hits = sum(1 for p in posts if any(w in you for w in WORD_RE.findall(_strip_tokens(p).lower())))
    return round(hits / len(posts), 3)


def _recurs(count: int, n: int) -> bool:
    return count >= MIN_RECURRENCE and count / n >= MIN_RECURRENCE_SHARE


# A sign-off is a line, not a paragraph: an address with opening hours ("Gaskell's Hardware, 22
# Sheep Street, Tolbury · open 8 till 5.30, Monday to Saturday") runs to 80 characters and more.
SIGN_OFF_MAX_CHARS = 160


def _sign_offs(posts: list[str]) -> list[str]:
    """Closing lines (or closing sentences) that recur across posts, verbatim: with the business's
    own emoji when it writes them the same way every time ("Cheers from the vines 🍇", "See you in
    the water 🤙"), else without them (one post's 🍇 and another's 🍷 under the same words)."""
    with_emoji = _closings(posts, keep_emoji=True)
    recurring = [text for text, count in with_emoji.most_common(3) if _recurs(count, len(posts))]
    if recurring:
        return recurring
    return [text for text, count in _closings(posts, keep_emoji=False).most_common(3) if _recurs(count, len(posts))]


def _closings(posts: list[str], *, keep_emoji: bool) -> Counter[str]:
    closings: Counter[str] = Counter()
    for post in posts:
        body = post
        for pattern in (URL_RE, HASHTAG_RE, MENTION_RE) if keep_emoji else (URL_RE, HASHTAG_RE, MENTION_RE, EMOJI_RE):
            body = pattern.sub("", body)
        body = body.strip()
        if not body:
            continue
        lines = [" ".join(line.split()) for line in body.splitlines() if line.strip()]
        last = lines[-1] if len(lines) > 1 else re.split(r"(?<=[.!?])\s+", body)[-1]
        # An emoji-only closing line is the business's emoji habit, not a sign-off in words.
        if 0 < len(last) <= SIGN_OFF_MAX_CHARS and last != body and re.search(r"\w", last):
            closings[last] += 1
    return closings


def _recurring_phrases(posts: list[str], *, sign_offs: list[str]) -> list[str]:
    """Three- and four-word phrases used in several posts (each counted once per post).

    Phrases inside a sign-off are the sign-off, reported once as such; of phrases that
    overlap ("see you on the", "you on the road") only the most frequent is kept.
    """
    seen: Counter[str] = Counter()
    for post in posts:
        words = WORD_RE.findall(_strip_tokens(post).lower())
        grams = {" ".join(words[i : i + k]) for k in (3, 4) for i in range(len(words) - k + 1)}
        seen.update(grams)
    closing = " ".join(" ".join(WORD_RE.findall(s.lower())) for s in sign_offs)
    chosen: list[str] = []
    for phrase, count in sorted(seen.items(), key=lambda item: (-item[1], -len(item[0]), item[0])):
        if not _recurs(count, len(posts)) or phrase in closing:
            continue
        if any(_bigrams(phrase) & _bigrams(kept) for kept in chosen):
            continue
        chosen.append(phrase)
        if len(chosen) == 5:
            break
    return chosen


def _bigrams(phrase: str) -> set[str]:
    words = phrase.split()
    return {" ".join(words[i : i + 2]) for i in range(len(words) - 1)}
