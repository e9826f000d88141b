"""Health probes and the operator page, mounted at the site root."""

from django.urls import path

from cron import twofactor, views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    path("ops/", views.ops, name="ops"),
    path("2fa/setup/", twofactor.setup, name="2fa-setup"),
    path("2fa/verify/", twofactor.verify, name="2fa-verify"),
    path("ops/accounts/new/", views.ops_account_create, name="ops-account-create"),
    path("ops/accounts/<slug:slug>/invite-owner/", views.ops_owner_invite, name="ops-owner-invite"),
    path("ops/accounts/<slug:slug>/run/<str:stage>/", views.ops_stage_run, name="ops-stage-run"),
    path("ops/accounts/<slug:slug>/pause/", views.ops_account_pause, {"paused": True}, name="ops-account-pause"),
    path("ops/accounts/<slug:slug>/resume/", views.ops_account_pause, {"paused": False}, name="ops-account-resume"),
    path("ops/accounts/<slug:slug>/view/<str:page>/", views.ops_support_view, name="ops-support-view"),
    path("ops/alarms/<int:alarm_id>/resolve/", views.ops_alarm_resolve, name="ops-alarm-resolve"),
    path("ops/publications/<int:publication_id>/retry/", views.ops_publication_retry, name="ops-publication-retry"),
]
