from django.apps import AppConfig


class ReconcileConfig(AppConfig):
    name = "reconcile"
    default_auto_field = "django.db.models.BigAutoField"
