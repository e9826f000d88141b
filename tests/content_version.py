"""Tests that count what a request left to run at commit (a task enqueued) leave out the
content-version bumps every write to a page's rows adds (accounts/content_version.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def without_version_bumps(callbacks: list[Callable[[], Any]]) -> list[Callable[[], Any]]:
    return [callback for callback in callbacks if getattr(callback, "__name__", "") != "content_version_bump"]
