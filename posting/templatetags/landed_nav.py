"""The customer's navigation: one list of sections, in the issue's order, rendered in a
``<nav>`` landmark with the current section marked ``aria-current="page"``."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()

# (path segment under /a/<slug>/, link name). The names are a public interface (issue 11):
# tests and assistive technology find the links by them.
SECTIONS: tuple[tuple[str, str], ...] = (
    ("drafts", "Drafts"),
    ("queue", "Queue"),
    ("history", "History"),
    ("channels", "Channels"),
    ("sources", "Sources"),
    ("voice", "Voice"),
    ("settings", "Settings"),
)


@register.inclusion_tag("posting/nav.html", takes_context=True)
def account_nav(context: dict[str, Any]) -> dict[str, Any]:
    request = context["request"]
    account = context["account"]
    prefix = f"/a/{account.slug}/"
    current = request.path[len(prefix) :].split("/", 1)[0] if request.path.startswith(prefix) else ""
    links = [
        {"href": f"{prefix}{segment}/", "name": name, "current": segment == current}
        # Every member sees Settings: their own emails are there; the account-wide part
        # of the page is the owner's alone (Role.may_change_settings).
        for segment, name in SECTIONS
    ]
    return {"links": links}
