"""One route per registered job, generated from the registry so that a new job gets its
route, and the resolver-walking auth test covers it, the day it is added."""

from django.urls import path

from cron import views
from cron.jobs import JOBS

app_name = "cron"
urlpatterns = [path(f"{job.name}/", views.job_trigger, {"job_name": job.name}, name=job.name) for job in JOBS]
