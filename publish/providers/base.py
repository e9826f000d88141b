"""The interface every platform provider speaks.

A provider turns a post into Graph API requests and answers into plain values. It keeps no
state of its own: everything that must survive a crash (container ids, post ids) is handed
to the caller the moment it exists, and the caller persists it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from publish.graph import GraphClient


@dataclass(frozen=True)
class OutgoingPost:
    message: str
    link_url: str = ""
    image_url: str = ""


@dataclass(frozen=True)
class PublishStep:
    """Where a publish call got to: a post id once the platform accepted the post, or
    only a container id while an Instagram container is still being processed."""

    post_id: str = ""
    container_id: str = ""


@dataclass(frozen=True)
class ReadBack:
    """A post as the platform shows it now. ``live`` needs the platform's own word
    (is_published / a permalink it gave us)."""

    post_id: str
    live: bool
    permalink: str


@dataclass(frozen=True)
class RecentPost:
    post_id: str
    message: str
    created_at: datetime | None
    permalink: str
    link_url: str = ""


@dataclass(frozen=True)
class ContainerState:
    """An Instagram container's ``status_code`` (IN_PROGRESS, FINISHED, ERROR, EXPIRED,
    PUBLISHED) and its ``status`` text (which carries the 2207xxx subcode on ERROR)."""

    status_code: str
    status: str = ""


class Provider(ABC):
    platform: ClassVar[str]

    def __init__(self, *, client: GraphClient, external_id: str) -> None:
        self.client = client
        self.external_id = external_id

    @abstractmethod
    def publish(self, *, post: OutgoingPost, container_id: str, on_container: Callable[[str], None]) -> PublishStep:
        """Make the post live, or get as far as possible without blocking.

        ``container_id`` is a container created earlier for this post (Instagram), reused
        instead of creating another; ``on_container`` is called with a new container id
        before anything else happens to it.
        """

    @abstractmethod
    def read_back(self, *, post_id: str) -> ReadBack:
        """Read one post. Raises NotVisibleYet while the platform answers 100/33."""

    @abstractmethod
    def list_recent(self, *, since: datetime) -> list[RecentPost]:
        """Posts on this channel created at or after ``since`` (newest first)."""

    def container_state(self, *, container_id: str) -> ContainerState:
        """Only Instagram has containers."""
        raise NotImplementedError(f"{self.platform} has no containers")

    @abstractmethod
    def engagement(self, *, post_id: str) -> dict[str, int]:
        """Counts of reactions/likes and comments on a landed post."""


def parse_time(value: Any) -> datetime | None:
    """Graph timestamps look like ``2026-11-29T22:51:10+0000``; anything else is None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def summary_count(body: dict[str, Any], edge: str) -> int:
    """``{"reactions": {"summary": {"total_count": 3}}}`` → 3; absent or malformed → 0."""
    node = body.get(edge)
    summary = node.get("summary") if isinstance(node, dict) else None
    count = summary.get("total_count") if isinstance(summary, dict) else None
    return count if isinstance(count, int) and not isinstance(count, bool) else 0
