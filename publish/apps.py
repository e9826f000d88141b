from django.apps import AppConfig


class PublishConfig(AppConfig):
    name = "publish"
    default_auto_field = "django.db.models.BigAutoField"
