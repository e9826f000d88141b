from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from accounts.models import Account, Invite, Membership


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


@admin.register(Invite)
class InviteAdmin(admin.ModelAdmin):
    """Read only: an invite is made and spent through its services (the link exists only in its email)."""

    list_display = ["email", "account", "role", "created_at", "expires_at", "claimed_at", "revoked_at"]
    list_filter = ["role"]
    search_fields = ["email", "account__slug"]
    exclude = ["token_hash"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Invite | None = None) -> bool:
        return False
