from django.apps import AppConfig


class PostingConfig(AppConfig):
    name = "posting"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The customer's pages are cached per content version (accounts/content_version.py).
        from accounts.content_version import track
        from posting.models import ComposeSkip, Composition, Draft

        track(Draft, account_path="account_id")
        track(Composition, account_path="draft__account_id")
        track(ComposeSkip, account_path="account_id")
