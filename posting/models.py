"""Voice, drafts and their revisions, the language model's usage, and what the composer did.

The tenant (Account) and the platforms are ``accounts``'; this app hangs its rows off them."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import SHA256

from accounts.content_version import ContentVersionedQuerySet
from accounts.models import Account, Platform

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.models.sql.compiler import SQLCompiler, _AsSqlType


class TextSHA256(SHA256):
    """Hex SHA-256 of a text column's UTF-8 bytes, computed by the database itself.

    Django's SHA256 needs pgcrypto on PostgreSQL; the built-in ``sha256(bytea)`` (PostgreSQL
    11+) gives the same digest without an extension. SQLite (the embedded default) uses the
    deterministic SHA256 function Django registers on every connection.
    """

    def as_postgresql(self, compiler: SQLCompiler, connection: BaseDatabaseWrapper, **extra_context: Any) -> _AsSqlType:
        return self.as_sql(
            compiler, connection, template="ENCODE(SHA256(CONVERT_TO(%(expressions)s, 'UTF8')), 'hex')", **extra_context
        )


def text_sha256_of(text: str) -> str:
    """The digest TextSHA256 computes in the database, computed here."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class VoiceProfile(models.Model):
    """How the business writes on one platform, learned once from its past posts."""

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="voice_profiles")
    platform = models.CharField(max_length=32, choices=Platform.choices)
    stats = models.JSONField(default=dict, blank=True)
    style_guide = models.TextField(blank=True)
    exemplars = models.JSONField(default=list, blank=True)
    source_post_count = models.PositiveIntegerField(default=0)
    learned_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["account", "platform"], name="voice_unique_account_platform")]

    def __str__(self) -> str:
        return f"voice {self.account} / {self.platform}"


class PastPost(models.Model):
    """A post the business published before Landed, imported to learn its voice."""

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="past_posts")
    platform = models.CharField(max_length=32, choices=Platform.choices)
    text = models.TextField()
    posted_at = models.DateTimeField(null=True, blank=True)
    origin = models.CharField(max_length=32, default="upload")
    imported_at = models.DateTimeField(auto_now_add=True)
    # The post's vector for relevance (``posting/composer/meaning.py``), written the first time
    # the composer reads the post, so each post is embedded once, not every night.
    meaning = models.BinaryField(null=True, blank=True, editable=False)

    def __str__(self) -> str:
        return f"past post {self.pk} ({self.platform})"


class DraftQuerySet(ContentVersionedQuerySet["Draft"]):
    """Where a draft stands, written once: the pages, the digest, the watchdog, approval's
    conditional update and ``manage.py pipeline`` all ask these (``Draft.is_*`` for a row
    already loaded says the same)."""

    def awaiting_approval(self) -> DraftQuerySet:
        """A person may approve these now: the gate judged the text and passed it."""
        return self.filter(status=Draft.Status.GATED, gate_verdict=Draft.Verdict.PASSED)

    def held_back(self) -> DraftQuerySet:
        """The gate judged these and did not pass them; the customer has not discarded them."""
        return self.filter(status=Draft.Status.GATED).exclude(gate_verdict=Draft.Verdict.PASSED)


class Draft(models.Model):
    """One platform-aware post drafted from one article for one account."""

    class Status(models.TextChoices):
        DRAFTED = "drafted", "Drafted (awaiting the factual gate)"
        GATED = "gated", "Gated"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected by the customer"

    class Verdict(models.TextChoices):
        # "Rejected" is the customer's own action; what the gate does is hold a draft back.
        # The stored values stay as they were: only what people read changed.
        PASSED = "passed", "Fact-checked"
        REJECTED = "rejected", "Held back"
        NO_SUBSTANCE = "no_substance", "Held back: nothing to check"

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="drafts")
    platform = models.CharField(max_length=32, choices=Platform.choices)
    article = models.ForeignKey("research.Article", on_delete=models.PROTECT, related_name="drafts")
    text = models.TextField()
    link_url = models.URLField(max_length=2000, blank=True)
    image_url = models.URLField(max_length=2000, blank=True)
    composer = models.CharField(max_length=32, default="extractive")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFTED)
    gate_verdict = models.CharField(max_length=16, choices=Verdict.choices, blank=True)
    # One entry per sentence of the draft, in order: [{"text", "class" ("claim" or the kind
    # of non-claim: "hashtags", "call_to_action", ...), "supported", "evidence":
    # [{"sentence": n, "text": ...}], "reason"}]. Rows gated before sentences had a class
    # carry no "class": they are claims.
    gate_claims = models.JSONField(default=list, blank=True)
    gate_reason = models.TextField(blank=True)
    # The SHA-256 of the exact text the verdict judged: "fact-checked" means this text.
    gate_text_sha256 = models.CharField(max_length=64, blank=True)
    gated_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    # The customer's optional "why not" when rejecting: shown in History and given to the
    # composer as a "don't" for the account's next drafts.
    rejection_reason = models.CharField(max_length=500, blank=True)
    edited_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = DraftQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # Composing is safe to run twice: one draft per article, platform and account.
            models.UniqueConstraint(fields=["account", "platform", "article"], name="draft_unique_per_article"),
            models.CheckConstraint(
                condition=~Q(status="approved") | Q(gate_verdict="passed"),
                name="draft_approved_only_if_passed",
            ),
            # A verdict belongs to the text it judged. Any write that changes the text
            # without clearing the verdict fails here, whatever path it takes; with the
            # constraint above, an approved draft's text can never differ from what passed.
            models.CheckConstraint(
                condition=Q(gate_verdict="") | Q(gate_text_sha256=TextSHA256("text")),
                name="draft_verdict_bound_to_text",
            ),
        ]
        indexes = [models.Index(fields=["account", "status"])]

    def __str__(self) -> str:
        return f"draft {self.pk} {self.platform} ({self.status})"

    @property
    def is_approved(self) -> bool:
        """A person approved this text (publishing asks this before it schedules a post)."""
        return self.status == self.Status.APPROVED

    # The same rules as DraftQuerySet's, for a row in hand (a test pins that they agree).
    @property
    def is_awaiting_approval(self) -> bool:
        return self.status == self.Status.GATED and self.gate_verdict == self.Verdict.PASSED

    @property
    def is_held_back(self) -> bool:
        return self.status == self.Status.GATED and self.gate_verdict != self.Verdict.PASSED


class DraftRevision(models.Model):
    """One write of a draft's text: what it became, what it replaced, who wrote it and when.

    The first revision of a draft is the composer's (no previous text); every later one
    sent the draft back to the factual gate.
    """

    class Source(models.TextChoices):
        COMPOSER = "composer", "Composer"
        CUSTOMER = "customer", "Customer"
        STAFF = "staff", "Staff (admin)"
        LLM = "llm", "Language model rewrite"

    draft = models.ForeignKey(Draft, on_delete=models.CASCADE, related_name="revisions")
    text = models.TextField()
    # Blank for the first revision: there was no text before it.
    previous_text_sha256 = models.CharField(max_length=64, blank=True)
    # Null when the system wrote the text (the composer, a model rewrite).
    editor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    source = models.CharField(max_length=16, choices=Source.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["draft", "created_at"])]

    def __str__(self) -> str:
        return f"revision {self.pk} of draft {self.draft_id} ({self.source})"


class LLMUsage(models.Model):
    """One call to the language model: what it cost, which key made it, how it ended.

    Lesson 6 (docs/ARCHITECTURE.md): the key in use, its organisation and its rate-limit responses
    must be visible to the operator. The key itself is never stored, only a fingerprint.
    """

    class Status(models.TextChoices):
        OK = "ok", "OK"
        RATE_LIMITED = "rate_limited", "Rate limited (429 after retries)"
        SERVER_ERROR = "server_error", "Server error (5xx after retries)"
        TIMEOUT = "timeout", "Timed out"
        CONNECTION = "connection", "Could not connect"
        MALFORMED = "malformed", "Malformed output"
        REFUSAL = "refusal", "Refused"
        API_ERROR = "api_error", "Other API error"

    account = models.ForeignKey(Account, null=True, blank=True, on_delete=models.SET_NULL, related_name="llm_usage")
    model = models.CharField(max_length=100)
    purpose = models.CharField(max_length=40)
    status = models.CharField(max_length=20, choices=Status.choices)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    # Null when the model's price is unknown: "unknown" must not read as "free".
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    key_fingerprint = models.CharField(max_length=32, blank=True)
    organization = models.CharField(max_length=200, blank=True)
    # 429 responses seen during this call, retried ones included: the storm detector reads these.
    throttled_responses = models.PositiveSmallIntegerField(default=0)
    retries = models.PositiveSmallIntegerField(default=0)
    detail = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["account", "created_at"])]

    def __str__(self) -> str:
        return f"llm {self.purpose} {self.model} ({self.status})"


class Composition(models.Model):
    """How a draft was composed: which sentences or claims it rests on, and any fallback."""

    draft = models.OneToOneField(Draft, on_delete=models.CASCADE, related_name="composition")
    composer = models.CharField(max_length=32)
    # Extractive: [{"sentence": n, "text": ...}]. LLM: [{"text": claim, "sentences": [n, ...]}].
    sources = models.JSONField(default=list, blank=True)
    # Why the LLM was not used for this draft although one is configured (blank otherwise).
    fallback_reason = models.CharField(max_length=500, blank=True)
    llm_usage = models.ForeignKey(LLMUsage, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # Why this article: {"score": float, "relevant": bool, "matched": [words of the business]}.
    relevance = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    # Shown on the drafts page: writes bump the account's content version (accounts/content_version.py).
    objects = ContentVersionedQuerySet["Composition"].as_manager()

    def __str__(self) -> str:
        return f"composition of draft {self.draft_id} ({self.composer})"


class ComposeSkip(models.Model):
    """An article the composer deliberately did not draft for a platform, and why."""

    class Reason(models.TextChoices):
        NO_IMAGE = "no_image", "No lead image (Instagram needs one)"
        NO_SENTENCES = "no_sentences", "No sentence in the article is usable as a post"
        OFF_TOPIC = "off_topic", "Not about what the business is about"
        SAME_STORY = "same_story", "The same story as an article already drafted"
        IMAGE_NOT_ALLOWED = "image_not_allowed", "Article images are off in the settings (Instagram needs one)"

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="compose_skips")
    platform = models.CharField(max_length=32, choices=Platform.choices)
    article = models.ForeignKey("research.Article", on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(max_length=20, choices=Reason.choices)
    # What the composer knew when it decided ("score 0.03, matched: ..." or the story it repeats).
    detail = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    # Shown on the drafts page: writes bump the account's content version (accounts/content_version.py).
    objects = ContentVersionedQuerySet["ComposeSkip"].as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["account", "platform", "article"], name="compose_skip_unique_per_article")
        ]

    def __str__(self) -> str:
        return f"skip {self.platform} article {self.article_id}: {self.reason}"


class TaughtArticle(models.Model):
    """An article the customer had drafted although relevance skipped it ("Draft it anyway").

    It tells us what news matters to the business beyond what its posts say (a café's late
    buses, a garage's road closures): its headline and lead are read for closeness with the
    business's posts when the next nights' articles are ranked, the most recent ``TAUGHT_READ``
    of them (``composer.services.account_meaning``). The text is kept here, so what was taught
    does not change if the article is fetched again. The customer can forget one on the Voice page.
    """

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="taught_articles")
    article = models.ForeignKey("research.Article", on_delete=models.SET_NULL, null=True, related_name="+")
    title = models.CharField(max_length=500)
    # The headline and lead as relevance reads them (relevance.taught_text).
    text = models.TextField()
    taught_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    # Its vector for relevance, written the first night it is read (as ``PastPost.meaning``).
    meaning = models.BinaryField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [models.UniqueConstraint(fields=["account", "article"], name="taught_article_unique")]

    def __str__(self) -> str:
        return f"taught article {self.article_id} for account {self.account_id}"
