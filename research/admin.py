"""Admin: source health at a glance, articles with their extraction outcome, research runs."""

from __future__ import annotations

from django.contrib import admin

from research.models import Article, Delivery, ResearchRun, Source, Subscription


class SubscriptionInline(admin.TabularInline):
    model = Subscription
    extra = 0
    raw_id_fields = ["account"]
    fields = ["account", "title", "created_at"]
    readonly_fields = ["created_at"]


@admin.register(Source)
class SourceAdmin(admin.ModelAdmin):
    list_display = [
        "__str__",
        "industry",
        "last_success_at",
        "consecutive_failures",
        "last_error_kind",
        "last_status",
        "items_last_run",
        "new_articles_last_run",
    ]
    list_filter = ["last_error_kind", "industry"]
    search_fields = ["url", "title"]
    readonly_fields = [
        "etag",
        "last_modified",
        "last_fetched_at",
        "last_success_at",
        "last_status",
        "consecutive_failures",
        "last_error_kind",
        "last_error_detail",
        "items_last_run",
        "new_articles_last_run",
        "created_at",
    ]
    inlines = [SubscriptionInline]


@admin.register(Subscription)
class SubscriptionAdmin(admin.ModelAdmin):
    list_display = ["account", "title", "source", "created_at"]
    list_select_related = ["account", "source"]
    raw_id_fields = ["account", "source"]
    search_fields = ["account__slug", "source__url", "title"]


class DeliveryInline(admin.TabularInline):
    model = Delivery
    extra = 0
    raw_id_fields = ["source"]
    # A tuple, so that readonly_fields (typed narrower than fields in the stubs) can be the same one.
    fields = ("source", "title", "link", "author", "published_at", "entry_id", "created_at")
    readonly_fields = fields


@admin.register(Article)
class ArticleAdmin(admin.ModelAdmin):
    list_display = ["__str__", "source", "extraction_status", "published_at", "created_at"]
    list_filter = ["extraction_status"]
    list_select_related = ["source"]
    search_fields = ["title", "canonical_url"]
    raw_id_fields = ["source"]
    readonly_fields = ["fingerprint", "fetched_at", "created_at"]
    inlines = [DeliveryInline]


@admin.register(ResearchRun)
class ResearchRunAdmin(admin.ModelAdmin):
    list_display = [
        "account",
        "started_at",
        "finished_at",
        "feeds_subscribed",
        "feeds_fetched",
        "feeds_not_modified",
        "feeds_failed",
        "new_articles",
        "usable_articles",
        "is_starved",
    ]
    list_select_related = ["account"]
    list_filter = ["finished_at"]
    search_fields = ["account__slug"]
    readonly_fields = [f.name for f in ResearchRun._meta.fields]

    @admin.display(boolean=True, description="starved")
    def is_starved(self, run: ResearchRun) -> bool:
        return run.starved
