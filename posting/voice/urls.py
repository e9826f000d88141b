"""Mounted at ``/a/<slug>/voice/`` by the root URLconf."""

from django.urls import path

from posting.voice import views

app_name = "voice"

urlpatterns = [
    path("", views.voice, name="voice"),
    path("upload/", views.voice_upload, name="upload"),
    path("import-channel/", views.voice_import_channel, name="import-channel"),
    path("relearn/", views.voice_relearn_view, name="relearn"),
    path("settings/", views.voice_settings, name="settings"),
    path("taught/<int:taught_id>/forget/", views.voice_taught_forget, name="taught-forget"),
]
