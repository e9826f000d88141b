"""The Celery app. Tasks are thin: they take ids, load rows and call one service."""

import os
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("landed")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
@task_postrun.connect
def _db_connections_tidy(task: Any = None, **_: Any) -> None:
    """Between tasks, close the database connections a request would close: past
    DB_CONN_MAX_AGE, or broken (a restarted server), so the next task's health check
    reconnects. Celery's own Django fixup would close every connection before and after
    each task (CELERY_DB_REUSE_MAX in config/settings.py turns that off). Eager tasks run
    inside the caller's request and transaction: left alone."""
    if task is not None and getattr(task.request, "is_eager", False):
        return
    # Imported here, not at the top: config/__init__.py imports this module, so every import
    # of config.settings would otherwise pull Django's database layer in before settings exist.
    from django.db import close_old_connections

    close_old_connections()
