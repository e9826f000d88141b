"""Small text helpers for the customer's pages."""

from __future__ import annotations

from django import template

register = template.Library()

FIRST_WORDS = 6


@register.filter
def first_words(text: str, count: int = FIRST_WORDS) -> str:
    """The first few words of a draft: what tells one "Approve" button from the next."""
    words = (text or "").split()
    return " ".join(words[:count]) + ("…" if len(words) > count else "")
