from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    """Each member's own email choices per account (the morning digest, same-day notes) and
    the one-click unsubscribe. Imports only accounts: the pages of every stage read it, and
    cron (which sends the emails) reads it too."""

    name = "notifications"
    default_auto_field = "django.db.models.BigAutoField"
