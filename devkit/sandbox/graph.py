"""The emulated Graph API: Pages publishing, Instagram content publishing, read-back.

``GraphApi.handle`` takes a parsed request and returns a ``Response`` or raises a
``GraphError``; it knows nothing about sockets or injected failures (the server wraps
those around it), so every endpoint here behaves like the documented real one.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from devkit.sandbox import errors
from devkit.sandbox.errors import GraphError
from devkit.sandbox.store import Store
from publish import limits

DAY_S = 86400
LONG_LIVED_S = 5183944
SHORT_LIVED_S = 5400
# Instagram's caption limits, as the product knows them (the one definition is publish/limits.py).
CAPTION_MAX_CHARS = limits.MAX_CHARS[limits.INSTAGRAM]
CAPTION_MAX_HASHTAGS = limits.MAX_HASHTAGS[limits.INSTAGRAM]
CAPTION_MAX_MENTIONS = limits.MAX_MENTIONS[limits.INSTAGRAM]
DEFAULT_PAGE_LIMIT = 25
MAX_PAGE_LIMIT = 100
# Knob defaults until a test or the demo scripts otherwise (GraphSandbox.set_*). The guide
# says 100 API-published posts per rolling 24 h and 400 containers (docs/meta-graph-api.md section 3).
DEFAULT_QUOTA = {"total": 100, "used": 0, "containers_total": 400}
DEFAULT_READ_LAG = {"reads": 0, "unpublished_reads": 0}
DEFAULT_CONTAINER_PLAN = {"in_progress_polls": 0, "outcome": "FINISHED", "error_subcode": None}


@dataclass
class Request:
    method: str
    path: str  # without the version prefix, e.g. "/123/feed"
    raw_path: str  # as received, e.g. "/v26.0/123/feed"
    query: dict[str, str]
    body: dict[str, Any]
    token: str
    token_via: str  # "header", "query", "body" or "" (none)

    @property
    def params(self) -> dict[str, Any]:
        # The real API takes POST parameters from the query string or the body alike.
        return {**self.query, **self.body}


@dataclass
class Response:
    status: int = 200
    body: Any = None
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)

    def encoded(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        if isinstance(self.body, str):
            return self.body.encode()
        return json.dumps(self.body).encode()


def graph_time(ts: float) -> str:
    """The Graph API's timestamp format: ``2026-11-29T22:51:10+0000``."""
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S+0000")


def parse_time(value: str) -> float | None:
    """``since``/``until`` as the API takes them: unix seconds or an ISO 8601 time."""
    value = value.strip()
    if not value:
        return None
    if re.fullmatch(r"\d+(\.\d+)?", value):
        return float(value)
    try:
        parsed = datetime.fromisoformat(value.replace("+0000", "+00:00").replace("Z", "+00:00"))
    except ValueError as exc:
        raise GraphError(code=100, message=f"(#100) Invalid time value: {value[:40]}") from exc
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def parse_fields(spec: str) -> dict[str, list[str]]:
    """``id,instagram_business_account{id,username},reactions.summary(true)`` → names with sub-fields."""
    result: dict[str, list[str]] = {}
    depth = 0
    current = ""
    for char in spec + ",":
        if char == "," and depth == 0:
            name = current.strip()
            current = ""
            if not name:
                continue
            sub: list[str] = []
            if "{" in name:
                name, _, inner = name.partition("{")
                sub = list(parse_fields(inner.rstrip("}")))
            # Modifiers such as ``.summary(true)`` or ``.limit(0)`` select how, not what.
            result[name.split(".")[0].strip()] = sub
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        current += char
    return result


def select_fields(
    *, node_type: str, values: dict[str, Any], known: set[str], default: list[str], spec: str
) -> dict[str, Any]:
    """Render a node with the requested fields, refusing unknown ones as the real API does."""
    wanted = parse_fields(spec) if spec.strip() else {key: [] for key in default}
    out: dict[str, Any] = {}
    for name, sub in wanted.items():
        if name not in known:
            raise errors.nonexisting_field(name, node_type)
        if name not in values:
            continue  # known but absent right now (e.g. a permalink not yet assigned)
        value = values[name]
        if sub and isinstance(value, dict):
            value = {key: val for key, val in value.items() if key in sub or key == "id"}
        out[name] = value
    out["id"] = values["id"]
    return out


class GraphApi:
    """Endpoint logic over a ``Store``; ``base_url`` gives the address permalinks point at."""

    def __init__(self, store: Store, base_url: Callable[[], str], app_secret: str) -> None:
        self.store = store
        self.base_url = base_url
        self.app_secret = app_secret

    def handle(self, req: Request) -> Response:
        parts = [part for part in req.path.split("/") if part]
        if not parts:
            raise errors.unknown_path(req.path)
        object_id, edge = parts[0], "/".join(parts[1:])
        route = _ROUTES.get((req.method, edge))
        if route is None:
            if req.method == "GET" and not edge:
                return Response(body=self.node_read(req, object_id))
            if req.method == "DELETE" and not edge:
                return Response(body=self.node_delete(req, object_id))
            raise errors.unknown_path(req.path)
        return Response(body=route(self, req, object_id))

    # --- tokens and access ---------------------------------------------------------
    def token(self, req: Request, *, check_proof: bool = True) -> dict[str, Any]:
        if not req.token:
            raise errors.token_required()
        if check_proof and self.store.meta_get("appsecret_proof_required", False):
            self.check_appsecret_proof(req)
        row = self.store.one("SELECT * FROM tokens WHERE token = ?", (req.token,))
        if row is None:
            raise errors.token_unparseable()
        if row["invalid_subcode"]:
            raise errors.token_dead(row["invalid_subcode"])
        if row["expires_at"] and row["expires_at"] <= self.store.now():
            raise errors.token_dead(463)
        row["scopes"] = json.loads(row["scopes"])
        return row

    def check_appsecret_proof(self, req: Request) -> None:
        """With "Require App Secret" on, every token-bearing call carries HMAC-SHA256(app secret, token)."""
        proof = str(req.params.get("appsecret_proof", ""))
        if not proof:
            raise GraphError(code=100, message="API calls from the server require an appsecret_proof argument")
        expected = hmac.new(self.app_secret.encode(), req.token.encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(proof, expected):
            raise GraphError(code=100, message="Invalid appsecret_proof provided in the API argument")

    def require_scope(self, token: dict[str, Any], scope: str, code: int = 200, *, alias: str = "") -> None:
        """``alias``: the Instagram Login name of the same permission (instagram_business_*)."""
        if scope not in token["scopes"] and (not alias or alias not in token["scopes"]):
            raise errors.permission_missing(scope, code)

    def page(self, req: Request, page_id: str, *, write: bool = False) -> dict[str, Any]:
        token = self.token(req)
        page = self.store.one("SELECT * FROM pages WHERE id = ?", (page_id,))
        if page is None or not self.token_reaches_page(token, page):
            raise errors.object_missing(page_id, "post" if write else "get")
        if write:
            if token["kind"] != "PAGE":
                raise GraphError(
                    code=200,
                    message="(#200) Posts on a Page must be made as the Page itself: use the Page access token.",
                )
            self.require_scope(token, "pages_manage_posts")
        page["token"] = token
        return page

    def ig_user(self, req: Request, ig_id: str, *, write: bool = False) -> dict[str, Any]:
        token = self.token(req)
        page = self.store.one("SELECT * FROM pages WHERE ig_id = ?", (ig_id,))
        if page is None or not self.token_reaches_ig_account(token, page):
            raise errors.object_missing(ig_id, "post" if write else "get")
        if write:
            self.require_scope(token, "instagram_content_publish", code=10, alias="instagram_business_content_publish")
        else:
            self.require_scope(token, "instagram_basic", code=10, alias="instagram_business_basic")
        page["token"] = token
        return page

    @staticmethod
    def token_reaches_page(token: dict[str, Any], page: dict[str, Any]) -> bool:
        """Facebook objects: the Page's own token or its owner's user token."""
        if token["kind"] == "PAGE":
            return token["page_id"] == page["id"]
        if token["kind"] == "USER":
            return token["user_id"] == page["user_id"]
        return False  # an Instagram Login token reaches only its Instagram account

    @classmethod
    def token_reaches_ig_account(cls, token: dict[str, Any], page: dict[str, Any]) -> bool:
        """The Instagram account linked to ``page``: its Instagram Login token, or a Facebook one."""
        if token["kind"] == "IG":
            return token["page_id"] == page["id"]
        return cls.token_reaches_page(token, page)

    # --- Facebook Pages --------------------------------------------------------------
    def feed_create(self, req: Request, page_id: str) -> dict[str, Any]:
        self.page(req, page_id, write=True)
        params = req.params
        message = str(params.get("message", ""))
        link = str(params.get("link", ""))
        photo_ids = _attached_media_ids(params)
        if not (message or link or photo_ids):
            raise GraphError(code=100, message="(#100) A post needs at least one of message, link or attached_media")
        image_url = ""
        for photo_id in photo_ids:
            photo = self.store.one("SELECT * FROM photos WHERE id = ? AND page_id = ?", (photo_id, page_id))
            if photo is None:
                raise GraphError(code=100, message=f"(#100) attached_media: unknown photo {photo_id}")
            image_url = image_url or photo["url"]
        status_type = "added_photos" if photo_ids else ("shared_story" if link else "mobile_status_update")
        post_id = self.post_insert(
            page_id=page_id,
            message=message,
            link=link,
            image_url=image_url,
            status_type=status_type,
            photo_id=photo_ids[0] if photo_ids else None,
        )
        for photo_id in photo_ids:
            self.store.execute("UPDATE photos SET post_id = ? WHERE id = ?", (post_id, photo_id))
        return {"id": post_id}

    def photo_create(self, req: Request, page_id: str) -> dict[str, Any]:
        self.page(req, page_id, write=True)
        params = req.params
        url = str(params.get("url", ""))
        if not url:
            raise GraphError(
                code=324, message="(#324) Requires upload file: pass url (multipart upload is not emulated)"
            )
        caption = str(params.get("caption", params.get("message", "")))
        published = str(params.get("published", "true")).lower() not in ("false", "0")
        photo_id = self.store.next_id()
        post_id = None
        if published:
            post_id = self.post_insert(
                page_id=page_id, message=caption, link="", image_url=url, status_type="added_photos", photo_id=photo_id
            )
        self.store.execute(
            "INSERT INTO photos (id, page_id, url, caption, post_id, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (photo_id, page_id, url, caption, post_id, self.store.now()),
        )
        return {"id": photo_id, "post_id": post_id} if post_id else {"id": photo_id}

    def post_insert(
        self, *, page_id: str, message: str, link: str, image_url: str, status_type: str, photo_id: str | None
    ) -> str:
        post_id = f"{page_id}_{self.store.next_id()}"
        lag = self.store.meta_get("read_lag", DEFAULT_READ_LAG)
        self.store.execute(
            "INSERT INTO posts (id, page_id, message, link, photo_id, image_url, status_type, created_at, "
            "deleted_at, lag_reads, unpublished_reads) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)",
            (
                post_id,
                page_id,
                message,
                link,
                photo_id,
                image_url,
                status_type,
                self.store.now(),
                lag["reads"],
                lag["unpublished_reads"],
            ),
        )
        return post_id

    def post_values(self, post: dict[str, Any], *, published: bool = True) -> dict[str, Any]:
        values: dict[str, Any] = {
            "id": post["id"],
            "created_time": graph_time(post["created_at"]),
            "updated_time": graph_time(post["created_at"]),
            "is_published": published,
            "status_type": post["status_type"],
            "from": {"id": post["page_id"]},
            "reactions": _summary(post["reactions"]),
            "comments": _summary(post["comments"]),
            "likes": _summary(post["reactions"]),
        }
        if published:
            values["permalink_url"] = f"{self.base_url()}/p/{post['id']}"
        if post["message"]:
            values["message"] = post["message"]
        if post["link"]:
            values["link"] = post["link"]
        if post["image_url"]:
            values["full_picture"] = post["image_url"]
        return values

    def published_posts(self, req: Request, page_id: str) -> dict[str, Any]:
        page = self.page(req, page_id)
        self.require_scope(page["token"], "pages_read_engagement", code=10)
        rows = self.store.all(
            "SELECT * FROM posts WHERE page_id = ? AND deleted_at IS NULL AND unpublished_reads = 0 "
            "ORDER BY created_at DESC, id DESC",
            (page_id,),
        )
        rows = _in_window(rows, req.query)
        items = [
            select_fields(
                node_type="Post",
                values=self.post_values(row),
                known=POST_FIELDS,
                default=POST_LIST_DEFAULT,
                spec=req.query.get("fields", ""),
            )
            for row in rows
        ]
        return self.paged(req, items)

    # --- Instagram ---------------------------------------------------------------------
    def media_create(self, req: Request, ig_id: str) -> dict[str, Any]:
        self.ig_user(req, ig_id, write=True)
        params = req.params
        media_type = str(params.get("media_type", "IMAGE")).upper()
        caption = str(params.get("caption", ""))
        if media_type in ("REELS", "VIDEO", "STORIES") and not params.get("image_url"):
            media_url = str(params.get("video_url", ""))
            if not media_url:
                raise errors.missing_param("video_url")
        elif media_type == "CAROUSEL":
            children = [child for child in str(params.get("children", "")).split(",") if child.strip()]
            if not 2 <= len(children) <= 10:
                raise GraphError(code=100, message="(#100) A carousel needs between 2 and 10 children")
            media_url = ""
        else:
            media_url = str(params.get("image_url", ""))
            if not media_url:
                raise errors.missing_param("image_url")
        _caption_check(caption)
        now = self.store.now()
        limits = self.store.meta_get("quota", DEFAULT_QUOTA)
        recent = self.store.one(
            "SELECT COUNT(*) AS n FROM containers WHERE ig_id = ? AND created_at > ?", (ig_id, now - DAY_S)
        )
        if recent and recent["n"] >= limits["containers_total"]:
            raise GraphError(
                code=9,
                subcode=2207042,
                message="(#9) This Instagram account has reached the limit of containers it can create in 24 hours.",
            )
        plan = self.store.meta_get("container_plan", DEFAULT_CONTAINER_PLAN)
        container_id = self.store.next_id()
        self.store.execute(
            "INSERT INTO containers (id, ig_id, media_type, image_url, caption, created_at, polls_left, outcome, "
            "error_subcode, media_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
            (
                container_id,
                ig_id,
                media_type,
                media_url,
                caption,
                now,
                plan["in_progress_polls"],
                plan["outcome"],
                plan.get("error_subcode"),
            ),
        )
        return {"id": container_id}

    def container_status(self, container: dict[str, Any], *, poll: bool) -> str:
        """The container's status_code now; a poll spends one scripted IN_PROGRESS answer."""
        if container["media_id"]:
            return "PUBLISHED"
        if container["created_at"] + DAY_S <= self.store.now():
            return "EXPIRED"
        if container["polls_left"] > 0:
            if poll:
                self.store.execute(
                    "UPDATE containers SET polls_left = polls_left - 1 WHERE id = ? AND polls_left > 0",
                    (container["id"],),
                )
            return "IN_PROGRESS"
        return container["outcome"]

    def media_publish(self, req: Request, ig_id: str) -> dict[str, Any]:
        self.ig_user(req, ig_id, write=True)
        creation_id = str(req.params.get("creation_id", ""))
        if not creation_id:
            raise errors.missing_param("creation_id")
        container = self.store.one("SELECT * FROM containers WHERE id = ? AND ig_id = ?", (creation_id, ig_id))
        if container is None:
            raise GraphError(
                code=24,
                subcode=2207008,
                message="The media builder does not exist or has expired.",
                user_title="Media builder not found",
            )
        status = self.container_status(container, poll=False)
        if status == "IN_PROGRESS":
            raise GraphError(
                code=9007,
                subcode=2207027,
                message="(#9007) The media is not ready for publishing, please wait for a moment",
                user_title="Media ID is not available",
                user_msg="The media is not ready for publishing, please wait for a moment",
            )
        if status == "EXPIRED":
            raise errors.ig_error(2207020)
        if status == "ERROR":
            raise errors.ig_error(container["error_subcode"] or 2207001)
        if status == "PUBLISHED":
            raise GraphError(code=100, message="(#100) This container has already been published")
        limits = self.store.meta_get("quota", DEFAULT_QUOTA)
        if self.quota_usage(ig_id) >= limits["total"]:
            raise GraphError(
                code=9,
                subcode=2207042,
                message="(#9) Application request limit reached",
                user_title="Maximum number of posts reached",
                user_msg="You have reached the maximum number of posts allowed in 24 hours.",
            )
        media_id = self.store.next_id()
        lag = self.store.meta_get("read_lag", DEFAULT_READ_LAG)
        media_type = "CAROUSEL_ALBUM" if container["media_type"] == "CAROUSEL" else container["media_type"]
        with self.store.transaction() as db:
            # Conditional: of two racing publishes of one container, only one makes media.
            won = db.execute(
                "UPDATE containers SET media_id = ? WHERE id = ? AND media_id IS NULL", (media_id, creation_id)
            ).rowcount
            if won != 1:
                raise GraphError(code=100, message="(#100) This container has already been published")
            db.execute(
                "INSERT INTO media (id, ig_id, container_id, caption, media_url, media_type, shortcode, created_at, "
                "deleted_at, lag_reads, unpublished_reads) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)",
                (
                    media_id,
                    ig_id,
                    creation_id,
                    container["caption"],
                    container["image_url"],
                    media_type,
                    _shortcode(media_id),
                    self.store.now(),
                    lag["reads"],
                    lag["unpublished_reads"],
                ),
            )
        return {"id": media_id}

    def quota_usage(self, ig_id: str) -> int:
        limits = self.store.meta_get("quota", DEFAULT_QUOTA)
        row = self.store.one(
            "SELECT COUNT(*) AS n FROM media WHERE ig_id = ? AND created_at > ?", (ig_id, self.store.now() - DAY_S)
        )
        return int(limits["used"]) + (row["n"] if row else 0)

    def publishing_limit(self, req: Request, ig_id: str) -> dict[str, Any]:
        self.ig_user(req, ig_id)
        limits = self.store.meta_get("quota", DEFAULT_QUOTA)
        values = {
            "quota_usage": self.quota_usage(ig_id),
            "config": {"quota_total": limits["total"], "quota_duration": DAY_S},
        }
        spec = req.query.get("fields", "") or "quota_usage"
        wanted = parse_fields(spec)
        for name in wanted:
            if name not in values:
                raise errors.nonexisting_field(name, "ContentPublishingLimitResponse")
        return {"data": [{name: values[name] for name in wanted}]}

    def media_values(self, media: dict[str, Any], *, published: bool = True) -> dict[str, Any]:
        values: dict[str, Any] = {
            "id": media["id"],
            "caption": media["caption"],
            "timestamp": graph_time(media["created_at"]),
            "media_type": media["media_type"],
            "media_product_type": "FEED",
            "media_url": media["media_url"],
            "shortcode": media["shortcode"],
            "like_count": media["reactions"],
            "comments_count": media["comments"],
            "owner": {"id": media["ig_id"]},
        }
        if published:
            values["permalink"] = f"{self.base_url()}/p/{media['id']}"
        return values

    def media_list(self, req: Request, ig_id: str) -> dict[str, Any]:
        self.ig_user(req, ig_id)
        rows = self.store.all(
            "SELECT * FROM media WHERE ig_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, id DESC", (ig_id,)
        )
        rows = _in_window(rows, req.query)
        items = [
            select_fields(
                node_type="IGMedia",
                values=self.media_values(row, published=row["unpublished_reads"] == 0),
                known=MEDIA_FIELDS,
                default=["id"],
                spec=req.query.get("fields", ""),
            )
            for row in rows
        ]
        return self.paged(req, items)

    # --- nodes by id -----------------------------------------------------------------
    def node_read(self, req: Request, node_id: str) -> dict[str, Any]:
        spec = req.query.get("fields", "")
        token = self.token(req)
        if "_" in node_id:
            return self.readable_post(token, node_id, spec)
        page = self.store.one("SELECT * FROM pages WHERE id = ?", (node_id,))
        if page is not None and self.token_reaches_page(token, page):
            return self.page_values(token, page, spec)
        page = self.store.one("SELECT * FROM pages WHERE ig_id = ?", (node_id,))
        if page is not None and self.token_reaches_ig_account(token, page):
            media_count = self.store.one(
                "SELECT COUNT(*) AS n FROM media WHERE ig_id = ? AND deleted_at IS NULL", (node_id,)
            )
            values = {
                "id": node_id,
                "username": page["ig_username"],
                "name": page["name"],
                "media_count": media_count["n"] if media_count else 0,
            }
            return select_fields(
                node_type="IGUser",
                values=values,
                known={"id", "username", "name", "media_count"},
                default=["id"],
                spec=spec,
            )
        container = self.store.one("SELECT * FROM containers WHERE id = ?", (node_id,))
        if container is not None and self.token_reaches_ig(token, container["ig_id"]):
            status_code = self.container_status(container, poll=True)
            values = {
                "id": node_id,
                "status_code": status_code,
                "status": _container_status_text(container, status_code),
            }
            return select_fields(
                node_type="IGContainer",
                values=values,
                known={"id", "status_code", "status"},
                default=["id"],
                spec=spec,
            )
        media = self.store.one("SELECT * FROM media WHERE id = ?", (node_id,))
        if media is not None and self.token_reaches_ig(token, media["ig_id"]):
            published = self.consume_read_lag("media", media)
            return select_fields(
                node_type="IGMedia",
                values=self.media_values(media, published=published),
                known=MEDIA_FIELDS,
                default=["id"],
                spec=spec,
            )
        photo = self.store.one("SELECT * FROM photos WHERE id = ?", (node_id,))
        if photo is not None and self.token_reaches_page_id(token, photo["page_id"]):
            values = {"id": node_id, "name": photo["caption"], "created_time": graph_time(photo["created_at"])}
            if photo["post_id"]:
                values["link"] = f"{self.base_url()}/p/{photo['post_id']}"
            return select_fields(
                node_type="Photo",
                values=values,
                known={"id", "name", "created_time", "link"},
                default=["id", "created_time"],
                spec=spec,
            )
        raise errors.object_missing(node_id)

    def readable_post(self, token: dict[str, Any], post_id: str, spec: str) -> dict[str, Any]:
        post = self.store.one("SELECT * FROM posts WHERE id = ?", (post_id,))
        if post is None or not self.token_reaches_page_id(token, post["page_id"]):
            raise errors.object_missing(post_id)
        published = self.consume_read_lag("posts", post)
        return select_fields(
            node_type="Post",
            values=self.post_values(post, published=published),
            known=POST_FIELDS,
            default=["id", "created_time", "message"],
            spec=spec,
        )

    def consume_read_lag(self, table: str, row: dict[str, Any]) -> bool:
        """Spend one scripted lagging read; raise 100/33 while lagging, return whether it is live."""
        if row["deleted_at"] is not None:
            raise errors.object_missing(row["id"])
        if row["lag_reads"] > 0:
            self.store.execute(
                f"UPDATE {table} SET lag_reads = lag_reads - 1 WHERE id = ? AND lag_reads > 0",  # noqa: S608
                (row["id"],),
            )
            raise errors.object_missing(row["id"])
        if row["unpublished_reads"] > 0:
            self.store.execute(
                f"UPDATE {table} SET unpublished_reads = unpublished_reads - 1 "  # noqa: S608
                "WHERE id = ? AND unpublished_reads > 0",
                (row["id"],),
            )
            return False
        return True

    def page_values(self, token: dict[str, Any], page: dict[str, Any], spec: str) -> dict[str, Any]:
        values: dict[str, Any] = {"id": page["id"], "name": page["name"], "category": "Local business"}
        if page["ig_id"]:
            values["instagram_business_account"] = {"id": page["ig_id"], "username": page["ig_username"]}
        if "access_token" in parse_fields(spec) and token["kind"] == "USER":
            values["access_token"] = self.page_token_mint(page_id=page["id"], user_token=token)
        return select_fields(
            node_type="Page",
            values=values,
            known=PAGE_FIELDS,
            default=["id", "name"],
            spec=spec,
        )

    def page_token_mint(self, *, page_id: str, user_token: dict[str, Any]) -> str:
        """A Page token derived from a user token: never expires if the user token is long-lived."""
        long_lived = user_token["expires_at"] == 0 or user_token["expires_at"] - user_token["issued_at"] > DAY_S
        return self.token_insert(
            kind="PAGE",
            user_id=user_token["user_id"],
            page_id=page_id,
            parent=user_token["token"],
            scopes=user_token["scopes"],
            expires_at=0 if long_lived else user_token["expires_at"],
        )

    def token_insert(
        self,
        *,
        kind: str,
        user_id: str | None,
        page_id: str | None,
        parent: str | None,
        scopes: list[str],
        expires_at: float,
    ) -> str:
        # Real Facebook tokens start "EAA", Instagram Login ones "IGAA"; the S marks the sandbox.
        token = ("IGAAS" if kind == "IG" else "EAAS") + secrets.token_urlsafe(36).replace("-", "A").replace("_", "B")
        self.store.execute(
            "INSERT INTO tokens (token, kind, user_id, page_id, parent, scopes, issued_at, expires_at, "
            "invalid_subcode) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)",
            (token, kind, user_id, page_id, parent, json.dumps(sorted(scopes)), self.store.now(), expires_at),
        )
        return token

    def token_reaches_page_id(self, token: dict[str, Any], page_id: str) -> bool:
        page = self.store.one("SELECT * FROM pages WHERE id = ?", (page_id,))
        return page is not None and self.token_reaches_page(token, page)

    def token_reaches_ig(self, token: dict[str, Any], ig_id: str) -> bool:
        page = self.store.one("SELECT * FROM pages WHERE ig_id = ?", (ig_id,))
        return page is not None and self.token_reaches_ig_account(token, page)

    def node_delete(self, req: Request, node_id: str) -> dict[str, Any]:
        token = self.token(req)
        post = self.store.one("SELECT * FROM posts WHERE id = ? AND deleted_at IS NULL", (node_id,))
        if post is None or not self.token_reaches_page_id(token, post["page_id"]):
            raise errors.object_missing(node_id, "delete")
        self.store.execute("UPDATE posts SET deleted_at = ? WHERE id = ?", (self.store.now(), node_id))
        return {"success": True}

    # --- paging --------------------------------------------------------------------------
    def paged(self, req: Request, items: list[dict[str, Any]]) -> dict[str, Any]:
        """Cursor paging as the real API shapes it; ``paging.next`` never carries a token."""
        try:
            limit = max(1, min(MAX_PAGE_LIMIT, int(req.query.get("limit", DEFAULT_PAGE_LIMIT))))
        except ValueError as exc:
            raise GraphError(code=100, message="(#100) limit must be an integer") from exc
        start = _cursor_decode(req.query.get("after", ""))
        chunk = items[start : start + limit]
        result: dict[str, Any] = {"data": chunk}
        if chunk:
            paging: dict[str, Any] = {
                "cursors": {"before": _cursor_encode(start), "after": _cursor_encode(start + len(chunk))}
            }
            if start + limit < len(items):
                query = {key: value for key, value in req.query.items() if key != "access_token"}
                query.update({"limit": str(limit), "after": _cursor_encode(start + limit)})
                paging["next"] = f"{self.base_url()}{req.raw_path}?{urlencode(query)}"
            result["paging"] = paging
        return result


POST_FIELDS = {
    "id", "message", "created_time", "updated_time", "is_published", "permalink_url", "status_type", "link",
    "full_picture", "from", "reactions", "comments", "likes",
}  # fmt: skip
POST_LIST_DEFAULT = ["id", "message", "created_time"]
MEDIA_FIELDS = {
    "id", "caption", "timestamp", "permalink", "media_type", "media_product_type", "media_url", "shortcode",
    "like_count", "comments_count", "owner",
}  # fmt: skip
PAGE_FIELDS = {"id", "name", "category", "instagram_business_account", "access_token"}


def _summary(count: int) -> dict[str, Any]:
    return {"data": [], "summary": {"total_count": count}}


def _cursor_encode(offset: int) -> str:
    return base64.urlsafe_b64encode(f"offset:{offset}".encode()).decode().rstrip("=")


def _cursor_decode(cursor: str) -> int:
    if not cursor:
        return 0
    try:
        decoded = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        return max(0, int(decoded.removeprefix("offset:")))
    except (ValueError, UnicodeDecodeError) as exc:
        raise GraphError(code=100, message="(#100) Invalid paging cursor") from exc


def _in_window(rows: list[dict[str, Any]], query: dict[str, str]) -> list[dict[str, Any]]:
    since = parse_time(query.get("since", ""))
    until = parse_time(query.get("until", ""))
    return [
        row
        for row in rows
        if (since is None or row["created_at"] >= since) and (until is None or row["created_at"] <= until)
    ]


def _attached_media_ids(params: dict[str, Any]) -> list[str]:
    """``attached_media[0]={"media_fbid": "1"}`` form fields, or one JSON list."""
    bad = GraphError(code=100, message='(#100) attached_media entries must be {"media_fbid": "<photo id>"}')
    raw: list[Any] = []
    try:
        if "attached_media" in params:
            value = params["attached_media"]
            raw = value if isinstance(value, list) else json.loads(value or "[]")
        for key in sorted(key for key in params if key.startswith("attached_media[")):
            raw.append(params[key])
        entries = [json.loads(item) if isinstance(item, str) else item for item in raw]
    except ValueError as exc:
        raise bad from exc
    if not isinstance(entries, list) or not all(isinstance(entry, dict) and "media_fbid" in entry for entry in entries):
        raise bad
    return [str(entry["media_fbid"]) for entry in entries]


# Instagram's caption limits in the order Graph checks them: how the caption is counted, the
# limit, the error's code and subcode, and its words ("{limit}" is filled in, so the words
# never drift from the limit: message, error_user_title, error_user_msg).
_CAPTION_LIMITS: tuple[tuple[Callable[[str], int], int, int, int, tuple[str, str, str]], ...] = (
    (
        len,
        CAPTION_MAX_CHARS,
        36004,
        2207010,
        (
            "The caption is too long: at most {limit} characters.",
            "Caption too long",
            "Captions can have at most {limit} characters.",
        ),
    ),
    (
        limits.hashtags_count,
        CAPTION_MAX_HASHTAGS,
        36004,
        2207010,
        (
            "The caption has too many hashtags: at most {limit}.",
            "Too many hashtags",
            "Captions can have at most {limit} hashtags.",
        ),
    ),
    (
        limits.mentions_count,
        CAPTION_MAX_MENTIONS,
        100,
        2207040,
        (
            "Cannot use more than {limit} @ tags in a caption.",
            "Too many tags",
            "Captions can mention at most {limit} accounts.",
        ),
    ),
)


def _caption_check(caption: str) -> None:
    for count, limit, code, subcode, (message, user_title, user_msg) in _CAPTION_LIMITS:
        if count(caption) > limit:
            raise GraphError(
                code=code,
                subcode=subcode,
                message=message.format(limit=limit),
                user_title=user_title,
                user_msg=user_msg.format(limit=limit),
            )


def _container_status_text(container: dict[str, Any], status_code: str) -> str:
    if status_code == "ERROR":
        subcode = container["error_subcode"] or 2207001
        return f"Error: {errors.IG_SUBCODES.get(subcode, (0, 'Media processing failed.'))[1]} ({subcode})"
    return {
        "IN_PROGRESS": "In Progress",
        "FINISHED": "Finished",
        "PUBLISHED": "Published",
        "EXPIRED": "Expired: the container was not published within 24 hours (2207020)",
    }[status_code]


def _shortcode(media_id: str) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
    number = int(media_id)
    code = ""
    while number:
        number, digit = divmod(number, 64)
        code = alphabet[digit] + code
    return code


_ROUTES: dict[tuple[str, str], Callable[[GraphApi, Request, str], dict[str, Any]]] = {
    ("POST", "feed"): GraphApi.feed_create,
    ("POST", "photos"): GraphApi.photo_create,
    ("GET", "published_posts"): GraphApi.published_posts,
    ("GET", "posts"): GraphApi.published_posts,
    ("GET", "feed"): GraphApi.published_posts,
    ("POST", "media"): GraphApi.media_create,
    ("GET", "media"): GraphApi.media_list,
    ("POST", "media_publish"): GraphApi.media_publish,
    ("GET", "content_publishing_limit"): GraphApi.publishing_limit,
}
