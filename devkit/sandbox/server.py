"""``GraphSandbox``: the local Graph API server, its seeding/injection API and its HTTP wiring.

Standalone on purpose (stdlib only, no Django): the demo, the tests and the Celery-worker
tests run it in a thread or in its own process, and provider code reaches it over real
HTTP exactly as it reaches graph.facebook.com. See README.md in this package.
"""

from __future__ import annotations

import contextlib
import html
import json
import random
import re
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from devkit.sandbox import errors
from devkit.sandbox.errors import GraphError
from devkit.sandbox.graph import LONG_LIVED_S, GraphApi, Request, Response, graph_time
from devkit.sandbox.oauth import OAuthEndpoints
from devkit.sandbox.pages import html_page
from devkit.sandbox.store import Store

DEFAULT_PERMISSIONS = (
    "public_profile",
    "pages_show_list",
    "pages_read_engagement",
    "pages_manage_posts",
    "instagram_basic",
    "instagram_content_publish",
)

# Kinds answered instead of the real handler, with nothing created...
INJECT_BEFORE = {"error", "html_502", "non_json", "ok_without_id", "throttle", "token_expired"}
# ...and kinds applied after the real handler succeeded, so the side effect is committed.
INJECT_AFTER = {"500_after_create", "drop_after_create", "hang_after_create"}

# Never recorded in the request log: the log is for counting and asserting, not for secrets.
_SECRET_PARAMS = {"access_token", "client_secret", "fb_exchange_token", "code", "input_token", "appsecret_proof"}

# The names the HTTP control API (POST /_sandbox/<name>) may call, with JSON kwargs.
CONTROL_METHODS = {
    "seed_demo",
    "create_user",
    "create_page",
    "inject",
    "clear_injections",
    "set_container_plan",
    "set_read_lag",
    "set_quota",
    "set_consent",
    "set_usage",
    "set_latency",
    "set_appsecret_proof",
    "set_ig_token_shape",
    "set_engagement",
    "expire_token",
    "invalidate_token",
    "delete_post",
    "advance_clock",
    "now",
    "posts",
    "media",
    "containers",
    "requests_log",
    "reset",
    "state",
}


class GraphSandbox:
    """A local emulation of the Graph API subset Landed uses, with scriptable failures."""

    def __init__(
        self,
        state_path: Path | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        version_pattern: str = r"v\d+\.\d+",
        *,
        app_id: str = "landed-sandbox-app",
        # The sandbox app's well-known credentials (settings.FACEBOOK_APP_* default to them).
        app_secret: str = "landed-sandbox-secret",  # noqa: S107
    ) -> None:
        self.host = host
        self.port = port
        self.app_id = app_id
        self.app_secret = app_secret
        self._version = re.compile(rf"^/(?:{version_pattern})(/.*)?$")
        self.store = Store(Path(state_path) if state_path is not None else None)
        self.api = GraphApi(self.store, lambda: self.base_url, app_secret)
        self.oauth = OAuthEndpoints(self)
        self._server: _SandboxHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    # --- lifecycle -----------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> None:
        """Bind and serve from a daemon thread; ``base_url`` is valid once this returns."""
        self._stopping.clear()
        server = _SandboxHTTPServer((self.host, self.port), _Handler)
        server.daemon_threads = True
        server.sandbox = self
        self._server = server
        self.port = server.server_address[1]
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="graph-sandbox", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def close(self) -> None:
        self.stop()
        self.store.close()

    # --- seeding -------------------------------------------------------------------------
    def create_user(self, name: str = "Demo Owner", permissions: list[str] | None = None) -> dict[str, Any]:
        """A Facebook user who has granted ``permissions``; returns a long-lived user token."""
        granted = list(DEFAULT_PERMISSIONS if permissions is None else permissions)
        user_id = self.store.next_id()
        self.store.execute(
            "INSERT INTO users (id, name, permissions) VALUES (?, ?, ?)",
            (user_id, name, json.dumps(dict.fromkeys(granted, "granted"))),
        )
        token = self.api.token_insert(
            kind="USER",
            user_id=user_id,
            page_id=None,
            parent=None,
            scopes=granted,
            expires_at=self.store.now() + LONG_LIVED_S,
        )
        return {"id": user_id, "name": name, "access_token": token}

    def create_page(
        self,
        user_id: str,
        name: str = "Harbour Bikes",
        with_instagram: bool = True,
        ig_username: str = "harbourbikes",
    ) -> dict[str, Any]:
        """A Page the user manages, optionally with a linked Instagram professional account."""
        user = self.store.one("SELECT * FROM users WHERE id = ?", (str(user_id),))
        if user is None:
            raise ValueError(f"no sandbox user {user_id}")
        page_id = self.store.next_id()
        ig_id = self.store.next_id() if with_instagram else None
        self.store.execute(
            "INSERT INTO pages (id, user_id, name, ig_id, ig_username, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (page_id, user["id"], name, ig_id, ig_username if with_instagram else None, self.store.now()),
        )
        granted = [perm for perm, status in json.loads(user["permissions"]).items() if status == "granted"]
        token = self.api.token_insert(
            kind="PAGE", user_id=user["id"], page_id=page_id, parent=None, scopes=granted, expires_at=0
        )
        return {"id": page_id, "name": name, "access_token": token, "instagram_id": ig_id}

    def seed_demo(self) -> dict[str, Any]:
        """The demo owner and page (with Instagram), created once; later calls return the same.

        Returns ``{"user": {"id", "name", "access_token"}, "page": {"id", "name", "access_token",
        "instagram_id"}}`` with live tokens, so ``make run`` can connect channels without a browser.
        """
        user = self.store.one("SELECT * FROM users ORDER BY id LIMIT 1")
        if user is None:
            created_user = self.create_user()
            return {"user": created_user, "page": self.create_page(created_user["id"])}
        page = self.store.one("SELECT * FROM pages WHERE user_id = ? ORDER BY id LIMIT 1", (user["id"],))
        if page is None:
            created_page = self.create_page(user["id"])
        else:
            created_page = {"id": page["id"], "name": page["name"], "instagram_id": page["ig_id"]}
            created_page["access_token"] = self._live_token(kind="PAGE", user_id=user["id"], page_id=page["id"])
        user_token = self._live_token(kind="USER", user_id=user["id"], page_id=None)
        return {"user": {"id": user["id"], "name": user["name"], "access_token": user_token}, "page": created_page}

    def _live_token(self, *, kind: str, user_id: str, page_id: str | None) -> str:
        """A still-valid token of this kind, or a fresh long-lived one when none is left."""
        now = self.store.now()
        row = self.store.one(
            "SELECT token FROM tokens WHERE kind = ? AND user_id = ? AND (? IS NULL OR page_id = ?) "
            "AND invalid_subcode IS NULL AND (expires_at = 0 OR expires_at > ?) ORDER BY issued_at DESC LIMIT 1",
            (kind, user_id, page_id, page_id, now),
        )
        if row is not None:
            return row["token"]
        user = self.store.one("SELECT permissions FROM users WHERE id = ?", (user_id,))
        granted = (
            [perm for perm, status in json.loads(user["permissions"]).items() if status == "granted"] if user else []
        )
        return self.api.token_insert(
            kind=kind,
            user_id=user_id,
            page_id=page_id,
            parent=None,
            scopes=granted,
            expires_at=0 if kind == "PAGE" else now + LONG_LIVED_S,
        )

    # --- scripting -------------------------------------------------------------------------
    def inject(
        self, method: str = "POST", path_regex: str = r".*", kind: str = "error", times: int = 1, **params: Any
    ) -> None:
        """Script the next ``times`` matching requests (``times=-1``: every one) to fail as ``kind``."""
        if kind not in INJECT_BEFORE | INJECT_AFTER:
            raise ValueError(f"unknown injection kind {kind!r}")
        if times == 0:
            raise ValueError("times must be positive, or -1 for every matching request")
        re.compile(path_regex)
        self.store.injection_add(method=method, path_regex=path_regex, kind=kind, params=params, times=times)

    def clear_injections(self) -> None:
        self.store.execute("DELETE FROM injections")

    def set_container_plan(
        self, in_progress_polls: int = 0, outcome: str = "FINISHED", error_subcode: int | None = 2207003
    ) -> None:
        """How containers created from now on behave: N polls IN_PROGRESS, then ``outcome``."""
        if outcome not in ("FINISHED", "ERROR", "EXPIRED"):
            raise ValueError("outcome must be FINISHED, ERROR or EXPIRED")
        self.store.meta_set(
            "container_plan",
            {
                "in_progress_polls": int(in_progress_polls),
                "outcome": outcome,
                "error_subcode": error_subcode if outcome == "ERROR" else None,
            },
        )

    def set_read_lag(self, reads: int = 0, unpublished_reads: int = 0) -> None:
        """Posts and media created from now on answer 100/33 to their first ``reads`` reads,
        then ``is_published: false`` with no permalink for ``unpublished_reads`` more."""
        self.store.meta_set("read_lag", {"reads": int(reads), "unpublished_reads": int(unpublished_reads)})

    def set_quota(self, total: int = 100, used: int = 0, containers_total: int = 400) -> None:
        """IG publishing quota per rolling 24 h; ``used`` adds to what the sandbox counted."""
        self.store.meta_set(
            "quota", {"total": int(total), "used": int(used), "containers_total": int(containers_total)}
        )

    def set_consent(self, mode: str = "page", declined: list[str] | None = None, user_id: str | None = None) -> None:
        """How the OAuth dialog answers: ``page`` shows the consent page; ``grant``, ``decline``
        (grants all but ``declined``) and ``deny`` redirect at once, for headless tests."""
        if mode not in ("page", "grant", "decline", "deny"):
            raise ValueError("mode must be page, grant, decline or deny")
        self.store.meta_set("consent", {"mode": mode, "declined": list(declined or []), "user_id": user_id})

    def set_usage(
        self, app_call_count: int | None = None, business_call_count: int | None = None, regain_minutes: float = 0
    ) -> None:
        """Send ``X-App-Usage`` / ``X-Business-Use-Case-Usage`` at these percentages on every
        answer, the latter with ``estimated_time_to_regain_access`` = ``regain_minutes``."""
        self.store.meta_set(
            "usage", {"app": app_call_count, "business": business_call_count, "regain": float(regain_minutes)}
        )

    def set_latency(self, min_ms: float = 0, max_ms: float = 0) -> None:
        """Answer every Graph request after a uniformly random wait in [min_ms, max_ms]: the
        round trip of the real API, which a pool of workers has to overlap."""
        if min_ms < 0 or max_ms < min_ms:
            raise ValueError("latency needs 0 <= min_ms <= max_ms")
        self.store.meta_set("latency", {"min_ms": float(min_ms), "max_ms": float(max_ms)})

    def latency_s(self) -> float:
        latency = self.store.meta_get("latency", {"min_ms": 0.0, "max_ms": 0.0})
        return random.uniform(latency["min_ms"], latency["max_ms"]) / 1000

    def set_ig_token_shape(self, shape: str = "data") -> None:
        """Instagram Login code exchange answers ``{"data": [{...}]}`` (documented) or ``flat`` (observed)."""
        if shape not in ("data", "flat"):
            raise ValueError("shape must be data or flat")
        self.store.meta_set("ig_token_shape", shape)

    def set_appsecret_proof(self, required: bool = True) -> None:
        """ "Require App Secret": token-bearing calls without a valid ``appsecret_proof`` get code 100."""
        self.store.meta_set("appsecret_proof_required", bool(required))

    def set_engagement(self, post_id: str, reactions: int = 0, comments: int = 0) -> None:
        """Reaction/like and comment counts of a post or IG media."""
        for table in ("posts", "media"):
            self.store.execute(
                f"UPDATE {table} SET reactions = ?, comments = ? WHERE id = ?",  # noqa: S608
                (int(reactions), int(comments), str(post_id)),
            )

    def expire_token(self, token: str) -> None:
        self.store.execute("UPDATE tokens SET expires_at = ? WHERE token = ?", (self.store.now() - 1, token))

    def invalidate_token(self, token: str, subcode: int = 460) -> None:
        """Kill a token with a 190 subcode; Page tokens derived from a user token die with it."""
        self.store.execute(
            "UPDATE tokens SET invalid_subcode = ? WHERE token = ? OR parent = ?", (int(subcode), token, token)
        )

    def delete_post(self, post_id: str) -> None:
        """A post (or IG media) deleted later: reads give 100/33, listings omit it."""
        now = self.store.now()
        self.store.execute("UPDATE posts SET deleted_at = ? WHERE id = ?", (now, str(post_id)))
        self.store.execute("UPDATE media SET deleted_at = ? WHERE id = ?", (now, str(post_id)))

    def advance_clock(self, seconds: float) -> float:
        """Move virtual time forward (token expiry, container expiry, quota windows); returns now."""
        self.store.clock_advance(float(seconds))
        return self.store.now()

    def now(self) -> float:
        return self.store.now()

    def reset(self) -> None:
        self.store.reset()

    # --- inspection ------------------------------------------------------------------------
    def posts(self, page_id: str | None = None) -> list[dict[str, Any]]:
        """Facebook posts that exist now (deleted ones excluded), oldest first."""
        rows = self.store.all(
            "SELECT * FROM posts WHERE deleted_at IS NULL AND (? IS NULL OR page_id = ?) ORDER BY created_at, id",
            (page_id, page_id),
        )
        return [
            {
                "id": row["id"],
                "page_id": row["page_id"],
                "message": row["message"],
                "link": row["link"],
                "image_url": row["image_url"],
                "status_type": row["status_type"],
                "created_time": graph_time(row["created_at"]),
                "permalink_url": f"{self.base_url}/p/{row['id']}",
            }
            for row in rows
        ]

    def media(self, ig_id: str | None = None) -> list[dict[str, Any]]:
        """Instagram media that exist now, oldest first."""
        rows = self.store.all(
            "SELECT * FROM media WHERE deleted_at IS NULL AND (? IS NULL OR ig_id = ?) ORDER BY created_at, id",
            (ig_id, ig_id),
        )
        return [
            {
                "id": row["id"],
                "ig_id": row["ig_id"],
                "container_id": row["container_id"],
                "caption": row["caption"],
                "media_url": row["media_url"],
                "media_type": row["media_type"],
                "shortcode": row["shortcode"],
                "timestamp": graph_time(row["created_at"]),
                "permalink": f"{self.base_url}/p/{row['id']}",
            }
            for row in rows
        ]

    def containers(self, ig_id: str | None = None) -> list[dict[str, Any]]:
        rows = self.store.all(
            "SELECT * FROM containers WHERE (? IS NULL OR ig_id = ?) ORDER BY created_at, id", (ig_id, ig_id)
        )
        return [
            {
                "id": row["id"],
                "ig_id": row["ig_id"],
                "caption": row["caption"],
                "status_code": self.api.container_status(row, poll=False),
                "media_id": row["media_id"],
            }
            for row in rows
        ]

    def requests_log(self) -> list[dict[str, Any]]:
        """Every Graph request: method, path, query and body (secrets redacted), status,
        ``token_via`` (``header``/``query``/``body``/``""``) and ``injected`` (the kind, or "")."""
        return [
            {
                "method": row["method"],
                "path": row["path"],
                "query": row["query"],
                "body": row["body"],
                "status": row["status"],
                "token_via": row["token_via"],
                "token_in_query": row["token_via"] == "query",  # noqa: S105
                "injected": row["injected"],
                "at": row["at"],
            }
            for row in self.store.requests()
        ]

    def state(self) -> dict[str, Any]:
        return {
            "base_url": self.base_url,
            "now": self.store.now(),
            "users": self.store.all("SELECT id, name FROM users ORDER BY id"),
            "pages": self.store.all("SELECT id, user_id, name, ig_id, ig_username FROM pages ORDER BY id"),
            "posts": self.posts(),
            "media": self.media(),
            "containers": self.containers(),
            "injections": self.store.injections_live(),
        }

    # --- request handling (called by the HTTP handler) ----------------------------------------
    def respond(self, req: Request) -> tuple[Response, str, float]:
        """Answer one Graph request: (response, injected kind or "", seconds to hang first)."""
        injection = self._injection_for(req)
        if injection is not None and _applies_before(injection) and self.store.injection_consume(injection["id"]):
            return _injected_response(injection, req), injection["kind"], 0.0
        try:
            response = self.oauth.handle(req) or self.api.handle(req)
        except GraphError as exc:
            response = _error_response(exc)
        if (
            injection is not None
            and not _applies_before(injection)
            and response.status < 300
            and self.store.injection_consume(injection["id"])
        ):
            kind = injection["kind"]
            if kind == "hang_after_create":
                return response, kind, float(injection["params"].get("seconds", 30))
            if kind == "drop_after_create":
                return response, kind, 0.0
            return _injected_response(injection, req), kind, 0.0
        return response, "", 0.0

    def usage_headers(self, req: Request) -> dict[str, str]:
        usage = self.store.meta_get("usage", {"app": None, "business": None})
        headers: dict[str, str] = {}
        if usage["app"] is not None:
            headers["X-App-Usage"] = json.dumps(
                {"call_count": usage["app"], "total_time": usage["app"], "total_cputime": usage["app"]}
            )
        if usage["business"] is not None:
            headers["X-Business-Use-Case-Usage"] = _buc_header(req, usage["business"], usage.get("regain", 0))
        return headers

    def _injection_for(self, req: Request) -> dict[str, Any] | None:
        for injection in self.store.injections_live():
            if injection["method"] in (req.method, "*") and re.search(injection["path_regex"], req.raw_path):
                return injection
        return None

    def stopping(self) -> threading.Event:
        return self._stopping

    def version_stripped(self, path: str) -> str | None:
        match = self._version.match(path)
        if match is None:
            return None
        return match.group(1) or "/"

    def permalink_page(self, object_id: str) -> Response:
        """The HTML page a sandbox permalink opens, so a demo user can click through."""
        post = self.store.one("SELECT * FROM posts WHERE id = ? AND deleted_at IS NULL", (object_id,))
        media = self.store.one("SELECT * FROM media WHERE id = ? AND deleted_at IS NULL", (object_id,))
        if post is not None:
            page = self.store.one("SELECT name FROM pages WHERE id = ?", (post["page_id"],)) or {}
            author, text, link, image = page.get("name", ""), post["message"], post["link"], post["image_url"]
            created_at = post["created_at"]
        elif media is not None:
            page = self.store.one("SELECT ig_username FROM pages WHERE ig_id = ?", (media["ig_id"],)) or {}
            author, text, link, image = f"@{page.get('ig_username', '')}", media["caption"], "", media["media_url"]
            created_at = media["created_at"]
        else:
            body = html_page("Post not found", "<p>This content isn't available. It may have been deleted.</p>")
            return Response(status=404, body=body, content_type="text/html; charset=utf-8")
        parts = [
            f"<p class='who'>{html.escape(author)} · {html.escape(graph_time(created_at))}</p>",
            "<p class='text'>{}</p>".format(html.escape(text).replace("\n", "<br>")),
        ]
        if image:
            parts.append(f"<p><img src='{html.escape(image)}' alt='' style='max-width:100%'></p>")
        if link:
            parts.append(f"<p><a href='{html.escape(link)}' rel='nofollow noopener'>{html.escape(link)}</a></p>")
        return Response(body=html_page("Sandbox post", "".join(parts)), content_type="text/html; charset=utf-8")

    def control(self, name: str, kwargs: dict[str, Any]) -> Response:
        if name not in CONTROL_METHODS:
            return Response(status=404, body={"error": f"unknown control method {name!r}"})
        try:
            return Response(body=getattr(self, name)(**kwargs))
        except (TypeError, ValueError, re.error) as exc:
            return Response(status=400, body={"error": str(exc)})


def _applies_before(injection: dict[str, Any]) -> bool:
    return injection["kind"] in INJECT_BEFORE and not injection["params"].get("after_create", False)


def _error_response(exc: GraphError) -> Response:
    return Response(status=exc.status, body=exc.envelope(), headers=dict(exc.headers))


def _injected_response(injection: dict[str, Any], req: Request) -> Response:
    kind, params = injection["kind"], injection["params"]
    if kind == "html_502":
        body = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>"
        return Response(status=502, body=body, content_type="text/html")
    if kind == "non_json":
        return Response(
            status=int(params.get("status", 200)),
            body="Sorry, something went wrong. We're working on getting this fixed as soon as we can.",
            content_type="text/html; charset=utf-8",
        )
    if kind == "ok_without_id":
        return Response(body={})
    if kind == "token_expired":
        return _error_response(errors.token_dead(int(params.get("subcode", 463))))
    if kind == "500_after_create":
        return _error_response(errors.service_unavailable())
    if kind == "throttle":
        code = int(params.get("code", 4))
        # Meta announces whole minutes; a fraction lets a minutes-long fault night see the
        # pause end (the product reads any number: publish/graph.py rate_limit_usage).
        minutes = float(params.get("minutes", 5))
        exc = GraphError(
            code=code,
            subcode=params.get("subcode"),
            status=int(params.get("status", 400)),
            is_transient=True,
            message=errors.THROTTLE_MESSAGES.get(code, f"(#{code}) Rate limit reached"),
            headers={
                "X-App-Usage": json.dumps({"call_count": 100, "total_time": 35, "total_cputime": 30}),
                # ``usage_header``: this exact text instead, for a malformed header (item 12, garbage).
                "X-Business-Use-Case-Usage": str(params["usage_header"])
                if "usage_header" in params
                else _buc_header(req, 100, minutes, code=code),
            },
        )
        return _error_response(exc)
    code = int(params.get("code", 1))
    exc = GraphError(
        code=code,
        subcode=params.get("subcode"),
        status=int(params.get("status", 500 if code in (1, 2) else 400)),
        type=str(params.get("type", "OAuthException")),
        is_transient=bool(params.get("is_transient", code in (1, 2))),
        message=str(params.get("message", f"(#{code}) Injected sandbox error")),
        user_title=str(params.get("user_title", "")),
        user_msg=str(params.get("user_msg", "")),
    )
    return _error_response(exc)


def _buc_header(req: Request, percent: int, minutes: float, code: int | None = None) -> str:
    object_id = next((part for part in req.path.split("/") if part), "0").split("_")[0]
    kind = "instagram" if code == 80002 or "media" in req.path else "pages"
    entry = {
        "type": kind,
        "call_count": percent,
        "total_cputime": max(1, percent // 4),
        "total_time": max(1, percent // 4),
        "estimated_time_to_regain_access": int(minutes) if float(minutes).is_integer() else minutes,
    }
    return json.dumps({object_id: [entry]})


class _SandboxHTTPServer(ThreadingHTTPServer):
    """The HTTP server, carrying the sandbox its request handlers answer for."""

    sandbox: GraphSandbox


class _Handler(BaseHTTPRequestHandler):
    # Always the sandbox's own server (GraphSandbox.start): the annotation says so to mypy.
    server: _SandboxHTTPServer

    protocol_version = "HTTP/1.1"
    server_version = "LandedGraphSandbox/1.0"

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def do_DELETE(self) -> None:
        self._dispatch()

    def log_message(self, format: str, *args: Any) -> None:
        # The default writes request lines (query strings, maybe tokens) to stderr: the
        # sandbox's own redacted request log is the record instead.
        return

    @property
    def sandbox(self) -> GraphSandbox:
        return self.server.sandbox

    def _dispatch(self) -> None:
        sandbox = self.sandbox
        split = urlsplit(self.path)
        path = split.path
        query = dict(parse_qsl(split.query, keep_blank_values=True))
        try:
            # Control calls are always JSON, whatever Content-Type a curl command line sends.
            body = self._read_body(force_json=path.startswith("/_sandbox/"))
        except ValueError as exc:
            self._send(Response(status=400, body=errors.GraphError(code=100, message=str(exc)).envelope()))
            return
        if path.startswith("/_sandbox/"):
            self._send(sandbox.control(path.removeprefix("/_sandbox/").strip("/"), body or query))
            return
        if path.startswith("/p/"):
            self._send(sandbox.permalink_page(path.removeprefix("/p/").strip("/")))
            return
        token, token_via = self._token(query, body)
        stripped = sandbox.version_stripped(path)
        req = Request(
            method=self.command,
            path=stripped if stripped is not None else path,
            raw_path=path,
            query=query,
            body=body,
            token=token,
            token_via=token_via,
        )
        try:
            response, injected, hang_s = sandbox.respond(req)
        except Exception:  # the sandbox must answer like the API does, never with a traceback
            response = _error_response(
                GraphError(code=1, status=500, is_transient=True, message="An unknown error occurred")
            )
            injected, hang_s = "", 0.0
        # The steady usage headers (set_usage) on every answer, unless the answer carries its
        # own: a throttle's announce 100% and its regain time, which must reach the client.
        response.headers = {**sandbox.usage_headers(req), **response.headers}
        sandbox.store.request_record(
            method=self.command,
            path=path,
            query=_redacted(query),
            body=_redacted(body),
            status=0 if injected == "drop_after_create" else response.status,
            token_via=token_via,
            injected=injected,
        )
        if injected == "drop_after_create":
            self._drop()
            return
        if hang_s and sandbox.stopping().wait(hang_s):
            self._drop()
            return
        latency_s = sandbox.latency_s()
        if latency_s:
            time.sleep(latency_s)
        self._send(response)

    def _read_body(self, *, force_json: bool = False) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return {}
        content_type = self.headers.get("Content-Type", "")
        if force_json or "application/json" in content_type:
            try:
                data = json.loads(raw)
            except ValueError as exc:
                raise ValueError("(#100) The request body is not valid JSON") from exc
            if not isinstance(data, dict):
                raise ValueError("(#100) The request body must be a JSON object")
            return data
        if "multipart/form-data" in content_type:
            raise ValueError("(#100) Multipart uploads are not emulated by the sandbox; pass a url")
        form: dict[str, Any] = {}
        for key, value in parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True):
            # Repeated keys (the consent form's checkboxes) become lists, as in a multidict.
            previous = form.get(key)
            form[key] = (
                value if previous is None else [*previous, value] if isinstance(previous, list) else [previous, value]
            )
        return form

    def _token(self, query: dict[str, str], body: dict[str, Any]) -> tuple[str, str]:
        auth = self.headers.get("Authorization", "")
        scheme, _, value = auth.partition(" ")
        if scheme.lower() in ("bearer", "oauth") and value.strip():
            return value.strip(), "header"
        if query.get("access_token"):
            return query["access_token"], "query"
        if body.get("access_token"):
            return str(body["access_token"]), "body"
        return "", ""

    def _send(self, response: Response) -> None:
        payload = response.encoded()
        try:
            self.send_response(response.status)
            self.send_header("Content-Type", response.content_type)
            self.send_header("Content-Length", str(len(payload)))
            for name, value in response.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _drop(self) -> None:
        """Close the connection with no response at all: the client sees a lost response."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


def _redacted(params: dict[str, Any]) -> dict[str, Any]:
    return {key: ("[redacted]" if key in _SECRET_PARAMS else value) for key, value in params.items()}
