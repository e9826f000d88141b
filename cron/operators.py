"""Operators: the people who read /ops/ and the admin and receive alarms (staff, superuser)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.db import transaction


@transaction.atomic
def operator_create(*, username: str, email: str, password: str) -> tuple[User, bool]:
    """Create the operator, or make an existing user one with this password. Returns (user, created).

    The password is validated first (ValidationError), so a weak one changes nothing.
    """
    user = User.objects.filter(username=username).first()
    validate_password(password, user=user)
    created = user is None
    if user is None:
        user = User(username=username)
    user.email = email or user.email
    user.is_staff = True
    user.is_superuser = True
    user.is_active = True
    user.set_password(password)
    user.save()
    return user, created
