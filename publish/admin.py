"""Operator views of channels and publications. The token ciphertext is never shown."""

from django.contrib import admin
from django.http import HttpRequest

from publish.models import Channel, ChannelDisconnect, Publication, PublishAttempt


@admin.register(Channel)
class ChannelAdmin(admin.ModelAdmin):
    list_display = ["__str__", "account", "platform", "status", "token_expires_at", "connected_at"]
    list_filter = ["platform", "status"]
    search_fields = ["name", "external_id", "account__name"]
    # token_ciphertext is deliberately absent: excluded from the form and never displayed.
    exclude = ["token_ciphertext"]
    readonly_fields = [
        "account",
        "platform",
        "external_id",
        "token_expires_at",
        "token_checked_at",
        "throttled_until",
        "connected_at",
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Channels are bound by the connect flow, which is what stores an encrypted token.
        return False


@admin.register(ChannelDisconnect)
class ChannelDisconnectAdmin(admin.ModelAdmin):
    """The audit trail of disconnects: read only, nobody edits history."""

    list_display = ["channel", "account", "username", "created_at", "revoked", "withdrawn", "revoke_detail"]
    list_filter = ["revoked"]
    list_select_related = ["channel", "account"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class PublishAttemptInline(admin.TabularInline):
    model = PublishAttempt
    extra = 0
    can_delete = False
    # A tuple, so that readonly_fields (typed narrower than fields in the stubs) can be the same one.
    fields = (
        "started_at",
        "request_kind",
        "task_id",
        "http_status",
        "error_code",
        "error_subcode",
        "outcome",
        "request_summary",
        "response_summary",
    )
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Publication | None = None) -> bool:
        return False


@admin.register(Publication)
class PublicationAdmin(admin.ModelAdmin):
    list_display = ["pk", "account", "channel", "status", "scheduled_for", "landed_at", "failure_kind"]
    list_filter = ["status", "channel__platform", "failure_kind"]
    search_fields = ["message", "platform_post_id", "account__name"]
    list_select_related = ["account", "channel"]
    inlines = [PublishAttemptInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Publications are made by approving a draft (publish.services.publication_schedule).
        return False

    # Publications move only through services (conditional updates); the admin reads.
    readonly_fields = [
        "account",
        "draft",
        "channel",
        "status",
        "message",
        "link_url",
        "image_url",
        "scheduled_for",
        "container_id",
        "platform_post_id",
        "permalink",
        "publishing_started_at",
        "published_at",
        "landed_at",
        "last_read_at",
        "read_count",
        "failure_kind",
        "failure_reason",
    ]
