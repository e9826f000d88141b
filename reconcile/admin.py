from django.contrib import admin

from reconcile.models import EngagementSnapshot


@admin.register(EngagementSnapshot)
class EngagementSnapshotAdmin(admin.ModelAdmin):
    list_display = ["publication", "fetched_at", "reactions", "comments"]
    list_select_related = ["publication"]
    readonly_fields = ["publication", "fetched_at", "reactions", "comments"]
    date_hierarchy = "fetched_at"
