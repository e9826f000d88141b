"""Operator onboarding from the console (issue 11 item 5, issue 12): staff create a business
(name, slug, time zone) and invite its owner by email, each an audited OperatorAction, with
CSRF and the console's staff and two-factor rules; the owner then accepts the link."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client

from accounts.models import Account, Invite, Membership, Role
from cron.models import OperatorAction

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"


def signed_in(username: str, *, staff: bool) -> Client:
    User.objects.create_user(username=username, password=PASSWORD, is_staff=staff)
    client = Client(enforce_csrf_checks=True)
    client.get("/login/")
    token = client.cookies["csrftoken"].value
    response = client.post("/login/", {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token})
    assert response.status_code == 302
    return client


def post(client: Client, url: str, data: dict[str, str]):
    return client.post(url, {**data, "csrfmiddlewaretoken": client.cookies["csrftoken"].value})


NEW = {"name": "Corner Café", "slug": "corner-cafe", "timezone": "Europe/Paris", "owner_email": "Chef@Example.com"}


def test_staff_create_a_business_and_invite_its_owner_who_joins(settings) -> None:
    settings.STAFF_REQUIRE_2FA = False
    operator = signed_in("operator", staff=True)

    response = post(operator, "/ops/accounts/new/", NEW)

    assert response.status_code == 302
    account = Account.objects.get(slug="corner-cafe")
    assert (account.name, account.timezone) == ("Corner Café", "Europe/Paris")
    assert list(OperatorAction.objects.order_by("pk").values_list("username", "action", "target", "ok")) == [
        ("operator", "create_account", "corner-cafe", True),
        ("operator", "invite_owner", "chef@example.com", True),
    ]
    assert Invite.objects.get().role == Role.OWNER
    link = re.search(r"http://testserver(/invite/\S+/)", mail.outbox[0].body)
    assert link and mail.outbox[0].to == ["chef@example.com"]
    # The audit trail never holds the link (it is the token).
    assert link.group(1).split("/")[2] not in str(list(OperatorAction.objects.values_list("target", "detail")))

    chef = Client()
    chef.get(link.group(1))
    chef.post("/invite/accept/", {"password": "a new and rather long passphrase 42"} | {
        "password_again": "a new and rather long passphrase 42"
    })  # fmt: skip
    assert Membership.objects.get(account=account).role == Role.OWNER
    assert chef.get("/a/corner-cafe/settings/").status_code == 200
    assert "Corner Café" in operator.get("/ops/").content.decode()


def test_a_refused_onboarding_is_audited_and_creates_nothing(settings) -> None:
    settings.STAFF_REQUIRE_2FA = False
    operator = signed_in("operator", staff=True)
    Account.objects.create(name="Taken", slug="corner-cafe")

    post(operator, "/ops/accounts/new/", NEW)
    post(operator, "/ops/accounts/new/", NEW | {"slug": "bad slug!"})
    post(operator, "/ops/accounts/new/", NEW | {"slug": "fine", "timezone": "Mars/Olympus"})

    assert Account.objects.count() == 1 and not Invite.objects.exists() and mail.outbox == []
    assert list(OperatorAction.objects.values_list("action", "ok")) == [("create_account", False)] * 3
    page = operator.get("/ops/").content.decode()
    assert "is taken" in page or "not a time zone" in page


def test_staff_invite_an_owner_to_an_existing_business(settings) -> None:
    settings.STAFF_REQUIRE_2FA = False
    operator = signed_in("operator", staff=True)
    Account.objects.create(name="Old Shop", slug="old-shop")

    assert post(operator, "/ops/accounts/old-shop/invite-owner/", {"email": "boss@example.com"}).status_code == 302
    assert post(operator, "/ops/accounts/old-shop/invite-owner/", {"email": "nope"}).status_code == 302

    assert list(OperatorAction.objects.order_by("pk").values_list("action", "target", "ok")) == [
        ("invite_owner", "boss@example.com", True),
        ("invite_owner", "nope", False),
    ]
    assert len(mail.outbox) == 1


def test_members_anonymous_visitors_unverified_staff_and_forged_posts_are_refused(settings, member) -> None:
    member_client = Client(enforce_csrf_checks=True)
    member_client.force_login(member)
    member_client.get("/login/")
    assert post(member_client, "/ops/accounts/new/", NEW).status_code == 403
    assert Client().post("/ops/accounts/new/", NEW).status_code == 302  # to the login page
    settings.STAFF_REQUIRE_2FA = False
    no_csrf = signed_in("operator", staff=True)
    assert no_csrf.post("/ops/accounts/new/", NEW).status_code == 403
    settings.STAFF_REQUIRE_2FA = True
    unverified = post(no_csrf, "/ops/accounts/new/", NEW)
    assert unverified.status_code == 302 and "/2fa/" in unverified["Location"]

    assert not Account.objects.filter(slug="corner-cafe").exists()
    assert not OperatorAction.objects.exists()
