"""What the platforms accept in a post: the one place their limits are written.

The composer (its model path and its extractive trimming), the customer's edit check and the
Graph sandbox all read these, so a draft the composer keeps is one the edit page accepts and
the platform takes. Reference: docs/meta-graph-api.md section 3.

Plain Python, no Django: the Graph sandbox runs standalone and reads it too. Keys are the
values of ``posting.models.Platform`` (a Platform member looks them up as well).
"""

from __future__ import annotations

import re

FACEBOOK_PAGE = "facebook_page"
INSTAGRAM = "instagram"
PLATFORM_NAMES = {FACEBOOK_PAGE: "Facebook", INSTAGRAM: "Instagram"}

MAX_CHARS = {FACEBOOK_PAGE: 63_206, INSTAGRAM: 2_200}
# Only Instagram counts hashtags and @mentions in a caption.
MAX_HASHTAGS = {INSTAGRAM: 30}
MAX_MENTIONS = {INSTAGRAM: 20}

# A hashtag or mention starts a word: "a#b" and "me@example.com" are neither. "##tag" counts
# once, as the platform counts it.
HASHTAG_RE = re.compile(r"(?<!\w)#\w+")
MENTION_RE = re.compile(r"(?<![\w@])@\w+")


def hashtags_count(text: str) -> int:
    return len(HASHTAG_RE.findall(text))


def mentions_count(text: str) -> int:
    return len(MENTION_RE.findall(text))


def platform_limit_broken(*, platform: str, text: str) -> str:
    """Which limit of ``platform`` the text breaks, in plain words; "" when it breaks none."""
    if platform not in MAX_CHARS:
        raise ValueError(f"unknown platform {platform!r}")
    name = PLATFORM_NAMES[platform]
    if len(text) > MAX_CHARS[platform]:
        return f"The post is {len(text)} characters; the limit here is {MAX_CHARS[platform]}."
    hashtags = hashtags_count(text)
    if platform in MAX_HASHTAGS and hashtags > MAX_HASHTAGS[platform]:
        return f"{name} allows at most {MAX_HASHTAGS[platform]} hashtags; this post has {hashtags}."
    mentions = mentions_count(text)
    if platform in MAX_MENTIONS and mentions > MAX_MENTIONS[platform]:
        return f"{name} allows at most {MAX_MENTIONS[platform]} @mentions; this post has {mentions}."
    return ""
