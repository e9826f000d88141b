from django.apps import AppConfig


class CronConfig(AppConfig):
    name = "cron"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the deployment checks (manage.py check --deploy); ready() is where
        # Django expects check modules to be imported, once the app registry is loaded.
        from cron import checks  # noqa: F401
