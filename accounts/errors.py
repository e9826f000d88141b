"""Domain errors of the accounts app; views turn them into pages and messages a person can act on."""


class TeamChangeRefused(Exception):
    """An invite, revocation or removal that cannot be done; the message says why. Nothing changed."""


class InviteUnusable(Exception):
    """The invitation link is unknown, already used, revoked or expired. Nothing changed.

    ``reason`` is one of ``unknown``, ``used``, ``revoked``, ``expired``: the page says which,
    since only the holder of the link (who already knows it was sent) can see it.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class InviteNotSent(Exception):
    """The invitation email could not be sent; the invite was withdrawn so nothing dangles."""
