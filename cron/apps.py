from django.apps import AppConfig


class CronConfig(AppConfig):
    name = "cron"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the deployment checks (manage.py check --deploy).
        from cron import checks  # noqa: F401
