"""Two-factor sign-in for staff (TOTP, django-otp), required when STAFF_REQUIRE_2FA is on.

Staff sign in with their password as everyone does (django-axes throttles it); then, with
the setting on, nothing but these pages and sign-out opens until the session is verified
with a code from their authenticator app. The first time, they add the app here: the
secret is shown once on the page (never in a URL or a log) and confirmed by a first code.
Customers are not affected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django_otp import login as otp_login
from django_otp.plugins.otp_totp.models import TOTPDevice

SETUP_PATH = "/2fa/setup/"
VERIFY_PATH = "/2fa/verify/"
# What an unverified staff session may still reach.
_OPEN_PREFIXES = (SETUP_PATH, VERIFY_PATH, "/logout/", "/login/", "/static/", "/healthz", "/readyz", "/cron/")


class StaffTwoFactorMiddleware:
    """With STAFF_REQUIRE_2FA on, an unverified staff session is sent to set up or enter a code."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if (
            settings.STAFF_REQUIRE_2FA
            and user is not None
            and user.is_authenticated
            and user.is_staff
            and not user.is_verified()
            and not request.path.startswith(_OPEN_PREFIXES)
        ):
            target = VERIFY_PATH if _confirmed_device(user) else SETUP_PATH
            return redirect(f"{target}?next={quote(request.get_full_path())}")
        return self.get_response(request)


def _confirmed_device(user: Any) -> TOTPDevice | None:
    return TOTPDevice.objects.filter(user=user, confirmed=True).first()


def _next_url(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or "/ops/"
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return "/ops/"
    return target


@login_required
@never_cache
def setup(request: HttpRequest) -> HttpResponse:
    """Add an authenticator app: show the secret, confirm it with a first code."""
    if _confirmed_device(request.user):
        return redirect(f"{VERIFY_PATH}?next={quote(_next_url(request))}")
    device = TOTPDevice.objects.filter(user=request.user, confirmed=False).first() or TOTPDevice.objects.create(
        user=request.user, name="authenticator", confirmed=False
    )
    error = ""
    if request.method == "POST":
        if device.verify_token(request.POST.get("code", "").strip()):
            TOTPDevice.objects.filter(pk=device.pk).update(confirmed=True)
            device.confirmed = True
            otp_login(request, device)
            return redirect(_next_url(request))
        error = "That code did not match. Check the clock of your phone and enter the current code."
    context = {"secret": _base32(device), "uri": device.config_url, "error": error, "next": _next_url(request)}
    return render(request, "cron/2fa_setup.html", context, status=400 if error else 200)


@login_required
@never_cache
def verify(request: HttpRequest) -> HttpResponse:
    """Enter the current code from the authenticator app (throttled by django-otp after failures)."""
    device = _confirmed_device(request.user)
    if device is None:
        return redirect(f"{SETUP_PATH}?next={quote(_next_url(request))}")
    error = ""
    if request.method == "POST":
        if device.verify_token(request.POST.get("code", "").strip()):
            otp_login(request, device)
            return redirect(_next_url(request))
        error = "That code did not match, or too many codes were tried: wait a moment and enter the current one."
    return render(
        request, "cron/2fa_verify.html", {"error": error, "next": _next_url(request)}, status=400 if error else 200
    )


def _base32(device: TOTPDevice) -> str:
    from base64 import b32encode

    return b32encode(device.bin_key).decode()
