"""The Graph calls of the connect flow and the token check (Facebook Login, reference §1).

Our tokens travel in ``Authorization: Bearer`` headers. The code exchange and the
long-lived exchange carry ``client_secret`` and the short-lived token as POST form fields
(the endpoint takes either), so they stay out of URLs too. The one place Meta leaves no
choice is ``debug_token``: it is GET-only and the token under inspection *is* the
``input_token`` query parameter; that URL is never logged (urllib3 is held at WARNING in
settings) and no exception raised here repeats requests' own text, which includes it.

Every call goes through ``publish.graph.GraphClient``, the one Graph HTTP client, so failures
arrive as its typed errors (``publish.errors.PlatformError`` and subclasses) classified the
same way as publishing's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from django.conf import settings
from django.utils import timezone

from publish.errors import PermanentPlatformError, TransientError
from publish.graph import GraphClient, graph_int

# What Landed asks for: publish to Pages, read them back, and the same for Instagram
# professional accounts linked to those Pages (reference §1, "Permissions").
REQUIRED_PERMISSIONS: tuple[str, ...] = (
    "pages_show_list",
    "pages_read_engagement",
    "pages_manage_posts",
    "instagram_basic",
    "instagram_content_publish",
)
# Pages per /me/accounts request (the API's maximum), and how many `paging.next` hops we
# follow: a runaway chain must not keep a request thread busy for ever.
ACCOUNTS_PAGE_SIZE = 100
MAX_PAGES_OF_ACCOUNTS = 20


@dataclass(frozen=True)
class UserToken:
    access_token: str = field(repr=False)
    expires_at: datetime | None


@dataclass(frozen=True)
class PageGrant:
    id: str
    name: str
    access_token: str = field(repr=False)
    instagram_id: str = ""
    instagram_username: str = ""


@dataclass(frozen=True)
class TokenCheck:
    is_valid: bool
    expires_at: datetime | None
    error_code: int | None = None
    error_subcode: int | None = None


def dialog_url(*, state: str, redirect_uri: str, rerequest: bool = False) -> str:
    """The Facebook Login dialog for one claim; ``rerequest`` asks again for declined scopes."""
    params = {
        "client_id": settings.FACEBOOK_APP_ID,
        "redirect_uri": redirect_uri,
        "state": state,
        "scope": ",".join(REQUIRED_PERMISSIONS),
        "response_type": "code",
    }
    if rerequest:
        params["auth_type"] = "rerequest"
    return f"{settings.GRAPH_DIALOG_BASE_URL}/{settings.GRAPH_API_VERSION}/dialog/oauth?{urlencode(params)}"


def code_exchange(*, code: str, redirect_uri: str) -> UserToken:
    """Trade the callback's single-use code for a short-lived user token."""
    body = _write(
        "oauth/access_token",
        kind="oauth_code_exchange",
        data={
            "client_id": settings.FACEBOOK_APP_ID,
            "client_secret": settings.FACEBOOK_APP_SECRET,
            "redirect_uri": redirect_uri,
            "code": code,
        },
    )
    return _user_token(body)


def long_lived_token(*, short_token: str) -> UserToken:
    """Trade a short-lived user token for a ~60-day one (Page tokens made from it never expire)."""
    body = _write(
        "oauth/access_token",
        kind="oauth_long_lived_exchange",
        data={
            "grant_type": "fb_exchange_token",
            "client_id": settings.FACEBOOK_APP_ID,
            "client_secret": settings.FACEBOOK_APP_SECRET,
            "fb_exchange_token": short_token,
        },
    )
    return _user_token(body)


def permissions_granted(*, user_token: str) -> dict[str, str]:
    """``{permission: "granted" | "declined" | ...}`` for this user and our app."""
    body = _read("me/permissions", kind="oauth_permissions", bearer=user_token)
    return {str(row["permission"]): str(row.get("status")) for row in _rows(body) if row.get("permission")}


def pages_list(*, user_token: str) -> list[PageGrant]:
    """Every Page the user let us manage (following ``paging.next``), each with its IG account."""
    pages: list[PageGrant] = []
    seen: set[str] = set()
    params = {"fields": "id,name,access_token", "limit": str(ACCOUNTS_PAGE_SIZE)}
    path = "me/accounts"
    for _ in range(MAX_PAGES_OF_ACCOUNTS):
        body = _read(path, kind="oauth_pages", params=params, bearer=user_token)
        for row in _rows(body):
            page_id, page_token = str(row.get("id") or ""), row.get("access_token")
            # Graph ids are digit strings; anything else must not become part of a request path.
            if not page_id.isdigit() or not isinstance(page_token, str) or not page_token or page_id in seen:
                continue
            seen.add(page_id)
            ig_id, ig_username = _page_instagram(page_id=page_id, page_token=page_token)
            pages.append(
                PageGrant(
                    id=page_id,
                    name=str(row.get("name") or page_id),
                    access_token=page_token,
                    instagram_id=ig_id,
                    instagram_username=ig_username,
                )
            )
        paging = body.get("paging")
        next_url = paging.get("next") if isinstance(paging, dict) else None
        if not isinstance(next_url, str) or not next_url:
            break
        path, params = _next_page(next_url)
    return pages


def token_debug(*, token: str) -> TokenCheck:
    """Ask the platform whether a token still works and when it expires (``debug_token``)."""
    body = _read(
        "debug_token",
        kind="oauth_debug_token",
        params={"input_token": token},
        bearer=f"{settings.FACEBOOK_APP_ID}|{settings.FACEBOOK_APP_SECRET}",
    )
    data = body.get("data")
    if not isinstance(data, dict) or "is_valid" not in data:
        # No verdict is not a verdict: never mark a channel dead on a garbled answer.
        raise TransientError("Graph debug_token answered without a verdict")
    raw_error = data.get("error")
    error = raw_error if isinstance(raw_error, dict) else {}
    return TokenCheck(
        is_valid=bool(data.get("is_valid")),
        expires_at=_timestamp(data.get("expires_at")),
        error_code=graph_int(error.get("code")),
        error_subcode=graph_int(error.get("subcode")),
    )


def token_revoke(*, token: str) -> None:
    """Give up the grant behind a token at the platform (``DELETE /me/permissions``): the
    token, and tokens minted from it, stop working. Raises the client's typed errors; a
    token that is already dead raises NeedsReconnect, which for a revoke means done."""
    with GraphClient(token=token) as client:
        client.delete("me/permissions", kind="oauth_revoke")


def _page_instagram(*, page_id: str, page_token: str) -> tuple[str, str]:
    """The Instagram professional account linked to a Page, or ``("", "")`` if none is."""
    body = _read(
        page_id,
        kind="oauth_page_instagram",
        params={"fields": "instagram_business_account{id,username}"},
        bearer=page_token,
    )
    ig = body.get("instagram_business_account")
    if not isinstance(ig, dict) or not str(ig.get("id") or "").isdigit():
        return "", ""
    return str(ig["id"]), str(ig.get("username") or "")


def _next_page(next_url: str) -> tuple[str, dict[str, str]]:
    """Follow ``paging.next`` without trusting it: same host as our API, and no token in the URL.

    The real API embeds ``access_token`` in ``next``; we drop it and send the Bearer header.
    """
    base = urlsplit(settings.GRAPH_API_BASE_URL)
    parts = urlsplit(next_url)
    if (parts.scheme, parts.netloc) != (base.scheme, base.netloc):
        raise PermanentPlatformError("paging.next points outside the Graph API host")
    path = parts.path.lstrip("/")
    prefix = f"{settings.GRAPH_API_VERSION}/"
    if path.startswith(prefix):
        path = path[len(prefix) :]
    params = {key: value for key, value in parse_qsl(parts.query) if key != "access_token"}
    return path, params


def _read(path: str, *, kind: str, bearer: str, params: dict[str, str] | None = None) -> dict[str, Any]:
    with GraphClient(token=bearer) as client:
        return client.read(path, kind=kind, params=params).body


def _write(path: str, *, kind: str, data: dict[str, str]) -> dict[str, Any]:
    # Authenticated by the client id and secret in the form, not by a bearer token. Not a
    # post: ``expect`` is left to the caller, which checks the token it needs.
    with GraphClient(token="") as client:
        return client.write(path, kind=kind, data=data, expect=()).body


def _rows(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The objects of a list answer's ``data``, skipping anything that is not one."""
    data = body.get("data")
    return [row for row in data if isinstance(row, dict)] if isinstance(data, list) else []


def _user_token(body: dict[str, Any]) -> UserToken:
    token = body.get("access_token")
    if not isinstance(token, str) or not token:
        raise PermanentPlatformError("Graph token response carried no access_token")
    expires_in = graph_int(body.get("expires_in"))
    expires_at = timezone.now() + timedelta(seconds=expires_in) if expires_in else None
    return UserToken(access_token=token, expires_at=expires_at)


def _timestamp(value: object) -> datetime | None:
    """Graph's unix ``expires_at``; 0 means the token does not expire."""
    seconds = graph_int(value)
    if not seconds:
        return None
    return datetime.fromtimestamp(seconds, tz=UTC)
