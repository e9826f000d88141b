"""Issue 12 item 6: staff sign-in supports TOTP two-factor, required with STAFF_REQUIRE_2FA;
the admin is branded. Codes are computed from the device's key as an authenticator app does."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.contrib.auth.models import User
from django.test import Client
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice

from tests import factories

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"


def password_signed_in(username: str) -> Client:
    client = Client()
    # Through the login form: django-axes authenticates with the request.
    assert client.post("/login/", {"username": username, "password": PASSWORD}).status_code == 302
    return client


def code_for(device: TOTPDevice) -> str:
    """The code an authenticator app shows now (time-machine moves "now" for both sides)."""
    return f"{totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits):06d}"


T0 = datetime(2026, 6, 1, 9, 0, 5, tzinfo=UTC)


@pytest.fixture
def operator() -> User:
    return User.objects.create_user(username="operator", password=PASSWORD, is_staff=True)


def test_with_2fa_required_staff_add_an_app_then_enter_a_code_at_each_sign_in(settings, operator) -> None:
    settings.STAFF_REQUIRE_2FA = True
    traveller = time_machine.travel(T0, tick=False)
    traveller.start()
    try:
        _the_walk(operator)
    finally:
        traveller.stop()


def _the_walk(operator: User) -> None:
    # first sign-in: the password alone opens nothing but the setup page
    client = password_signed_in("operator")
    response = client.get("/ops/")
    assert response.status_code == 302 and response["Location"].startswith("/2fa/setup/")
    assert client.get("/admin/").status_code == 302
    setup = client.get(response["Location"])
    assert setup.status_code == 200
    device = TOTPDevice.objects.get(user=operator)
    secret = re.search(r"<code[^>]*>([A-Z2-7]+)</code>", setup.content.decode()).group(1)
    assert secret and secret not in response["Location"]

    # a wrong code is refused with a clear message; the right one confirms the app
    wrong = client.post("/2fa/setup/", {"code": "000000", "next": "/ops/"})
    assert wrong.status_code == 400 and "did not match" in wrong.content.decode()
    # django-otp throttles after a failure (1 s, doubling): the app's next code, a step later
    with time_machine.travel(T0 + timedelta(seconds=30), tick=False):
        device.refresh_from_db()
        done = client.post("/2fa/setup/", {"code": code_for(device), "next": "/ops/"})
    assert done.status_code == 302 and done["Location"] == "/ops/"
    assert client.get("/ops/").status_code == 200

    # the next sign-in asks for a code, not for a new app
    later = password_signed_in("operator")
    response = later.get("/ops/")
    assert response["Location"].startswith("/2fa/verify/")
    # a code is good once: the next sign-in uses the next step's code
    with time_machine.travel(T0 + timedelta(seconds=60), tick=False):
        device.refresh_from_db()
        ok = later.post("/2fa/verify/", {"code": code_for(device), "next": "/ops/"})
    assert ok.status_code == 302, ok.content.decode()[:300]
    assert later.get("/ops/").status_code == 200


def test_a_next_pointing_elsewhere_is_ignored(settings, operator) -> None:
    settings.STAFF_REQUIRE_2FA = True
    client = password_signed_in("operator")
    client.get("/2fa/setup/")
    device = TOTPDevice.objects.get(user=operator)
    done = client.post("/2fa/setup/", {"code": code_for(device), "next": "https://evil.example/"})
    assert done["Location"] == "/ops/"


def test_without_the_setting_staff_need_no_code_and_customers_never_do(settings, operator, account) -> None:
    settings.STAFF_REQUIRE_2FA = False
    assert password_signed_in("operator").get("/ops/").status_code == 200

    settings.STAFF_REQUIRE_2FA = True
    factories.member_create(account=account, username="owner")
    User.objects.filter(username="owner").update(password=User.objects.get(username="operator").password)
    assert password_signed_in("owner").get(f"/a/{account.slug}/drafts/").status_code == 200


def test_the_admin_is_branded(settings, operator) -> None:
    User.objects.filter(pk=operator.pk).update(is_superuser=True)
    page = password_signed_in("operator").get("/admin/").content.decode()
    assert "Landed operator" in page
