"""Mounted at ``/a/<slug>/sources/`` by the root URLconf."""

from django.urls import path

from research import views

app_name = "research"

urlpatterns = [
    path("", views.sources, name="sources"),
    path("add/", views.source_add, name="source-add"),
    path("opml/", views.opml_import, name="opml-import"),
    path("industry/", views.industry_subscribe, name="industry-subscribe"),
    path("<int:source_id>/remove/", views.source_remove, name="source-remove"),
]
