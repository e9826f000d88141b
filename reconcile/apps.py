from django.apps import AppConfig


class ReconcileConfig(AppConfig):
    name = "reconcile"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # publish never imports reconcile: it announces publications awaiting a read, and
        # reconcile enqueues the read here (in ready(): the tasks need the app registry).
        from publish.signals import publication_awaiting_read
        from reconcile.tasks import publication_read_enqueue

        publication_awaiting_read.connect(publication_read_enqueue, dispatch_uid="reconcile.publication_read_enqueue")

        # The History page shows engagement and is cached per content version (accounts/content_version.py).
        from accounts.content_version import track
        from reconcile.models import EngagementSnapshot

        track(EngagementSnapshot, account_path="publication__account_id")
