"""Domain errors of the cron app."""

from __future__ import annotations


class JobResultInvalid(Exception):
    """A job's service returned something other than a dict of counts."""


class JobRunNotEnqueued(Exception):
    """The broker did not accept a new run; the run was not recorded, so a retry can create it."""


class NotificationFailed(Exception):
    """A notification channel could not be reached; ``permanent`` says whether retrying can help."""

    def __init__(self, message: str, *, permanent: bool) -> None:
        super().__init__(message)
        self.permanent = permanent


class NotificationRetry(Exception):
    """A notice failed in a way another attempt can fix; the next one is due in ``retry_in_s``."""

    def __init__(self, message: str, *, retry_in_s: float) -> None:
        super().__init__(message)
        self.retry_in_s = retry_in_s
