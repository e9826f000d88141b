from django.contrib import admin

from accounts.models import Account, Membership


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
