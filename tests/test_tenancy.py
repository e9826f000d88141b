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


# Inside the account, what each role may do on every URL (issue 11 item 5): "read" pages
# answer GET only; "edit" is owners' and editors' (drafts, queue, sources, voice); "own" is
# the owner's alone (settings, posting times, channels, the team); "self" is a member's own
# choices (their emails), which every role saves. A URL added tomorrow
# fails test_every_account_url_has_a_role_row until it is given one here.
ROLE_MATRIX: dict[str, str] = {
    "a/<slug:slug>/channels/": "read",
    "a/<slug:slug>/channels/connect/": "own",
    "a/<slug:slug>/channels/<int:channel_id>/disconnect/": "own",
    "a/<slug:slug>/drafts/": "read",
    "a/<slug:slug>/drafts/<int:draft_id>/": "read",
    "a/<slug:slug>/drafts/<int:draft_id>/approve/": "edit",
    "a/<slug:slug>/drafts/<int:draft_id>/edit/": "edit",
    "a/<slug:slug>/drafts/<int:draft_id>/opened/": "edit",
    "a/<slug:slug>/drafts/<int:draft_id>/reject/": "edit",
    "a/<slug:slug>/drafts/<int:draft_id>/source/": "read",
    "a/<slug:slug>/drafts/bulk/": "edit",
    "a/<slug:slug>/drafts/skipped/<int:article_id>/draft/": "edit",
    "a/<slug:slug>/drafts/undo/": "edit",
    "a/<slug:slug>/history/": "read",
    "a/<slug:slug>/history/<int:publication_id>/retry/": "edit",
    "a/<slug:slug>/queue/": "read",
    "a/<slug:slug>/queue/<int:publication_id>/back-to-drafts/": "edit",
    "a/<slug:slug>/queue/<int:publication_id>/move/": "edit",
    "a/<slug:slug>/queue/<int:publication_id>/post-now/": "edit",
    "a/<slug:slug>/queue/times/": "own",
    "a/<slug:slug>/settings/": "own",
    # A member's own email choices: every role saves its own, nobody else's.
    "a/<slug:slug>/settings/notifications/": "self",
    "a/<slug:slug>/sources/": "read",
    "a/<slug:slug>/sources/<int:source_id>/remove/": "edit",
    "a/<slug:slug>/sources/add/": "edit",
    "a/<slug:slug>/sources/industry/": "edit",
    "a/<slug:slug>/sources/opml/": "edit",
    "a/<slug:slug>/team/": "read",
    "a/<slug:slug>/team/invite/": "own",
    "a/<slug:slug>/team/invites/<int:invite_id>/revoke/": "own",
    "a/<slug:slug>/team/members/<int:membership_id>/remove/": "own",
    "a/<slug:slug>/team/members/<int:membership_id>/role/": "own",
    "a/<slug:slug>/voice/": "read",
    "a/<slug:slug>/voice/import-channel/": "edit",
    "a/<slug:slug>/voice/relearn/": "edit",
    "a/<slug:slug>/voice/settings/": "edit",
    "a/<slug:slug>/voice/taught/<int:taught_id>/forget/": "edit",
    "a/<slug:slug>/voice/upload/": "edit",
}


def test_every_account_url_has_a_role_row() -> None:
    assert set(ROLE_MATRIX) == set(ACCOUNT_ROUTES)


def _role_client(account, role: str) -> tuple[Client, str]:
    user = factories.member_create(account=account, username=f"a-{role}", role=role)
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    client.get("/login/")
    return client, client.cookies["csrftoken"].value


@pytest.mark.parametrize("route", ACCOUNT_ROUTES)
def test_a_viewer_posts_nothing_anywhere(route: str, account) -> None:
    draft = factories.draft_create(account=account)
    client, token = _role_client(account, "viewer")

    status = client.post(_concrete(route, account.slug, draft.pk), {}, HTTP_X_CSRFTOKEN=token).status_code

    kind = ROLE_MATRIX.get(route)
    if kind == "self":
        assert status not in (403, 405), route  # the viewer's own choices are theirs to save
    else:
        assert status == (405 if kind == "read" else 403), route


@pytest.mark.parametrize("route", ACCOUNT_ROUTES)
def test_an_editor_is_refused_only_what_is_the_owners(route: str, account) -> None:
    draft = factories.draft_create(account=account)
    client, token = _role_client(account, "editor")
    path = _concrete(route, account.slug, draft.pk)

    status = client.post(path, {}, HTTP_X_CSRFTOKEN=token).status_code

    kind = ROLE_MATRIX.get(route)
    if kind == "own":
        assert status == 403, route
    elif kind == "read":
        assert status == 405, route
    else:
        assert status != 403, route  # refused for its empty form or missing object, never for the role
