"""Health probes and the operator page, mounted at the site root."""

from django.urls import path

from cron import views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    path("ops/", views.ops, name="ops"),
]
