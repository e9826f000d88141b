"""The customer's navigation: one list of sections, in the issue's order, rendered in a
``<nav>`` landmark with the current section marked ``aria-current="page"``."""

from __future__ import annotations

from typing import Any

from django import template

from accounts.access import member_memberships
from accounts.models import Role

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
# Shown only to members whose role may change settings (Role.may_change_settings).
OWNERS_ONLY = frozenset({"settings"})
# Pages reached from a section rather than the navigation: the section is marked current.
WITHIN = {"team": "settings"}


@register.inclusion_tag("posting/nav.html", takes_context=True)
def account_nav(context: dict[str, Any]) -> dict[str, Any]:
    request = context["request"]
    account = context["account"]
    prefix = f"/a/{account.slug}/"
    current = request.path[len(prefix) :].split("/", 1)[0] if request.path.startswith(prefix) else ""
    current = WITHIN.get(current, current)
    # Both the role here and the other businesses for the switcher, from the memberships
    # member_required already read for this request (no query of its own).
    memberships = member_memberships(request)
    role = next((Role(m.role) for m in memberships if m.account_id == account.pk), None)
    is_owner = role is not None and role.may_change_settings
    links = [
        {"href": f"{prefix}{segment}/", "name": name, "current": segment == current}
        for segment, name in SECTIONS
        if segment not in OWNERS_ONLY or is_owner
    ]
    others = [m.account for m in memberships if m.account_id != account.pk]
    # Everyone chooses their own emails on the Settings page; the navigation keeps its fixed
    # names (Settings for owners, issue 11 item 8), so other members reach it by this link.
    emails_href = "" if is_owner else f"{prefix}settings/"
    return {"links": links, "account": account, "others": others, "emails_href": emails_href}
