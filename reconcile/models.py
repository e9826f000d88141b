"""Reconcile reads platform state back and moves Publications through their states; the
only rows it owns are engagement snapshots of landed posts."""

from __future__ import annotations

from django.db import models

from accounts.content_version import ContentVersionedQuerySet


class EngagementSnapshot(models.Model):
    """Reactions/likes and comments on a landed post, as the platform counted them at one time."""

    publication = models.ForeignKey("publish.Publication", on_delete=models.CASCADE, related_name="engagement")
    fetched_at = models.DateTimeField()
    reactions = models.PositiveIntegerField(default=0)
    comments = models.PositiveIntegerField(default=0)
    # Shown on the customer's pages: writes bump the account's content version (accounts/content_version.py).
    objects = ContentVersionedQuerySet["EngagementSnapshot"].as_manager()

    class Meta:
        ordering = ["-fetched_at"]
        indexes = [models.Index(fields=["publication", "-fetched_at"])]

    def __str__(self) -> str:
        return f"engagement {self.publication_id} @ {self.fetched_at:%Y-%m-%d %H:%M}"
