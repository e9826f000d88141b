"""Each member's own emails on the Settings page (issue 11, items 6 and 7): every role
decides for themselves, per business; a bad hour saves nothing and says why."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Account, Membership, Role
from notifications.models import NotificationSetting
from tests import factories
from tests.test_security_headers import inline_code

pytestmark = pytest.mark.django_db


def _client(user) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def _save(client: Client, slug: str, data: dict[str, str]):
    client.get(f"/a/{slug}/settings/")
    return client.post(f"/a/{slug}/settings/notifications/", data, HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)


@pytest.mark.parametrize("role", [Role.OWNER, Role.EDITOR, Role.VIEWER])
def test_every_member_sets_their_own_emails_for_each_business(role: str, account: Account) -> None:
    user = factories.member_create(account=account, username=f"a-{role}", role=role)
    second = factories.account_create(name="Leith Wheels", slug="leith")
    Membership.objects.create(user=user, account=second, role=role)
    client = _client(user)

    page = client.get(f"/a/{account.slug}/settings/").content.decode()
    assert "Your emails from Harbour Bikes" in page
    assert inline_code(page) == []
    # The defaults: those who approve get both emails, a viewer neither.
    assert ('name="digest" checked' in page) == (role != Role.VIEWER)

    response = _save(client, account.slug, {"digest": "on", "digest_hour": "9"})
    assert response.status_code == 302 and response["Location"] == f"/a/{account.slug}/settings/"
    mine = NotificationSetting.objects.get(membership__user=user, membership__account=account)
    assert (mine.digest, mine.digest_hour, mine.same_day) == (True, 9, False)
    assert not NotificationSetting.objects.filter(membership__account=second).exists()
    page = client.get(f"/a/{account.slug}/settings/").content.decode()
    assert '<option value="9" selected>09:00</option>' in page


@pytest.mark.parametrize("hour", ["24", "-1", "seven", ""])
def test_a_bad_hour_saves_nothing_and_says_why(hour: str, member_client: Client, account: Account) -> None:
    response = _save(member_client, account.slug, {"digest": "on", "digest_hour": hour, "same_day": "on"})
    assert response.status_code == 400
    assert "Choose the digest&#x27;s hour from the list (0 to 23)." in response.content.decode()
    assert not NotificationSetting.objects.exists()


def test_saving_needs_the_csrf_token(member_client: Client, account: Account) -> None:
    response = member_client.post(f"/a/{account.slug}/settings/notifications/", {"digest_hour": "8"})
    assert response.status_code == 403
    assert not NotificationSetting.objects.exists()


def test_a_member_of_another_business_cannot_set_emails_there(other_member, account: Account) -> None:
    assert _save(_client(other_member), account.slug, {"digest_hour": "8"}).status_code == 404
    assert not NotificationSetting.objects.exists()
