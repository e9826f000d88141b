"""Account-scoped channel URLs, included at ``a/<slug:slug>/channels/`` in config/urls.py."""

from django.urls import path

from publish import views

app_name = "channels"
urlpatterns = [
    path("", views.channels_page, name="page"),
    path("connect/", views.connect_start, name="connect"),
]
