import pytest

from accounts.models import Account


@pytest.mark.django_db
def test_the_database_is_postgresql_in_tests(account: Account) -> None:
    from django.db import connection

    assert connection.vendor == "postgresql"
    assert Account.objects.filter(slug="harbour-bikes").exists()
