from django.apps import AppConfig


class CronConfig(AppConfig):
    name = "cron"
    default_auto_field = "django.db.models.BigAutoField"
