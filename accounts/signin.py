"""Who is signing in, for sign-in throttling (django-axes reads ``client_address``)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    """The address a sign-in attempt came from.

    Behind our reverse proxy every request arrives from the proxy, so the address is the
    last one in X-Forwarded-For: the one the proxy itself appended. Entries before it come
    from the client and could be forged to dodge (or aim) a lockout.
    """
    if settings.SECURE_PROXY_SSL_HEADER:
        forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        if forwarded[-1]:
            return forwarded[-1]
    return request.META.get("REMOTE_ADDR", "")
