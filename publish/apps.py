from django.apps import AppConfig


class PublishConfig(AppConfig):
    name = "publish"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The customer's pages are cached per content version (accounts/content_version.py).
        from accounts.content_version import track
        from publish.models import Channel, PostingSlot, Publication

        track(Publication, account_path="account_id")
        track(Channel, account_path="account_id")
        track(PostingSlot, account_path="account_id")
