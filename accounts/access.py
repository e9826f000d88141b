"""Tenancy for views: every account-scoped URL is ``/a/<slug>/...`` and goes through here."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse

from accounts.models import Account, Role
from accounts.selectors import membership_for_member, membership_role

View = Callable[..., HttpResponse]


class AuthenticatedHttpRequest(HttpRequest):
    """The request a view behind ``login_required`` or ``member_required`` receives: its user
    is signed in (a ``User``, never ``AnonymousUser``). An annotation only; nothing creates one."""

    user: User


# Where member_required leaves the member's role for the rest of the request: (account id, role).
_ROLE_ATTRIBUTE = "_landed_member_role"


def member_required(view: View) -> View:
    """Log in, then resolve ``slug`` to an account the user belongs to (404 otherwise).

    The view receives ``account`` instead of ``slug``; any object it loads must be
    filtered by that account, never by id alone. The membership is read once, with its
    account, and its role kept on the request for ``member_role``.
    """

    @login_required
    @wraps(view)
    def wrapper(request: HttpRequest, slug: str, *args: Any, **kwargs: Any) -> HttpResponse:
        membership = membership_for_member(user=request.user, slug=slug)
        setattr(request, _ROLE_ATTRIBUTE, (membership.account_id, Role(membership.role)))
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
