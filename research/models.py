"""Sources, articles and research runs."""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class ErrorKind(models.TextChoices):
    """Why a fetch produced nothing usable; recorded per source so silence is visible."""

    DNS = "dns", "DNS lookup failed"
    CONNECT = "connect", "Could not connect"
    TIMEOUT = "timeout", "Timed out"
    HTTP_4XX = "http_4xx", "HTTP 4xx"
    HTTP_5XX = "http_5xx", "HTTP 5xx"
    BLOCKED = "blocked", "Blocked (block page, captcha, 403/429)"
    PARSE = "parse", "Could not parse"
    TOO_LARGE = "too_large", "Response too large"
    REFUSED_ADDRESS = "refused_address", "Refused address (private, loopback, ...)"
    BAD_URL = "bad_url", "Not an http(s) URL"
    CONTENT_TYPE = "content_type", "Unexpected content type"
    TOO_MANY_REDIRECTS = "too_many_redirects", "Too many redirects"
    EMPTY = "empty", "Feed has no entries"
    INTERNAL = "internal", "Unexpected error (see logs)"


class Source(models.Model):
    """One feed URL, fetched once per run however many accounts subscribe to it."""

    url = models.URLField(max_length=2000, unique=True)
    # The feed's own channel title, as last read; a subscriber's name for the feed is its
    # Subscription's title, shown to that subscriber only.
    title = models.CharField(max_length=300, blank=True)
    # Blank for an account's custom feed; an industry name for a preset source.
    industry = models.CharField(max_length=80, blank=True, db_index=True)
    etag = models.CharField(max_length=500, blank=True)
    last_modified = models.CharField(max_length=100, blank=True)
    last_fetched_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_status = models.PositiveSmallIntegerField(null=True, blank=True)
    consecutive_failures = models.PositiveIntegerField(default=0)
    last_error_kind = models.CharField(max_length=32, choices=ErrorKind.choices, blank=True)
    last_error_detail = models.CharField(max_length=500, blank=True)
    items_last_run = models.PositiveIntegerField(default=0)
    new_articles_last_run = models.PositiveIntegerField(default=0)
    # Seconds the last night's task for this feed spent (feed and its pages): what reading
    # it costs each subscriber's nightly fetch budget.
    fetch_seconds_last_run = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["url"]

    def __str__(self) -> str:
        return self.title or self.url


class Subscription(models.Model):
    account = models.ForeignKey("accounts.Account", on_delete=models.CASCADE, related_name="subscriptions")
    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="subscriptions")
    # What this subscriber calls the feed (optional): never shown to another subscriber.
    title = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["account", "source"], name="subscription_unique")]

    def __str__(self) -> str:
        return f"{self.account_id} -> {self.source_id}"


class Article(models.Model):
    """A story page, stored once however many feeds and accounts lead to it.

    Everything here comes from fetching the page itself; what a feed says about the story
    (its title, summary, author, link and date) is that feed's ``Delivery``, because any
    customer can add a feed that lists any URL with any words next to it.
    """

    class Extraction(models.TextChoices):
        PENDING = "pending", "Pending"
        OK = "ok", "OK"
        INSUFFICIENT = "insufficient", "Too little text"
        BLOCKED = "blocked", "Blocked"
        FAILED = "failed", "Failed"

    # The feed that first led us to the page: provenance for the operator, nothing more.
    source = models.ForeignKey(Source, null=True, blank=True, on_delete=models.SET_NULL, related_name="articles")
    # Every feed that delivered this page; an account reaches it only through its own.
    sources = models.ManyToManyField(Source, blank=True, through="Delivery", related_name="listed_articles")
    canonical_url = models.URLField(max_length=2000, unique=True)
    # The page's own title, author and date (extraction), never a feed's.
    title = models.CharField(max_length=1000, blank=True)
    author = models.CharField(max_length=300, blank=True)
    published_at = models.DateTimeField(null=True, blank=True)
    text = models.TextField(blank=True)
    lead_image_url = models.URLField(max_length=2000, blank=True)
    fingerprint = models.BigIntegerField(null=True, blank=True, db_index=True)
    extraction_status = models.CharField(max_length=16, choices=Extraction.choices, default=Extraction.PENDING)
    extraction_error = models.CharField(max_length=500, blank=True)
    fetched_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The sentence model's vectors of the headline and paragraphs, written by the composer the
    # first time any account ranks the article (``posting/composer/meaning.py``: a digest of the
    # text they came from, then float16 rows), so an article is embedded once, not per account.
    meaning = models.BinaryField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["extraction_status", "created_at"])]

    def __str__(self) -> str:
        return self.title or self.canonical_url

    @property
    def is_usable(self) -> bool:
        # The rule of ``article_usable_q``, for a row in hand.
        return self.extraction_status == self.Extraction.OK


class Delivery(models.Model):
    """One feed listing one story page, with what that feed said about it.

    Only the feed's own subscribers see these words; the shared Article never takes them.
    """

    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="deliveries")
    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="deliveries")
    # An entry id is only unique within its feed, so it lives here, not on the article.
    entry_id = models.CharField(max_length=1000, blank=True)
    title = models.CharField(max_length=1000, blank=True)
    summary = models.TextField(blank=True)
    author = models.CharField(max_length=300, blank=True)
    # The link as the feed gave it (before canonicalising) and the date it claimed.
    link = models.URLField(max_length=2000, blank=True)
    published_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["source", "article"], name="delivery_unique")]
        indexes = [models.Index(fields=["source", "entry_id"])]
        verbose_name_plural = "deliveries"

    def __str__(self) -> str:
        return f"{self.source_id} -> {self.article_id}"


def article_usable_q(through: str = "") -> Q:
    """A usable article, written once: its text extracted. ``through`` reaches the article
    from another model (``"deliveries__article__"``). Near-duplicates are folded per account
    by ``research.selectors.articles_usable_for_account``, never across customers, so they
    are not part of this row-level rule.
    """
    return Q(**{f"{through}extraction_status": Article.Extraction.OK})


class ResearchRun(models.Model):
    """What one research pass produced for one account: the counts a watchdog reads."""

    account = models.ForeignKey("accounts.Account", on_delete=models.CASCADE, related_name="research_runs")
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    feeds_fetched = models.PositiveIntegerField(default=0)
    feeds_not_modified = models.PositiveIntegerField(default=0)
    feeds_failed = models.PositiveIntegerField(default=0)
    new_articles = models.PositiveIntegerField(default=0)
    usable_articles = models.PositiveIntegerField(default=0)
    feeds_subscribed = models.PositiveIntegerField(default=0)
    # Feeds not read this night because the account's fetch budget was spent on its others.
    skipped_source_ids = models.JSONField(default=list, blank=True)
    # {"timeout": 2, "blocked": 1}: why feeds failed this run, for the operator at a glance.
    error_kinds = models.JSONField(default=dict, blank=True)
    # When the night's deadline found feeds of this run never read and queued them again
    # (a worker killed holding their tasks); once per run, then the hard deadline closes it.
    feeds_redispatched_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"research run {self.pk} for {self.account_id}"

    @property
    def starved(self) -> bool:
        return self.finished_at is not None and self.usable_articles == 0
