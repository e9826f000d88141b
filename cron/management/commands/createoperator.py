"""Create (or promote) an operator: staff with access to /ops/ and the admin.

    python manage.py createoperator --username alice --email alice@example.com
    DJANGO_SUPERUSER_PASSWORD=... python manage.py createoperator --username alice --noinput

As ``createsuperuser`` does, ``--noinput`` takes the password from DJANGO_SUPERUSER_PASSWORD.
Without it, the password is asked for twice on a terminal, or read from the first line of standard input
otherwise (``docker compose run -T web python manage.py createoperator alice < pw.txt``), so it
never appears in a shell history or a process list.
"""

from __future__ import annotations

import getpass
import os
import sys
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from cron.operators import operator_create


class Command(BaseCommand):
    help = "Create an operator (staff, superuser) who sees /ops/ and the admin; the password is prompted for."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", nargs="?", metavar="username", help="the username (or use --username)")
        parser.add_argument("--username", help="the operator's username")
        parser.add_argument("--email", default="", help="the operator's email address")
        parser.add_argument(
            "--noinput",
            "--no-input",
            action="store_true",
            help="read the password from DJANGO_SUPERUSER_PASSWORD instead of asking",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        username = options["username"] or options["name"]
        if not username:
            raise CommandError("Give the operator's username: createoperator --username U --email E")
        if options["noinput"]:
            password = os.environ.get("DJANGO_SUPERUSER_PASSWORD", "")
            if not password:
                raise CommandError("--noinput reads the password from DJANGO_SUPERUSER_PASSWORD, which is not set.")
        else:
            password = self._password()
        try:
            user, created = operator_create(username=username, email=options["email"], password=password)
        except ValidationError as exc:
            raise CommandError("Password refused: " + " ".join(exc.messages)) from exc
        verb = "Created" if created else "Updated"
        self.stdout.write(f"{verb} operator {user.username}: log in at /admin/ and see /ops/.")

    def _password(self) -> str:
        if not sys.stdin.isatty():
            password = sys.stdin.readline().rstrip("\n")
            if not password:
                raise CommandError("No password on standard input (the first line is read).")
            return password
        first = getpass.getpass("Password: ")
        if first != getpass.getpass("Password (again): "):
            raise CommandError("The two passwords differ; nothing was changed.")
        return first
