"""The customer's Drafts, Queue and History pages, rendered once per content version.

A page's HTML depends on the account's rows, the viewer's role and memberships (the
navigation and its switcher), the page number and the clock; it is cached under all of them:
- the account's **content version** (``accounts/content_version.py``), which every committed
  write to drafts, publications, channels, slots, members, engagement or the account
  replaces, so an approve, a move or an undo shows on the next GET;
- the account's own fields, the viewer's role, ``is_staff`` and every membership the
  navigation lists (account, slug, name, role): a viewer never gets an editor's buttons and a
  page is never served to another account, since the account id is in the key and access is
  checked (``member_required``) before the cache is asked;
- not the clock: a page older than a minute (``PAGE_FRESH_SECONDS``) is rendered again by one
  request while the others still get it (same content version), so the Queue's free times
  and anything written outside the tracked models (an article's title, a source's name)
  show within about a minute, without every viewer rendering at the minute's turn;
- the templates' digest, so a deploy with new templates never serves the old HTML.

Per-request parts never enter the cache: the CSRF token is replaced by a stand-in before
storing and the viewer's own token put back on every request (as ``posting/cards.py`` does);
a request with messages to show or an undo to offer is rendered afresh, not cached.
The version and the page are read in one cache call.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import cast

from django.conf import settings
from django.contrib.messages import get_messages
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token

from accounts.access import member_memberships, member_role
from accounts.content_version import account_content_version_fresh, account_content_versions
from accounts.models import Account

# A day: a page is re-rendered every minute anyway (PAGE_FRESH_SECONDS); old keys age out.
PAGE_CACHE_SECONDS = 24 * 60 * 60
# What depends on the clock rather than on rows (the Queue's free times) and what is written
# outside the tracked models (an article's title, a source's name) shows within about this.
PAGE_FRESH_SECONDS = 60
# The one request re-rendering a page past its minute; should it die, another takes over after this.
PAGE_REFRESH_LOCK_SECONDS = 15
# Not a token: where the viewer's CSRF token is put back into a cached page.
CSRF_STAND_IN = "landed-page-csrf-stand-in-3b9d2a"
# Django's token in a rendered form: 64 letters and digits.
_CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([A-Za-z0-9]{32,128})"')
_templates_digest: str | None = None


def _templates_digest_now() -> str:
    """Every project template's digest, once per process (they change only with a deploy)."""
    global _templates_digest
    if _templates_digest is None:
        digest = hashlib.sha256()
        for folder in cast(list[str], settings.TEMPLATES[0]["DIRS"]):
            for path in sorted(Path(folder).rglob("*.html")):
                digest.update(str(path).encode())
                digest.update(path.read_bytes())
        _templates_digest = digest.hexdigest()[:16]
    return _templates_digest


def _cacheable(request: HttpRequest, undo_session_key: str) -> bool:
    """Only a plain GET of the page (or one of its numbered pages) with nothing for this one
    request to show: messages and the undo offer are read once and belong to this viewer."""
    if request.method != "GET" or set(request.GET) - {"page"}:
        return False
    number = request.GET.get("page", "")
    if len(number) > 6 or (number and not number.isdigit()):
        return False
    if undo_session_key in request.session:
        return False
    return len(get_messages(request)) == 0


def page_key(request: HttpRequest, *, account: Account, page: str) -> str:
    """Everything but the content version the page's HTML depends on, digested."""
    user = request.user
    role = member_role(request, account)
    navigation = [(m.account_id, m.account.slug, m.account.name, m.role) for m in member_memberships(request)]
    account_fields = [field.value_from_object(account) for field in Account._meta.concrete_fields]
    parts = (
        _templates_digest_now(),
        settings.DATABASES["default"]["NAME"],
        page,
        request.path,
        request.GET.get("page", ""),
        account.pk,
        repr(account_fields),
        role,
        getattr(user, "is_staff", False),
        repr(navigation),
    )
    digest = hashlib.sha256("\x1f".join(str(part) for part in parts).encode()).hexdigest()
    return f"landed:page:2:{digest}"


def cached_page(
    request: HttpRequest,
    *,
    account: Account,
    page: str,
    render: Callable[[], HttpResponse],
    undo_session_key: str,
) -> HttpResponse:
    """The page from the cache when its content version is current, else ``render()`` it
    (and store it). ``render`` must be the page's whole GET work, side effects included:
    they then run once per content version (the drafts page's review rows record when each
    draft was first shown to someone who may decide, and the key has the role)."""
    if not settings.VERSIONED_CACHES or not _cacheable(request, undo_session_key):
        return render()
    version_key = account_content_versions(account.pk)
    key = page_key(request, account=account, page=page)
    found = cache.get_many([version_key, key])
    version = found.get(version_key)
    if version is None:
        version = account_content_version_fresh(account.pk)
    entry = found.get(key)
    if entry is not None and entry[0] == version:
        _, rendered_at, html = entry
        # Older than a minute: one request renders it again (the lock), the others meanwhile
        # get this one, of the same content version, so a minute's turn is not every
        # viewer rendering at once.
        if time.time() - rendered_at < PAGE_FRESH_SECONDS or not cache.add(
            f"{key}:refresh", 1, PAGE_REFRESH_LOCK_SECONDS
        ):
            # The template escaped the page when it was rendered; the token is Django's (letters and digits).
            return HttpResponse(html.replace(CSRF_STAND_IN, get_token(request)))
    # The version was read before the rows: should a write commit while rendering, the page is
    # stored under the older version and the next GET renders again.
    response = render()
    if response.status_code == 200 and not response.streaming:
        html = response.content.decode(response.charset)
        # Every token in the page was made for this request (the template's and the cards'
        # are differently masked copies of the same secret): each becomes the stand-in.
        for token in set(_CSRF_INPUT.findall(html)):
            html = html.replace(token, CSRF_STAND_IN)
        cache.set(key, (version, time.time(), html), timeout=PAGE_CACHE_SECONDS)
        cache.delete(f"{key}:refresh")
    return response
