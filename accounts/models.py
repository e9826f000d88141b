"""Tenancy: the customer business (Account), who belongs to it (Membership) and in which Role.

Every pipeline stage hangs its rows off an Account and asks this app who may do what; this
app imports no stage. ``Platform`` lives here too: it is the vocabulary every stage shares
(a voice, a draft, a channel and a publication are each for one platform of an account).

The tables keep the names they had when these models lived in ``posting`` (``db_table``):
the move changed no row, and a web worker still running the previous release reads the
same tables while the new one migrates.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.utils import timezone

from accounts.content_version import ContentVersionedQuerySet


class Platform(models.TextChoices):
    FACEBOOK_PAGE = "facebook_page", "Facebook Page"
    INSTAGRAM = "instagram", "Instagram"


class Role(models.TextChoices):
    """A member's role in one account. The only place that says what each role may do."""

    OWNER = "owner", "Owner"
    EDITOR = "editor", "Editor"
    VIEWER = "viewer", "Viewer"

    @classmethod
    def editing(cls) -> frozenset[Role]:
        """The roles that may change things (for queries: ``role__in=Role.editing()``)."""
        return frozenset({cls.OWNER, cls.EDITOR})

    @property
    def may_edit(self) -> bool:
        """Approve, edit and discard drafts; change the voice, topics and sources. A viewer
        reads everything of the account and changes nothing."""
        return self in type(self).editing()

    @property
    def may_change_settings(self) -> bool:
        """Time zone, posting times, pause/resume, article images, connecting and
        disconnecting channels, inviting and removing members: the owner's alone."""
        return self == type(self).OWNER


class Account(models.Model):
    """A customer business: the tenant every other row hangs off."""

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    industry = models.CharField(max_length=80, blank=True)
    timezone = models.CharField(max_length=64, default="UTC")
    is_paying = models.BooleanField(default=False)
    paused = models.BooleanField(default=False)
    # Onboarding grace is derived from these two facts, never stored as a state.
    created_at = models.DateTimeField(auto_now_add=True)
    onboarding_grace_hours = models.PositiveIntegerField(default=72)
    # Posts per platform per day the customer wants.
    cadence_per_day = models.PositiveSmallIntegerField(default=1)
    # The business's own names and @handles: never factual claims in a draft.
    own_names = models.JSONField(default=list, blank=True)
    # What the business wants posts about, in its own words ("vinyl", "home cinema"): read by
    # relevance next to its industry and past posts. Edited on the Voice page.
    topics = models.JSONField(default=list, blank=True)
    # The article's lead image belongs to its publisher: drafts use it only when the
    # customer says they may (and Instagram, which needs an image, is skipped until then).
    use_article_images = models.BooleanField(default=False)
    # Where the Instagram bio links to, when the customer has told us: only then may a
    # caption say "Link in bio".
    instagram_bio_link = models.URLField(max_length=500, blank=True)
    # The industry line's and own names' vectors for relevance (``posting/composer/meaning.py``),
    # with a digest of those texts: written the first night the composer reads them and again
    # only after they change, so a night does not embed them for every account.
    description_meaning = models.BinaryField(null=True, blank=True, editable=False)
    # The topics relevance borrows from the business's trade while its posts say little and it has
    # named none (``relevance.topic_build``), as the last compose run found them: shown on the
    # Voice page, so the owner sees what we look for on its behalf and can name better ones.
    borrowed_topics = models.JSONField(default=list, blank=True, editable=False)
    # Shown on the customer's pages: writes bump the account's content version (accounts/content_version.py).
    objects = ContentVersionedQuerySet["Account"].as_manager()

    class Meta:
        db_table = "posting_account"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.OWNER)
    created_at = models.DateTimeField(auto_now_add=True)
    # Shown on the customer's pages: writes bump the account's content version (accounts/content_version.py).
    objects = ContentVersionedQuerySet["Membership"].as_manager()

    class Meta:
        db_table = "posting_membership"
        constraints = [models.UniqueConstraint(fields=["user", "account"], name="membership_unique_user_account")]

    def __str__(self) -> str:
        return f"{self.user} @ {self.account} ({self.role})"


class InviteQuerySet(models.QuerySet["Invite"]):
    def pending(self, *, now: datetime) -> InviteQuerySet:
        """Neither claimed nor revoked, and not yet expired: a link that still works."""
        return self.filter(claimed_at__isnull=True, revoked_at__isnull=True, expires_at__gt=now)


class Invite(models.Model):
    """An owner's (or the operator's) invitation of an email address into an account.

    Only the SHA-256 of the link's token is stored, so a copy of the database opens no
    account. The link is spent exactly once: accepting is one conditional UPDATE on
    ``claimed_at IS NULL`` (the OAuth claim's pattern), so two tabs or a replayed link can
    never both join.
    """

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="invites")
    email = models.EmailField()
    role = models.CharField(max_length=16, choices=Role.choices)
    token_hash = models.CharField(max_length=64, unique=True)
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    claimed_at = models.DateTimeField(null=True, blank=True)
    claimed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = InviteQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # Inviting the same address again replaces its open invite (invite_create revokes it).
            models.UniqueConstraint(
                fields=["account", "email"],
                condition=models.Q(claimed_at__isnull=True, revoked_at__isnull=True),
                name="invite_one_open_per_account_email",
            ),
            models.CheckConstraint(
                condition=models.Q(claimed_at__isnull=True) | models.Q(revoked_at__isnull=True),
                name="invite_claimed_or_revoked_not_both",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.email} -> {self.account} ({self.role})"
