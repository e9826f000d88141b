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
