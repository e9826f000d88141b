import pytest
from django.test import Client, override_settings


@pytest.mark.django_db
@override_settings(DEBUG=False)
def test_an_unknown_page_gets_a_friendly_404(member_client) -> None:
    response = member_client.get("/no/such/page/")
    assert response.status_code == 404
    assert "There is nothing here" in response.content.decode()


@pytest.mark.django_db
def test_a_form_posted_without_its_csrf_token_gets_a_readable_403(member_client, account) -> None:
    response = member_client.post(f"/a/{account.slug}/drafts/1/reject/")
    assert response.status_code == 403
    assert "Nothing was changed" in response.content.decode()


def test_the_login_page_is_served() -> None:
    assert Client().get("/login/").status_code == 200
