"""Sign-in throttling: guessing passwords locks the username and the address, nobody else."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests import factories

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"
LOCKED = "Too many failed sign-in attempts"


def sign_in(path: str, username: str, password: str, address: str) -> tuple[int, str, bool]:
    client = Client(REMOTE_ADDR=address)
    response = client.post(path, {"username": username, "password": password})
    return response.status_code, response.content.decode(), "_auth_user_id" in client.session


@pytest.mark.parametrize("path", ["/login/", "/admin/login/"])
def test_forty_wrong_passwords_lock_the_username_and_the_address_not_everyone(account, path) -> None:
    owner = factories.member_create(account=account, username="owner")
    neighbour = factories.member_create(account=factories.account_create(name="N", slug="n"), username="neighbour")
    User.objects.filter(pk__in=[owner.pk, neighbour.pk]).update(is_staff=True)

    # given 40 wrong passwords for one username from one address
    for attempt in range(40):
        sign_in(path, "owner", f"guess {attempt}", "203.0.113.7")

    # then the right password is refused there with the lockout message
    status, page, signed_in = sign_in(path, "owner", PASSWORD, "203.0.113.7")
    assert (status, signed_in) == (429, False) and LOCKED in page
    # and the username stays locked from another address, as does the address for another user
    status, page, signed_in = sign_in(path, "owner", PASSWORD, "198.51.100.20")
    assert (status, signed_in) == (429, False) and LOCKED in page
    status, page, signed_in = sign_in(path, "neighbour", PASSWORD, "203.0.113.7")
    assert (status, signed_in) == (429, False) and LOCKED in page
    # while another user from another address signs in as usual
    status, page, signed_in = sign_in(path, "neighbour", PASSWORD, "198.51.100.20")
    assert signed_in and status == 302 and LOCKED not in page


def test_a_few_typos_do_not_lock_anyone_out(account) -> None:
    factories.member_create(account=account, username="owner")
    for attempt in range(3):
        status, page, _ = sign_in("/login/", "owner", f"typo {attempt}", "203.0.113.7")
        assert status == 200 and "do not match" in page

    assert sign_in("/login/", "owner", PASSWORD, "203.0.113.7")[2]
