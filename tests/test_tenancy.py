"""Tenancy on every URL: walk the resolver so an account page added tomorrow is covered today.

Every route under ``/a/<slug>/`` must refuse a logged-in member of another account
(404, so the slug's existence does not leak) for GET and POST alike, and send an
anonymous visitor to the login page.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from tests import factories

pytestmark = pytest.mark.django_db


def _routes(patterns=None, prefix: str = "") -> list[str]:
    routes: list[str] = []
    for entry in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(entry, URLResolver):
            routes += _routes(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            routes.append(prefix + str(entry.pattern))
    return routes


ACCOUNT_ROUTES = sorted({r for r in _routes() if r.startswith("a/<slug:slug>/")})


def _concrete(route: str, slug: str, object_id: int) -> str:
    path = route.replace("<slug:slug>", slug)
    path = re.sub(r"<int:\w+>", str(object_id), path)
    path = re.sub(r"<(?:str|slug):\w+>", "x", path)
    return "/" + path.lstrip("^").rstrip("$")


def test_the_walk_finds_the_account_pages() -> None:
    # A guard for the guard: if the prefix changes, this test must not silently pass on nothing.
    assert len(ACCOUNT_ROUTES) >= 5, ACCOUNT_ROUTES


@pytest.mark.parametrize("route", ACCOUNT_ROUTES)
def test_a_member_of_another_account_cannot_reach_it(route: str, other_account, member_client) -> None:
    foreign_draft = factories.draft_create(account=other_account)
    path = _concrete(route, other_account.slug, foreign_draft.pk)
    member_client.get("/login/")
    token = member_client.cookies["csrftoken"].value
    assert member_client.get(path).status_code in {404, 405}, path
    assert member_client.post(path, {}, HTTP_X_CSRFTOKEN=token).status_code in {404, 405}, path


@pytest.mark.parametrize("route", ACCOUNT_ROUTES)
def test_an_anonymous_visitor_is_sent_to_login(route: str, account) -> None:
    response = Client().get(_concrete(route, account.slug, 1))
    assert response.status_code in {302, 405}, route
    if response.status_code == 302:
        assert response.url.startswith("/login/")
