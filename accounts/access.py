"""Tenancy for views: every account-scoped URL is ``/a/<slug>/...`` and goes through here."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse

from accounts.models import Account, Membership, Role
from accounts.principal import memberships_cached
from accounts.selectors import membership_role, memberships_of_user

View = Callable[..., HttpResponse]


class AuthenticatedHttpRequest(HttpRequest):
    """The request a view behind ``login_required`` or ``member_required`` receives: its user
    is signed in (a ``User``, never ``AnonymousUser``). An annotation only; nothing creates one."""

    user: User


# Where member_required leaves the member's role for the rest of the request: (account id, role).
_ROLE_ATTRIBUTE = "_landed_member_role"
# And every membership of the user, with its account, for the navigation's switcher.
_MEMBERSHIPS_ATTRIBUTE = "_landed_memberships"


def member_required(view: View) -> View:
    """Log in, then resolve ``slug`` to an account the user belongs to (404 otherwise).

    The view receives ``account`` instead of ``slug``; any object it loads must be
    filtered by that account, never by id alone. The user's memberships are read once, with
    their accounts, and kept on the request for ``member_role`` and ``member_memberships``.
    """

    @login_required
    @wraps(view)
    def wrapper(request: HttpRequest, slug: str, *args: Any, **kwargs: Any) -> HttpResponse:
        # One query serves both tenancy and the navigation (the role here, the other businesses):
        # the user's own memberships, so a slug that is not among them is a 404 as before.
        # From the cache with the user when current (accounts/principal.py), else read now.
        memberships = memberships_cached(request.user)
        if memberships is None:
            memberships = memberships_of_user(user=request.user)
        membership = next((m for m in memberships if m.account.slug == slug), None)
        if membership is None:
            raise Http404("No such account")
        setattr(request, _ROLE_ATTRIBUTE, (membership.account_id, Role(membership.role)))
        setattr(request, _MEMBERSHIPS_ATTRIBUTE, memberships)
        return view(request, membership.account, *args, **kwargs)

    return wrapper


def member_role(request: HttpRequest, account: Account) -> Role | None:
    """The signed-in user's role in ``account`` (None for a non-member): the one
    ``member_required`` read at the start of this request, else read now. Read once per
    request, so the view, its permission checks and the navigation agree and cost no query."""
    remembered = getattr(request, _ROLE_ATTRIBUTE, None)
    if remembered is not None and remembered[0] == account.pk:
        return remembered[1]
    return membership_role(user=request.user, account=account)


def member_may_edit(request: HttpRequest, account: Account) -> bool:
    """Whether the signed-in user may change things in this account (``Role.may_edit``)."""
    role = member_role(request, account)
    return role is not None and role.may_edit


def member_may_change_settings(request: HttpRequest, account: Account) -> bool:
    """Whether the signed-in user is this account's owner (``Role.may_change_settings``)."""
    role = member_role(request, account)
    return role is not None and role.may_change_settings


def member_memberships(request: HttpRequest) -> list[Membership]:
    """Every membership of the signed-in user, with its account, by account name: the list
    ``member_required`` read for this request, else read now (the navigation's switcher)."""
    remembered: list[Membership] | None = getattr(request, _MEMBERSHIPS_ATTRIBUTE, None)
    if remembered is not None:
        return remembered
    return memberships_of_user(user=request.user)
