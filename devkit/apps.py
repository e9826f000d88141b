from django.apps import AppConfig


class DevkitConfig(AppConfig):
    """The embedded default's tools (``make run``); installed only when DEBUG is on."""

    name = "devkit"
