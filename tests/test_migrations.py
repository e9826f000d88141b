from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_every_model_change_has_a_committed_migration() -> None:
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out)
    except SystemExit:  # --check exits non-zero when a migration is missing
        pytest.fail(f"models changed without a migration (run manage.py makemigrations):\n{out.getvalue()}")
