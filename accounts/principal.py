"""Who is signing in, read from the cache: the user and their memberships (with accounts) in
one cache call instead of two queries on every signed-in request.

``CachedAuthenticationMiddleware`` (in settings' MIDDLEWARE, in place of Django's) sets
``request.user`` from the cached entry when the session names a user, the entry is current,
the user is active and the session's auth hash matches the user's password hash (Django's own
checks in ``django.contrib.auth.get_user``); in every other case it runs Django's
``get_user`` unchanged and caches what it found. ``member_required`` then takes the
memberships from the user instead of querying them (``memberships_cached``).

The entry is valid only under the user's current *member version*, a token replaced after
every committed write to the user, to any of their memberships, or to any account they
belong to (``accounts/apps.py`` connects the writes). The version is read in the same call as
the entry, and before the rows on a miss, so an entry built from rows a write is replacing is
stored under the old version and never used: a removed member is refused on the next request.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.contrib import auth
from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.auth.models import AnonymousUser, User
from django.core.cache import cache
from django.db import models
from django.http import HttpRequest
from django.utils.crypto import constant_time_compare
from django.utils.functional import SimpleLazyObject

from accounts.content_version import member_version_key, member_versions_changed
from accounts.models import Membership

# A day: every change makes a new version anyway; old entries age out.
PRINCIPAL_CACHE_SECONDS = 24 * 60 * 60
# Where the memberships read with the user are left on it for member_required.
_MEMBERSHIPS_ATTRIBUTE = "_landed_cached_memberships"


def _entry_key(user_id: int) -> str:
    # The database's name too: one Redis may serve several databases (the test workers).
    return f"landed:principal:{settings.DATABASES['default']['NAME']}:{user_id}"


def _version_now(version_key: str) -> str:
    token = uuid.uuid4().hex
    if cache.add(version_key, token, timeout=None):
        return token
    return str(cache.get(version_key) or token)


def _memberships_of(user: User) -> list[Membership]:
    # The same read as accounts.selectors.memberships_of_user (which asks here first).
    return list(Membership.objects.filter(user=user).select_related("account").order_by("account__name"))


def _user_of(request: HttpRequest) -> User | AnonymousUser:
    if not settings.VERSIONED_CACHES:
        return auth.get_user(request)
    session = request.session
    try:
        user_id = int(session[auth.SESSION_KEY])
        backend = session[auth.BACKEND_SESSION_KEY]
    except (KeyError, ValueError, TypeError):
        return auth.get_user(request)
    if backend not in settings.AUTHENTICATION_BACKENDS:
        return auth.get_user(request)
    entry_key, version_key = _entry_key(user_id), member_version_key(user_id)
    found = cache.get_many([entry_key, version_key])
    version = found.get(version_key) or _version_now(version_key)
    entry = found.get(entry_key)
    if entry is not None and entry[0] == version:
        user, memberships = entry[1], entry[2]
        session_hash = session.get(auth.HASH_SESSION_KEY)
        if user.is_active and session_hash and constant_time_compare(session_hash, user.get_session_auth_hash()):
            setattr(user, _MEMBERSHIPS_ATTRIBUTE, memberships)
            return user
    # Django's own path decides (it also flushes a session whose password changed).
    user = auth.get_user(request)
    if isinstance(user, User) and user.pk == user_id:
        memberships = _memberships_of(user)
        cache.set(entry_key, (version, user, memberships), timeout=PRINCIPAL_CACHE_SECONDS)
        setattr(user, _MEMBERSHIPS_ATTRIBUTE, memberships)
    return user


def memberships_cached(user: User | AnonymousUser) -> list[Membership] | None:
    """The memberships read with this request's user from the cache, or None."""
    memberships: list[Membership] | None = getattr(user, _MEMBERSHIPS_ATTRIBUTE, None)
    return memberships


class CachedAuthenticationMiddleware(AuthenticationMiddleware):
    """Django's AuthenticationMiddleware, with the user (and memberships) from the cache."""

    def process_request(self, request: HttpRequest) -> None:
        super().process_request(request)  # its checks (sessions installed), then ours below
        request.user = SimpleLazyObject(lambda: _user_of(request))  # type: ignore[assignment]


def _user_written(sender: type[models.Model], instance: models.Model, **kwargs: Any) -> None:
    if kwargs.get("raw"):
        return
    # Signing in saves last_login alone: a cached copy with the older time decides nothing,
    # and a sign-in must not fail because the cache is unreachable (config/cache.py).
    if kwargs.get("update_fields") == frozenset({"last_login"}):
        return
    member_versions_changed([instance.pk])


def connect() -> None:
    """Called from accounts' ready(). Writes to memberships and accounts replace the member
    versions through accounts/content_version.py (``track`` with ``user_path``); the user's own
    row is Django's model, without our QuerySet: its saves and deletes are connected here
    (the product changes users only by saving them: sign-in, password, the admin)."""
    from django.db.models.signals import post_delete, post_save

    post_save.connect(_user_written, sender=User, dispatch_uid="member-version:user:save", weak=False)
    post_delete.connect(_user_written, sender=User, dispatch_uid="member-version:user:delete", weak=False)
