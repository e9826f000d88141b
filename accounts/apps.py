from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Tenancy: the customer businesses, their members and roles, and who may see or change what."""

    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The customer's pages are cached per content version (accounts/content_version.py).
        from accounts import principal
        from accounts.content_version import track
        from accounts.models import Account, Membership

        # An account's or a membership's row is also in its members' cached memberships
        # (accounts/principal.py): their member versions change with it.
        track(Account, account_path="pk", user_path="memberships__user_id")
        track(Membership, account_path="account_id", user_path="user_id")
        principal.connect()
