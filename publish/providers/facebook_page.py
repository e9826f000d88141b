"""Facebook Pages: one write (``/feed`` or ``/photos``), read back, list the Page's posts.

Reference: docs/meta-graph-api.md section 2.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from accounts.models import Platform
from publish.kinds import RequestKind
from publish.providers.base import OutgoingPost, Provider, PublishStep, ReadBack, RecentPost, parse_time, summary_count

READ_FIELDS = "id,message,created_time,is_published,permalink_url,status_type"
LIST_FIELDS = "id,message,created_time,permalink_url"
LIST_PAGE_SIZE = 100
# Reconcile looks minutes back, so a handful of pages is far more than a Page posts.
LIST_MAX_PAGES = 5


class FacebookPageProvider(Provider):
    platform = Platform.FACEBOOK_PAGE

    def publish(self, *, post: OutgoingPost, container_id: str, on_container: Callable[[str], None]) -> PublishStep:
        if post.image_url and not post.link_url:
            response = self.client.write(
                f"{self.external_id}/photos",
                kind=RequestKind.FB_PHOTO,
                data={"url": post.image_url, "caption": post.message, "published": "true"},
            )
            # /photos answers {"id": <photo id>, "post_id": <page>_<post>}: the post id is
            # what reads and listings know, so prefer it.
            return PublishStep(post_id=str(response.body.get("post_id") or response.body["id"]))
        data = {"message": post.message}
        if post.link_url:
            data["link"] = post.link_url
        response = self.client.write(f"{self.external_id}/feed", kind=RequestKind.FB_FEED, data=data)
        return PublishStep(post_id=str(response.body["id"]))

    def read_back(self, *, post_id: str) -> ReadBack:
        body = self.client.read(post_id, kind=RequestKind.FB_READ, params={"fields": READ_FIELDS}).body
        raw_permalink = body.get("permalink_url")
        permalink = raw_permalink if isinstance(raw_permalink, str) else ""
        live = body.get("is_published") is True and bool(permalink)
        return ReadBack(post_id=post_id, live=live, permalink=permalink if live else "")

    def list_recent(self, *, since: datetime) -> list[RecentPost]:
        params: dict[str, Any] = {"fields": LIST_FIELDS, "since": int(since.timestamp()), "limit": LIST_PAGE_SIZE}
        posts: list[RecentPost] = []
        for _ in range(LIST_MAX_PAGES):
            body = self.client.read(f"{self.external_id}/published_posts", kind=RequestKind.FB_LIST, params=params).body
            posts.extend(_recent(item) for item in body.get("data") or [] if isinstance(item, dict))
            after = ((body.get("paging") or {}).get("cursors") or {}).get("after")
            if not (body.get("paging") or {}).get("next") or not after:
                break
            params = {**params, "after": after}
        return [post for post in posts if post.post_id and (post.created_at is None or post.created_at >= since)]

    def engagement(self, *, post_id: str) -> dict[str, int]:
        fields = "reactions.summary(total_count).limit(0),comments.summary(total_count).limit(0)"
        body = self.client.read(post_id, kind=RequestKind.FB_ENGAGEMENT, params={"fields": fields}).body
        return {"reactions": summary_count(body, "reactions"), "comments": summary_count(body, "comments")}


def _recent(item: dict[str, Any]) -> RecentPost:
    return RecentPost(
        post_id=str(item.get("id") or ""),
        message=str(item.get("message") or ""),
        created_at=parse_time(item.get("created_time")),
        permalink=str(item.get("permalink_url") or ""),
        link_url=str(item.get("link") or ""),
    )
