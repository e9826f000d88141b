from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Tenancy: the customer businesses, their members and roles, and who may see or change what."""

    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"
