"""Navigation (issue 11, item 8) and the owner's settings (item 6, first part): the links in
the issue's order with exactly its names, in a <nav> landmark with the current page marked;
Settings for every member (their own emails are there), its account-wide part for owners
only; bad input saves nothing and says why."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts.models import Account, Role
from tests import factories

pytestmark = pytest.mark.django_db

NAMES = ["Drafts", "Queue", "History", "Channels", "Sources", "Voice", "Settings"]


def _csrf_post(client: Client, url: str, data: dict | None = None):
    client.get("/login/")
    return client.post(url, data or {}, HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)


def _nav(page: str) -> str:
    found = re.findall(r'<nav aria-label="Main".*?</nav>', page, flags=re.S)
    assert len(found) == 1, "exactly one main <nav> landmark"
    return found[0]


def _links(nav: str) -> list[tuple[str, str, bool]]:
    return [
        (href, name, "aria-current" in attrs)
        for href, attrs, name in re.findall(r'<a href="([^"]+)"([^>]*)>([^<]+)</a>', nav)
    ]


@pytest.mark.parametrize("section", ["drafts", "queue", "history", "channels", "sources", "voice", "settings"])
def test_the_owner_sees_every_link_in_order_with_the_current_page_marked(
    section: str, member_client: Client, account: Account
) -> None:
    response = member_client.get(f"/a/{account.slug}/{section}/")
    assert response.status_code == 200
    links = _links(_nav(response.content.decode()))
    assert [name for _, name, _ in links] == NAMES
    assert [href for href, _, _ in links] == [f"/a/{account.slug}/{n.lower()}/" for n in NAMES]
    assert [name for _, name, current in links if current] == [section.capitalize()]


@pytest.mark.parametrize("role", [Role.EDITOR, Role.VIEWER])
def test_the_account_wide_settings_are_for_owners_only(role: str, account: Account) -> None:
    user = factories.member_create(account=account, username=f"a-{role}", role=role)
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    page = client.get(f"/a/{account.slug}/drafts/").content.decode()
    # The navigation's names are fixed (Settings for owners, issue 11 item 8); everyone's own
    # emails are on the Settings page, reached by "Your emails" outside the navigation.
    assert [name for _, name, _ in _links(_nav(page))] == NAMES[:-1]
    assert f'<a class="nav-aside" href="/a/{account.slug}/settings/">Your emails</a>' in page
    settings_page = client.get(f"/a/{account.slug}/settings/").content.decode()
    assert "Your emails from Harbour Bikes" in settings_page
    assert 'name="timezone"' not in settings_page and "changed by its owner" in settings_page
    assert _csrf_post(client, f"/a/{account.slug}/settings/", {"timezone": "Asia/Tokyo"}).status_code == 403
    account.refresh_from_db()
    assert account.timezone == "UTC"


def test_a_draft_page_marks_drafts_as_current(member_client: Client, account: Account) -> None:
    draft = factories.draft_create(account=account)
    links = _links(_nav(member_client.get(f"/a/{account.slug}/drafts/{draft.pk}/").content.decode()))
    assert [name for _, name, current in links if current] == ["Drafts"]


def test_the_owner_changes_zone_pause_and_images_and_a_bad_zone_saves_nothing(
    member_client: Client, account: Account
) -> None:
    url = f"/a/{account.slug}/settings/"
    response = _csrf_post(member_client, url, {"timezone": "Europe/Lisbon", "paused": "on", "use_article_images": "on"})
    assert response.status_code == 302
    account.refresh_from_db()
    assert (account.timezone, account.paused, account.use_article_images) == ("Europe/Lisbon", True, True)

    response = _csrf_post(member_client, url, {"timezone": "Mars/Olympus", "use_article_images": "on"})
    assert response.status_code == 400
    assert "is not a time zone we know" in response.content.decode()
    account.refresh_from_db()
    assert (account.timezone, account.paused) == ("Europe/Lisbon", True)

    # Resuming: unticked boxes mean off.
    _csrf_post(member_client, url, {"timezone": "Europe/Lisbon"})
    account.refresh_from_db()
    assert (account.paused, account.use_article_images) == (False, False)
