"""The in-process scheduler of the embedded default: beat's job, without a broker or a second process.

``make run`` has no Redis, so Celery beat has nowhere to send its ticks. This thread does
what beat does with the same registry (cron/jobs.py): every tick it asks for the current
slot's run of every job, through the same ``job_run_request`` the cron routes and beat
call, so each job runs once per slot and records its JobRun with trigger ``scheduler``.
Tasks are eager there, so the run happens in this thread right after its row is committed.

``speedup`` makes the scheduler's clock run faster than the wall clock (a test, or a demo
of "the night" in a minute): slot boundaries pass ``speedup`` times sooner. The services
themselves still read the real time.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from django.db import close_old_connections, connections
from django.utils import timezone

from cron.jobs import JOBS

logger = logging.getLogger(__name__)

TRIGGER = "scheduler"


class InProcessScheduler(threading.Thread):
    def __init__(self, *, tick_s: float = 20.0, speedup: float = 1.0, now: Callable[[], datetime] = timezone.now):
        super().__init__(name="landed-scheduler", daemon=True)
        if tick_s <= 0 or speedup < 1:
            raise ValueError("the scheduler needs a positive tick and a speedup of at least 1")
        self.tick_s = tick_s
        self.speedup = speedup
        self._now = now
        self._started_at = now()
        self._stop = threading.Event()

    def clock(self) -> datetime:
        """The scheduler's time: the wall clock, or a faster one from the moment it was created."""
        elapsed = self._now() - self._started_at
        return self._started_at + timedelta(seconds=elapsed.total_seconds() * self.speedup)

    def tick(self) -> int:
        """Ask for every job's run in the current slot; returns how many runs were new."""
        from cron.errors import JobRunNotEnqueued
        from cron.services import job_run_request

        created = 0
        at = self.clock()
        done = self._completed_in_slot(at)
        for job in JOBS:
            if self._stop.is_set():
                break
            if job.name in done:
                continue
            try:
                _, new = job_run_request(job_name=job.name, at=at, trigger=TRIGGER)
                created += int(new)
            except JobRunNotEnqueued:
                logger.warning("scheduler: %s not enqueued; the next tick asks again", job.name)
            except Exception:
                # One job's failure (already recorded on its run) must not stop the others.
                logger.exception("scheduler: requesting %s failed", job.name)
        return created

    def _completed_in_slot(self, at: datetime) -> set[str]:
        """The jobs with a run that completed (any trigger) since the start of their current slot."""
        from django.db.models import Max

        from cron.models import JobRun

        earliest = min((job.slot(at) for job in JOBS), default=at)
        last_ok = (
            JobRun.objects.filter(outcome=JobRun.Outcome.OK, finished_at__gte=earliest)
            .order_by()
            .values("job")
            .annotate(last=Max("finished_at"))
            .values_list("job", "last")
        )
        slots = {job.name: job.slot(at) for job in JOBS}
        return {name for name, last in last_ok if name in slots and last >= slots[name]}

    def run(self) -> None:
        try:
            while not self._stop.is_set():
                close_old_connections()
                self.tick()
                self._stop.wait(self.tick_s)
        finally:
            connections.close_all()

    def stop(self, timeout_s: float = 30.0) -> None:
        self._stop.set()
        deadline = time.monotonic() + timeout_s
        while self.is_alive() and time.monotonic() < deadline:
            self.join(timeout=0.5)
