"""The Celery app. Tasks are thin: they take ids, load rows and call one service."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("landed")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
