"""Tenancy for views: every account-scoped URL is ``/a/<slug>/...`` and goes through here."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse

from accounts.selectors import account_for_member

View = Callable[..., HttpResponse]


class AuthenticatedHttpRequest(HttpRequest):
    """The request a view behind ``login_required`` or ``member_required`` receives: its user
    is signed in (a ``User``, never ``AnonymousUser``). An annotation only; nothing creates one."""

    user: User


def member_required(view: View) -> View:
    """Log in, then resolve ``slug`` to an account the user belongs to (404 otherwise).

    The view receives ``account`` instead of ``slug``; any object it loads must be
    filtered by that account, never by id alone.
    """

    @login_required
    @wraps(view)
    def wrapper(request: HttpRequest, slug: str, *args: Any, **kwargs: Any) -> HttpResponse:
        account = account_for_member(user=request.user, slug=slug)
        return view(request, account, *args, **kwargs)

    return wrapper
