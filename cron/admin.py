"""Job runs and alarms for the operator. Both are written by the system, so read-only here."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from cron.models import Alarm, AlarmNotification, DailyMetric, JobRun, MorningDigest, PublicationNote


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(JobRun)
class JobRunAdmin(ReadOnlyAdmin):
    list_display = ["job", "slot", "trigger", "outcome", "counts", "started_at", "finished_at"]
    list_filter = ["outcome", "job", "trigger"]
    search_fields = ["job"]
    date_hierarchy = "slot"


@admin.register(Alarm)
class AlarmAdmin(ReadOnlyAdmin):
    list_display = ["kind", "account", "subject", "opened_at", "resolved_at", "last_notified_at", "last_notify_error"]
    list_filter = [("resolved_at", admin.EmptyFieldListFilter), "kind"]
    search_fields = ["kind", "subject", "account__name"]
    list_select_related = ["account"]


@admin.register(AlarmNotification)
class AlarmNotificationAdmin(ReadOnlyAdmin):
    list_display = ["alarm", "event", "channel", "created_at", "attempts", "delivered_at", "given_up_at", "last_error"]
    list_filter = ["channel", "event", ("delivered_at", admin.EmptyFieldListFilter)]
    list_select_related = ["alarm"]


@admin.register(MorningDigest)
class MorningDigestAdmin(ReadOnlyAdmin):
    list_display = ["membership", "day", "drafts", "claimed_at", "sent_at"]
    list_select_related = ["membership__user", "membership__account"]


@admin.register(PublicationNote)
class PublicationNoteAdmin(ReadOnlyAdmin):
    list_display = ["publication", "outcome", "created_at", "recipients", "attempts", "delivered_at", "given_up_at"]
    list_filter = ["outcome", ("delivered_at", admin.EmptyFieldListFilter)]


@admin.register(DailyMetric)
class DailyMetricAdmin(ReadOnlyAdmin):
    list_display = ["account", "day", "articles", "drafts", "gated", "approved", "published", "landed"]
    list_filter = ["day"]
    list_select_related = ["account"]


# The admin is the operator's, not Django's: say whose it is.
admin.site.site_header = "Landed operator"
admin.site.site_title = "Landed operator"
admin.site.index_title = "Records (the console is at /ops/)"
