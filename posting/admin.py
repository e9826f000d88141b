from django.contrib import admin

from posting.models import Account, ComposeSkip, Draft, LLMUsage, Membership, PastPost, VoiceProfile


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ["user"]


@admin.register(Account)
class AccountAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "industry", "is_paying", "paused", "cadence_per_day", "created_at"]
    list_filter = ["is_paying", "paused", "industry"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [MembershipInline]


@admin.register(Draft)
class DraftAdmin(admin.ModelAdmin):
    list_display = ["pk", "account", "platform", "status", "gate_verdict", "composer", "created_at"]
    list_filter = ["status", "gate_verdict", "platform", "composer"]
    search_fields = ["text", "account__name"]
    raw_id_fields = ["article", "decided_by"]


@admin.register(VoiceProfile)
class VoiceProfileAdmin(admin.ModelAdmin):
    list_display = ["account", "platform", "source_post_count", "learned_at"]


@admin.register(PastPost)
class PastPostAdmin(admin.ModelAdmin):
    list_display = ["account", "platform", "posted_at", "origin"]
    list_filter = ["platform", "origin"]


@admin.register(LLMUsage)
class LLMUsageAdmin(admin.ModelAdmin):
    """Read-only: which key (fingerprint, organisation) is in use, what it costs, how often it is throttled."""

    list_display = [
        "created_at",
        "account",
        "purpose",
        "model",
        "status",
        "prompt_tokens",
        "completion_tokens",
        "cost_usd",
        "throttled_responses",
        "key_fingerprint",
        "organization",
    ]
    list_filter = ["status", "purpose", "model", "key_fingerprint", "organization"]
    date_hierarchy = "created_at"

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ComposeSkip)
class ComposeSkipAdmin(admin.ModelAdmin):
    list_display = ["created_at", "account", "platform", "article", "reason"]
    list_filter = ["reason", "platform"]
    raw_id_fields = ["article"]
