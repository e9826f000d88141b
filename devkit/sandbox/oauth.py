"""Facebook Login and Instagram Login, emulated: consent dialog, code and token exchanges,
/me, /me/permissions (GET, and DELETE to revoke), /me/accounts, debug_token.

Follows docs/meta-graph-api.md section 1. Codes are single-use and consumed with a conditional
update, so two racing callbacks exchanging one code see exactly one success; every
exchange lands in the sandbox request log for tests to count.
"""

from __future__ import annotations

import html
import json
import secrets
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from devkit.sandbox import errors
from devkit.sandbox.errors import GraphError
from devkit.sandbox.graph import (
    DAY_S,
    LONG_LIVED_S,
    SHORT_LIVED_S,
    Request,
    Response,
    parse_fields,
    select_fields,
)
from devkit.sandbox.pages import html_page

if TYPE_CHECKING:
    from devkit.sandbox.server import GraphSandbox

CODE_LIFETIME_S = 600
IG_SHORT_LIVED_S = 3600
ACCOUNT_FIELDS = {"id", "name", "access_token", "category", "tasks", "instagram_business_account"}
ACCOUNT_DEFAULT = ["access_token", "category", "name", "id", "tasks"]
PAGE_TASKS = ["ADVERTISE", "ANALYZE", "CREATE_CONTENT", "MESSAGING", "MODERATE", "MANAGE"]


class OAuthEndpoints:
    def __init__(self, sandbox: GraphSandbox) -> None:
        self.sandbox = sandbox
        self.store = sandbox.store
        self.api = sandbox.api

    def handle(self, req: Request) -> Response | None:
        """Answer the auth endpoints; ``None`` for any other path."""
        route = {
            ("GET", "/dialog/oauth"): self.dialog,
            ("POST", "/dialog/oauth"): self.dialog_decide,
            ("GET", "/oauth/access_token"): self.access_token,
            ("POST", "/oauth/access_token"): self.access_token,
            # Instagram Login (www.instagram.com / api.instagram.com / graph.instagram.com).
            ("GET", "/oauth/authorize"): self.dialog,
            ("POST", "/oauth/authorize"): self.dialog_decide,
            ("GET", "/access_token"): self.ig_exchange_long_lived,
            ("GET", "/refresh_access_token"): self.ig_refresh,
            ("GET", "/debug_token"): self.debug_token,
            ("GET", "/me"): self.me,
            ("GET", "/me/permissions"): self.me_permissions,
            ("DELETE", "/me/permissions"): self.me_permissions_revoke,
            ("GET", "/me/accounts"): self.me_accounts,
        }.get((req.method, req.path.rstrip("/") or "/"))
        return route(req) if route is not None else None

    # --- the consent dialog ----------------------------------------------------------------
    def dialog(self, req: Request) -> Response:
        params = req.query
        login = _login_of(req)
        consent = self.store.meta_get("consent", {"mode": "page", "declined": [], "user_id": None})
        user = self._dialog_user(params.get("sandbox_user") or consent.get("user_id"))
        problem = self._dialog_problem(params, login=login, user=user)
        if problem or user is None:
            return _html(400, "Sandbox login error", f"<p>{html.escape(problem)}</p>")
        scopes = _scopes(params.get("scope", ""))
        if consent["mode"] != "page":
            return self._decide(
                login=login, user_id=user["id"], params=params, scopes=scopes, decision=consent["mode"], kept=None,
                declined=consent["declined"],
            )  # fmt: skip
        hidden = "".join(
            f"<input type='hidden' name='{html.escape(name)}' value='{html.escape(params.get(name, ''))}'>"
            for name in ("client_id", "redirect_uri", "state", "scope", "response_type")
        )
        boxes = "".join(
            f"<label><input type='checkbox' name='keep' value='{html.escape(scope)}' checked> "
            f"{html.escape(scope)}</label><br>"
            for scope in scopes
        )
        body = (
            f"<h1>Landed Sandbox wants to act for {html.escape(user['name'])}</h1>"
            f"<form method='post' action='{html.escape(req.raw_path)}'>{hidden}"
            f"<input type='hidden' name='sandbox_user' value='{html.escape(user['id'])}'>"
            f"<p>Permissions requested:</p><p>{boxes}</p>"
            "<button name='decision' value='grant'>Grant all</button>"
            "<button name='decision' value='decline'>Decline some permissions</button>"
            "<button name='decision' value='deny'>Deny</button></form>"
        )
        return _html(200, f"Log in with {login.title()} (sandbox)", body)

    def dialog_decide(self, req: Request) -> Response:
        params = {key: str(value) for key, value in req.body.items()}
        login = _login_of(req)
        user = self._dialog_user(params.get("sandbox_user"))
        problem = self._dialog_problem(params, login=login, user=user)
        if problem or user is None:
            return _html(400, "Sandbox login error", f"<p>{html.escape(problem)}</p>")
        kept = req.body.get("keep")
        kept_list = kept if isinstance(kept, list) else ([kept] if kept else [])
        return self._decide(
            login=login, user_id=user["id"], params=params, scopes=_scopes(params.get("scope", "")),
            decision=params.get("decision", "deny"), kept=kept_list, declined=[],
        )  # fmt: skip

    def _decide(
        self,
        *,
        login: str,
        user_id: str,
        params: dict[str, str],
        scopes: list[str],
        decision: str,
        kept: list[str] | None,
        declined: list[str],
    ) -> Response:
        redirect_uri, state = params["redirect_uri"], params.get("state", "")
        # Facebook appends "#_=_" to its redirects, Instagram "#_"; clients must strip them.
        fragment = "#_=_" if login == "facebook" else "#_"
        if decision == "deny":
            query = {
                "error": "access_denied",
                "error_code": "200",
                "error_description": "Permissions error",
                "error_reason": "user_denied",
                "state": state,
            }
            if login == "instagram":
                query = {**query, "error_description": "The user denied your request."}
                del query["error_code"]
            return _redirect(redirect_uri, query, fragment)
        if decision == "decline":
            refused = set(declined) or ({scope for scope in scopes if scope not in kept} if kept is not None else set())
            if not refused:
                # "Decline some" with every box still ticked: decline the one that matters most.
                refused = {"pages_manage_posts" if "pages_manage_posts" in scopes else scopes[-1]} if scopes else set()
            granted = [scope for scope in scopes if scope not in refused]
        else:
            refused, granted = set(), list(scopes)
        with self.store.transaction() as db:
            row = db.execute("SELECT permissions FROM users WHERE id = ?", (user_id,)).fetchone()
            permissions = json.loads(row["permissions"])
            permissions.update(dict.fromkeys(granted, "granted"))
            permissions.update(dict.fromkeys(refused, "declined"))
            db.execute("UPDATE users SET permissions = ? WHERE id = ?", (json.dumps(permissions), user_id))
        code = secrets.token_urlsafe(32)
        self.store.execute(
            "INSERT INTO codes (code, user_id, client_id, redirect_uri, granted, created_at, used_at, login) "
            "VALUES (?, ?, ?, ?, ?, ?, NULL, ?)",
            (code, user_id, params["client_id"], redirect_uri, json.dumps(granted), self.store.now(), login),
        )
        return _redirect(redirect_uri, {"code": code, "state": state}, fragment)

    def _dialog_problem(self, params: dict[str, str], *, login: str, user: dict[str, Any] | None) -> str:
        if params.get("client_id") != self.sandbox.app_id:
            return "Invalid App ID: the client_id is not this sandbox's app."
        if not params.get("redirect_uri", "").startswith(("http://", "https://")):
            return "redirect_uri is missing or not an http(s) URL."
        if user is None:
            return "The sandbox has no such user: seed one with create_user."
        if login == "instagram" and self._ig_page(user["id"]) is None:
            return "This user has no Instagram professional account: create_page(..., with_instagram=True)."
        return ""

    def _ig_page(self, user_id: str) -> dict[str, Any] | None:
        return self.store.one(
            "SELECT * FROM pages WHERE user_id = ? AND ig_id IS NOT NULL ORDER BY id LIMIT 1", (user_id,)
        )

    def _dialog_user(self, user_id: str | None) -> dict[str, Any] | None:
        if user_id:
            return self.store.one("SELECT * FROM users WHERE id = ?", (str(user_id),))
        return self.store.one("SELECT * FROM users ORDER BY id LIMIT 1")

    # --- token exchanges -------------------------------------------------------------------
    def access_token(self, req: Request) -> Response:
        params = req.params
        self._check_client(params)
        if params.get("grant_type") == "fb_exchange_token":
            return self._exchange_long_lived(str(params.get("fb_exchange_token", "")))
        if params.get("grant_type") == "authorization_code":
            return self._ig_exchange_code(params)
        row = self._code_consume(params, login="facebook")
        token = self.api.token_insert(
            kind="USER",
            user_id=row["user_id"],
            page_id=None,
            parent=None,
            scopes=json.loads(row["granted"]),
            expires_at=self.store.now() + SHORT_LIVED_S,
        )
        return Response(body={"access_token": token, "token_type": "bearer", "expires_in": SHORT_LIVED_S})

    def _code_consume(self, params: dict[str, Any], *, login: str) -> dict[str, Any]:
        """Check a code against its dialog and spend it; raise the documented errors otherwise."""
        code = str(params.get("code", ""))
        if not code:
            raise errors.missing_param("code")
        row = self.store.one("SELECT * FROM codes WHERE code = ? AND login = ?", (code, login))
        if row is None:
            raise GraphError(code=100, subcode=36010, message="Invalid verification code format.")
        if row["redirect_uri"] != params.get("redirect_uri"):
            raise GraphError(
                code=100,
                subcode=36008,
                message="Error validating verification code. Please make sure your redirect_uri is identical to "
                "the one you used in the OAuth dialog request",
            )
        if row["created_at"] + CODE_LIFETIME_S <= self.store.now():
            raise GraphError(code=100, subcode=36007, message="Code was invalid or expired.")
        # Single use, decided by one conditional update: of two racing exchanges one wins.
        won = self.store.execute(
            "UPDATE codes SET used_at = ? WHERE code = ? AND used_at IS NULL", (self.store.now(), code)
        )
        if won != 1:
            raise GraphError(code=100, subcode=36009, message="This authorization code has been used.")
        return row

    # --- Instagram Login tokens (docs/meta-graph-api.md section 1, "Instagram Login alternative") ---
    def _ig_exchange_code(self, params: dict[str, Any]) -> Response:
        row = self._code_consume(params, login="instagram")
        page = self._ig_page(row["user_id"])
        if page is None:
            raise GraphError(code=100, message="This user no longer has an Instagram professional account.")
        scopes = json.loads(row["granted"])
        token = self.api.token_insert(
            kind="IG",
            user_id=row["user_id"],
            page_id=page["id"],
            parent=None,
            scopes=scopes,
            expires_at=self.store.now() + IG_SHORT_LIVED_S,
        )
        entry = {"access_token": token, "user_id": page["ig_id"], "permissions": ",".join(scopes)}
        # The docs show a "data" list, a flat object is observed too: clients must accept both.
        shape = self.store.meta_get("ig_token_shape", "data")
        return Response(body={"data": [entry]} if shape == "data" else entry)

    def ig_exchange_long_lived(self, req: Request) -> Response:
        if req.query.get("grant_type") != "ig_exchange_token":
            raise GraphError(code=100, message="(#100) grant_type must be ig_exchange_token")
        if not secrets.compare_digest(str(req.query.get("client_secret", "")), self.sandbox.app_secret):
            raise GraphError(code=1, message="Error validating client secret.")
        return self._ig_token_renew(self._ig_token(req))

    def ig_refresh(self, req: Request) -> Response:
        if req.query.get("grant_type") != "ig_refresh_token":
            raise GraphError(code=100, message="(#100) grant_type must be ig_refresh_token")
        row = self._ig_token(req)
        if row["expires_at"] - row["issued_at"] <= IG_SHORT_LIVED_S:
            raise GraphError(code=100, message="(#100) Only long-lived tokens can be refreshed")
        if self.store.now() - row["issued_at"] < DAY_S:
            raise GraphError(code=100, message="(#100) A token can be refreshed once it is at least 24 hours old")
        return self._ig_token_renew(row)

    def _ig_token(self, req: Request) -> dict[str, Any]:
        row = self.api.token(req, check_proof=False)
        if row["kind"] != "IG":
            raise errors.token_unparseable()
        return row

    def _ig_token_renew(self, row: dict[str, Any]) -> Response:
        token = self.api.token_insert(
            kind="IG",
            user_id=row["user_id"],
            page_id=row["page_id"],
            parent=None,
            scopes=row["scopes"],
            expires_at=self.store.now() + LONG_LIVED_S,
        )
        return Response(body={"access_token": token, "token_type": "bearer", "expires_in": LONG_LIVED_S})

    def _exchange_long_lived(self, short_token: str) -> Response:
        if not short_token:
            raise errors.missing_param("fb_exchange_token")
        row = self.api.token(_token_request(short_token), check_proof=False)
        if row["kind"] != "USER":
            raise GraphError(code=100, message="(#100) fb_exchange_token must be a user access token")
        token = self.api.token_insert(
            kind="USER",
            user_id=row["user_id"],
            page_id=None,
            parent=None,
            scopes=row["scopes"],
            expires_at=self.store.now() + LONG_LIVED_S,
        )
        return Response(body={"access_token": token, "token_type": "bearer", "expires_in": LONG_LIVED_S})

    def _check_client(self, params: dict[str, Any]) -> None:
        if params.get("client_id") != self.sandbox.app_id:
            raise GraphError(code=101, message="Error validating application. Invalid application ID.")
        if not secrets.compare_digest(str(params.get("client_secret", "")), self.sandbox.app_secret):
            raise GraphError(code=1, message="Error validating client secret.")

    # --- token inspection --------------------------------------------------------------------
    def debug_token(self, req: Request) -> Response:
        if req.token != f"{self.sandbox.app_id}|{self.sandbox.app_secret}":
            self.api.token(req)  # a valid user token may also inspect tokens, as on the real API
        input_token = req.query.get("input_token", "")
        if not input_token:
            raise errors.missing_param("input_token")
        row = self.store.one("SELECT * FROM tokens WHERE token = ?", (input_token,))
        if row is None:
            data: dict[str, Any] = {
                "is_valid": False,
                "error": {"code": 190, "message": "Invalid OAuth access token - Cannot parse access token"},
            }
            return Response(body={"data": data})
        scopes = json.loads(row["scopes"])
        pages = self.store.all("SELECT id, ig_id FROM pages WHERE user_id = ?", (row["user_id"],))
        page_ids = [page["id"] for page in pages if row["kind"] == "USER" or page["id"] == row["page_id"]]
        ig_ids = [page["ig_id"] for page in pages if page["ig_id"] and page["id"] in page_ids]
        data = {
            "app_id": self.sandbox.app_id,
            "type": row["kind"],
            "application": "Landed Sandbox",
            "data_access_expires_at": int(row["issued_at"] + 90 * DAY_S),
            "expires_at": int(row["expires_at"]),
            "is_valid": True,
            "issued_at": int(row["issued_at"]),
            "scopes": scopes,
            "granular_scopes": [
                {"scope": scope, "target_ids": ig_ids if scope.startswith("instagram_") else page_ids}
                if scope.startswith(("pages_", "instagram_"))
                else {"scope": scope}
                for scope in scopes
            ],
            "user_id": row["user_id"],
        }
        if row["kind"] == "PAGE":
            data["profile_id"] = row["page_id"]
        try:
            self.api.token(_token_request(input_token), check_proof=False)
        except GraphError as exc:
            data["is_valid"] = False
            data["error"] = {"code": exc.code, "message": exc.message, "subcode": exc.subcode}
        return Response(body={"data": data})

    def me(self, req: Request) -> Response:
        if not req.token:
            raise GraphError(
                code=2500, message="An active access token must be used to query information about the current user."
            )
        token = self.api.token(req)
        spec = req.query.get("fields", "")
        if token["kind"] == "IG":
            page = self.store.one("SELECT * FROM pages WHERE id = ?", (token["page_id"],))
            assert page is not None
            values = {"id": page["ig_id"], "user_id": page["ig_id"], "username": page["ig_username"]}
            return Response(
                body=select_fields(
                    node_type="IGUser", values=values, known={"id", "user_id", "username"}, default=["id"], spec=spec
                )
            )
        if token["kind"] == "PAGE":
            page = self.store.one("SELECT * FROM pages WHERE id = ?", (token["page_id"],))
            assert page is not None
            return Response(body=self.api.page_values(token, page, spec))
        user = self.store.one("SELECT id, name FROM users WHERE id = ?", (token["user_id"],))
        assert user is not None
        return Response(
            body=select_fields(node_type="User", values=user, known={"id", "name"}, default=["id", "name"], spec=spec)
        )

    def me_permissions(self, req: Request) -> Response:
        token = self.api.token(req)
        user = self.store.one("SELECT permissions FROM users WHERE id = ?", (token["user_id"],))
        permissions = json.loads(user["permissions"]) if user else {}
        data = [{"permission": name, "status": status} for name, status in permissions.items()]
        return Response(body={"data": data})

    def me_permissions_revoke(self, req: Request) -> Response:
        """``DELETE /me/permissions``: the app gives up the grant behind this token. The token,
        and every token minted from it, is dead from now on (190/458, "the user has not
        authorized application"), as after a user removes the app in their settings."""
        token = self.api.token(req)
        self.store.execute(
            "UPDATE tokens SET invalid_subcode = 458 WHERE token = ? OR parent = ?", (token["token"], token["token"])
        )
        return Response(body={"success": True})

    def me_accounts(self, req: Request) -> Response:
        token = self.api.token(req)
        if token["kind"] != "USER":
            raise GraphError(code=100, message="(#100) /me/accounts needs a user access token")
        spec = req.query.get("fields", "")
        for name in parse_fields(spec):
            if name not in ACCOUNT_FIELDS:
                raise errors.nonexisting_field(name, "Page")
        pages = [] if "pages_show_list" not in token["scopes"] else self._user_pages(token["user_id"])
        items = []
        for page in pages:
            values: dict[str, Any] = {
                "id": page["id"],
                "name": page["name"],
                "category": "Local business",
                "tasks": PAGE_TASKS,
                "access_token": self.api.page_token_mint(page_id=page["id"], user_token=token),
            }
            if page["ig_id"]:
                values["instagram_business_account"] = {"id": page["ig_id"], "username": page["ig_username"]}
            items.append(
                select_fields(node_type="Page", values=values, known=ACCOUNT_FIELDS, default=ACCOUNT_DEFAULT, spec=spec)
            )
        return Response(body=self.api.paged(req, items))

    def _user_pages(self, user_id: str) -> list[dict[str, Any]]:
        return self.store.all("SELECT * FROM pages WHERE user_id = ? ORDER BY id", (user_id,))


def _scopes(raw: str) -> list[str]:
    return [scope.strip() for scope in raw.replace(" ", ",").split(",") if scope.strip()]


def _token_request(token: str) -> Request:
    return Request(method="GET", path="/", raw_path="/", query={}, body={}, token=token, token_via="header")  # noqa: S106 (a label, not a secret)


def _login_of(req: Request) -> str:
    return "instagram" if req.path.startswith("/oauth/authorize") else "facebook"


def _redirect(uri: str, query: dict[str, str], fragment: str) -> Response:
    separator = "&" if "?" in uri else "?"
    return Response(
        status=302,
        body="",
        content_type="text/plain",
        headers={"Location": f"{uri}{separator}{urlencode(query)}{fragment}"},
    )


def _html(status: int, title: str, body: str) -> Response:
    return Response(status=status, body=html_page(title, body), content_type="text/html; charset=utf-8")
