"""Instagram Login (no Page needed): consent, both token-response shapes, long-lived and refresh."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import requests

from tests.devkit.sandbox.conftest import APP_ID, APP_SECRET, REDIRECT_URI, Graph, Seeded, error_of

IG_SCOPES = "instagram_business_basic,instagram_business_content_publish"


def _authorize(graph: Graph, **extra: str) -> requests.Response:
    return requests.get(
        f"{graph.sandbox.base_url}/oauth/authorize",
        params={"client_id": APP_ID, "redirect_uri": REDIRECT_URI, "response_type": "code", "scope": IG_SCOPES,
                "state": "ig-state", **extra},
        timeout=5,
        allow_redirects=False,
    )  # fmt: skip


def _code(graph: Graph) -> str:
    graph.sandbox.set_consent(mode="grant")
    location = _authorize(graph).headers["Location"]
    assert location.endswith("#_")
    query = parse_qs(urlsplit(location).query)
    assert query["state"] == ["ig-state"]
    return query["code"][0]


def _exchange(graph: Graph, code: str) -> requests.Response:
    return requests.post(
        f"{graph.sandbox.base_url}/oauth/access_token",
        data={"client_id": APP_ID, "client_secret": APP_SECRET, "grant_type": "authorization_code",
              "redirect_uri": REDIRECT_URI, "code": code},
        timeout=5,
    )  # fmt: skip


def _long_lived(graph: Graph, short: str) -> requests.Response:
    return requests.get(
        f"{graph.sandbox.base_url}/access_token",
        params={"grant_type": "ig_exchange_token", "client_secret": APP_SECRET},
        headers={"Authorization": f"Bearer {short}"},
        timeout=5,
    )


def test_authorize_shows_a_consent_page(graph: Graph, seeded: Seeded) -> None:
    page = _authorize(graph)

    assert page.status_code == 200
    assert "instagram_business_content_publish" in page.text
    assert "action='/oauth/authorize'" in page.text


def test_a_user_without_instagram_cannot_authorize(graph: Graph) -> None:
    user = graph.sandbox.create_user()
    graph.sandbox.create_page(user["id"], with_instagram=False)

    response = _authorize(graph)

    assert response.status_code == 400
    assert "Instagram professional account" in response.text


def test_code_exchange_answers_the_documented_data_shape(graph: Graph, seeded: Seeded) -> None:
    body = _exchange(graph, _code(graph)).json()

    [entry] = body["data"]
    assert entry["user_id"] == seeded.ig
    assert entry["permissions"] == IG_SCOPES
    assert entry["access_token"].startswith("IGAA")


def test_code_exchange_can_answer_the_flat_shape(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.set_ig_token_shape("flat")

    body = _exchange(graph, _code(graph)).json()

    assert set(body) == {"access_token", "user_id", "permissions"}


def test_an_instagram_code_is_single_use_and_not_a_facebook_code(graph: Graph, seeded: Seeded) -> None:
    code = _code(graph)
    facebook = graph.get("oauth/access_token", client_id=APP_ID, client_secret=APP_SECRET,
                         redirect_uri=REDIRECT_URI, code=code)  # fmt: skip
    assert error_of(facebook)["error_subcode"] == 36010

    assert _exchange(graph, code).status_code == 200
    assert error_of(_exchange(graph, code))["error_subcode"] == 36009


def test_long_lived_instagram_token_publishes_and_reads_me(graph: Graph, seeded: Seeded) -> None:
    short = _exchange(graph, _code(graph)).json()["data"][0]["access_token"]
    exchanged = _long_lived(graph, short).json()
    assert exchanged["expires_in"] == 5183944
    token = exchanged["access_token"]

    me = graph.get("me", token, fields="user_id,username").json()
    container = graph.post(f"{seeded.ig}/media", token, image_url="https://ex.test/a.jpg", caption="via IG login")
    published = graph.post(f"{seeded.ig}/media_publish", token, creation_id=container.json()["id"])

    assert me == {"id": seeded.ig, "user_id": seeded.ig, "username": "harbourbikes"}
    assert published.status_code == 200
    assert graph.sandbox.media()[0]["caption"] == "via IG login"


def test_an_instagram_token_does_not_reach_the_facebook_page(graph: Graph, seeded: Seeded) -> None:
    token = _exchange(graph, _code(graph)).json()["data"][0]["access_token"]

    response = graph.post(f"{seeded.page['id']}/feed", token, message="x")

    assert error_of(response)["error_subcode"] == 33
    assert graph.sandbox.posts() == []


def test_refresh_needs_a_long_lived_token_at_least_a_day_old(graph: Graph, seeded: Seeded) -> None:
    short = _exchange(graph, _code(graph)).json()["data"][0]["access_token"]
    long_lived = _long_lived(graph, short).json()["access_token"]

    def refresh(token: str) -> requests.Response:
        return requests.get(
            f"{graph.sandbox.base_url}/refresh_access_token",
            params={"grant_type": "ig_refresh_token"},
            headers={"Authorization": f"Bearer {token}"},
            timeout=5,
        )

    assert error_of(refresh(short))["code"] == 100
    assert "24 hours" in error_of(refresh(long_lived))["message"]
    graph.sandbox.advance_clock(25 * 3600)
    refreshed = refresh(long_lived).json()
    assert refreshed["expires_in"] == 5183944
    assert graph.get("me", refreshed["access_token"]).status_code == 200


def test_an_expired_short_instagram_token_cannot_be_exchanged(graph: Graph, seeded: Seeded) -> None:
    short = _exchange(graph, _code(graph)).json()["data"][0]["access_token"]
    graph.sandbox.advance_clock(3601)

    assert error_of(_long_lived(graph, short))["error_subcode"] == 463
