"""Connect-flow URLs under ``connect/``: the OAuth callback and the page picker."""

from django.urls import path

from publish import views

app_name = "publish"
urlpatterns = [
    path("callback/", views.connect_callback, name="callback"),
    path("pick/<int:grant_id>/", views.connect_pick, name="pick"),
]
