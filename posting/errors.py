"""Domain errors of the posting app; views turn them into messages a customer can act on."""


class DraftStateError(Exception):
    """The draft is not in a state that allows this action (someone else got there first?)."""


class DraftInvalid(Exception):
    """An edit the platform would refuse (empty, too long, too many hashtags...)."""


class AccountSettingsInvalid(Exception):
    """A setting the owner entered cannot be used; nothing was saved."""
