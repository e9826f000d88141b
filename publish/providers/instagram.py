"""Instagram professional accounts: container → status → media_publish, read back, list media.

Reference: docs/meta-graph-api.md sections 3, 5 and 6. The container id is
handed to the caller before its status is read, so a crash can never lose it; only
``media_publish`` is irreversible, and it is sent only for a FINISHED container.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from accounts.models import Platform
from publish.errors import (
    ContainerUnusable,
    NotVisibleYet,
    PlatformError,
    Throttled,
    TransientError,
    UnknownOutcome,
)
from publish.graph import DEFAULT_QUOTA_WAIT_S, QUOTA_SUBCODE
from publish.kinds import RequestKind
from publish.providers.base import (
    ContainerState,
    OutgoingPost,
    Provider,
    PublishStep,
    ReadBack,
    RecentPost,
    parse_time,
)

READ_FIELDS = "id,permalink,timestamp,caption,media_type,shortcode"
LIST_FIELDS = "id,caption,permalink,timestamp"
LIST_PAGE_SIZE = 50
LIST_MAX_PAGES = 4


class InstagramProvider(Provider):
    platform = Platform.INSTAGRAM

    def publish(self, *, post: OutgoingPost, container_id: str, on_container: Callable[[str], None]) -> PublishStep:
        if not container_id:
            self._quota_check()
            container_id = self._container_create(post)
            on_container(container_id)
        try:
            state = self.container_state(container_id=container_id)
        except (NotVisibleYet, TransientError):
            # Fresh containers can read with lag; the container is saved, poll it later.
            return PublishStep(container_id=container_id)
        if state.status_code in {"ERROR", "EXPIRED"}:
            raise ContainerUnusable(
                f"container {state.status_code.lower()}: {state.status}"[:300], subcode=_subcode(state.status)
            )
        if state.status_code == "PUBLISHED":
            # Published by an attempt whose answer we never saw: find the media, do not publish again.
            raise UnknownOutcome("container already published by an earlier attempt")
        if state.status_code != "FINISHED":
            return PublishStep(container_id=container_id)
        response = self.client.write(
            f"{self.external_id}/media_publish", kind=RequestKind.IG_MEDIA_PUBLISH, data={"creation_id": container_id}
        )
        return PublishStep(post_id=str(response.body["id"]), container_id=container_id)

    def container_state(self, *, container_id: str) -> ContainerState:
        params = {"fields": "status_code,status"}
        body = self.client.read(container_id, kind=RequestKind.IG_CONTAINER_STATUS, params=params).body
        return ContainerState(status_code=str(body.get("status_code") or ""), status=str(body.get("status") or ""))

    def read_back(self, *, post_id: str) -> ReadBack:
        body = self.client.read(post_id, kind=RequestKind.IG_READ, params={"fields": READ_FIELDS}).body
        raw_permalink = body.get("permalink")
        permalink = raw_permalink if isinstance(raw_permalink, str) else ""
        live = bool(permalink)
        return ReadBack(post_id=post_id, live=live, permalink=permalink if live else "")

    def list_recent(self, *, since: datetime) -> list[RecentPost]:
        # The media edge has no `since`: read newest first and stop once past the window.
        params: dict[str, Any] = {"fields": LIST_FIELDS, "limit": LIST_PAGE_SIZE}
        posts: list[RecentPost] = []
        for _ in range(LIST_MAX_PAGES):
            body = self.client.read(f"{self.external_id}/media", kind=RequestKind.IG_LIST, params=params).body
            batch = [_recent(item) for item in body.get("data") or [] if isinstance(item, dict)]
            posts.extend(batch)
            after = ((body.get("paging") or {}).get("cursors") or {}).get("after")
            older = any(post.created_at is not None and post.created_at < since for post in batch)
            if older or not (body.get("paging") or {}).get("next") or not after:
                break
            params = {**params, "after": after}
        return [post for post in posts if post.post_id and (post.created_at is None or post.created_at >= since)]

    def engagement(self, *, post_id: str) -> dict[str, int]:
        params = {"fields": "like_count,comments_count"}
        body = self.client.read(post_id, kind=RequestKind.IG_ENGAGEMENT, params=params).body
        return {"reactions": _count(body.get("like_count")), "comments": _count(body.get("comments_count"))}

    def _container_create(self, post: OutgoingPost) -> str:
        try:
            response = self.client.write(
                f"{self.external_id}/media",
                kind=RequestKind.IG_CONTAINER_CREATE,
                data={"image_url": post.image_url, "caption": post.message},
            )
        except UnknownOutcome as exc:
            # A container is invisible until media_publish, so an orphan costs nothing but
            # one of 400 daily containers: creating another later is safe.
            raise TransientError(
                f"container creation outcome unknown: {exc.detail}", http_status=exc.http_status
            ) from exc
        return str(response.body["id"])

    def _quota_check(self) -> None:
        """Gate on Instagram's live publishing quota (its documented size varies: read it)."""
        try:
            body = self.client.read(
                f"{self.external_id}/content_publishing_limit",
                kind=RequestKind.IG_QUOTA,
                params={"fields": "quota_usage,config"},
            ).body
        except PlatformError as exc:
            if isinstance(exc, Throttled):
                raise
            # Best effort: media_publish enforces the quota itself (9/2207042).
            return
        entries = body.get("data") or []
        entry = entries[0] if entries and isinstance(entries[0], dict) else {}
        usage = entry.get("quota_usage")
        total = (entry.get("config") or {}).get("quota_total")
        if isinstance(usage, int) and isinstance(total, int) and usage >= total:
            raise Throttled(
                f"publishing quota used up ({usage}/{total})", retry_after_s=DEFAULT_QUOTA_WAIT_S, subcode=QUOTA_SUBCODE
            )


def _recent(item: dict[str, Any]) -> RecentPost:
    return RecentPost(
        post_id=str(item.get("id") or ""),
        message=str(item.get("caption") or ""),
        created_at=parse_time(item.get("timestamp")),
        permalink=str(item.get("permalink") or ""),
    )


def _subcode(status: str) -> int | None:
    match = re.search(r"\b(2207\d{3})\b", status)
    return int(match.group(1)) if match else None


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
