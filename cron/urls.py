"""One route per registered job, generated from the registry so that a new job gets its
route, and the resolver-walking auth test covers it, the day it is added."""

from django.urls import path

from cron import views
from cron.jobs import JOBS

app_name = "cron"
urlpatterns = [path(f"{job.name}/", views.job_trigger, {"job_name": job.name}, name=job.name) for job in JOBS]
# The same routes without the trailing slash: otherwise APPEND_SLASH answers a POST with a
# 301 before any authentication, and `curl -f` in a hand-written crontab counts that as
# success while nothing ran. These go through the same view, so they fail closed the same way.
urlpatterns += [path(job.name, views.job_trigger, {"job_name": job.name}) for job in JOBS]
