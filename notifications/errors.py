"""Errors the notification pages turn into a clear message (nothing saved)."""


class NotificationSettingsInvalid(ValueError):
    """The submitted choices cannot be saved; the message says why, in the customer's words."""


class UnsubscribeLinkInvalid(ValueError):
    """An unsubscribe link that was altered, forged, or names a membership that is gone."""
