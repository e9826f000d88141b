"""Facebook Login as the connect flow sees it: consent dialog, exchanges, /me, debug_token."""

from __future__ import annotations

import re
import threading
from typing import Any
from urllib.parse import parse_qs, urlsplit

import requests

from devkit.sandbox import GraphSandbox
from tests.devkit.sandbox.conftest import APP_ID, APP_SECRET, REDIRECT_URI, Graph, Seeded, error_of

SCOPES = "pages_show_list,pages_read_engagement,pages_manage_posts,instagram_basic,instagram_content_publish"


def _dialog(graph: Graph, state: str = "st4te", **extra: str) -> requests.Response:
    return graph.get(
        "dialog/oauth",
        client_id=APP_ID,
        redirect_uri=REDIRECT_URI,
        state=state,
        scope=SCOPES,
        response_type="code",
        **extra,
    )


def _decide(graph: Graph, dialog: requests.Response, decision: str, keep: list[str] | None = None) -> dict[str, Any]:
    """Press a button on the consent page the way a browser submits its form."""
    action = re.search(r"action='([^']+)'", dialog.text)
    assert action is not None
    fields = dict(re.findall(r"<input type='hidden' name='([^']+)' value='([^']*)'>", dialog.text))
    form: dict[str, Any] = {**fields, "decision": decision}
    if keep is not None:
        form["keep"] = keep
    response = requests.post(graph.sandbox.base_url + action.group(1), data=form, timeout=5, allow_redirects=False)
    assert response.status_code == 302
    location = response.headers["Location"]
    assert location.startswith(REDIRECT_URI + "?")
    return {key: values[0] for key, values in parse_qs(urlsplit(location).query).items()}


def _exchange(graph: Graph, code: str, redirect_uri: str = REDIRECT_URI) -> requests.Response:
    return graph.get(
        "oauth/access_token", client_id=APP_ID, client_secret=APP_SECRET, redirect_uri=redirect_uri, code=code
    )


def _granted_code(graph: Graph) -> str:
    return _decide(graph, _dialog(graph), "grant")["code"]


def test_dialog_shows_a_consent_page_for_the_first_user(graph: Graph, seeded: Seeded) -> None:
    page = _dialog(graph)

    assert page.status_code == 200
    assert page.headers["Content-Type"].startswith("text/html")
    for label in ("Grant all", "Decline some permissions", "Deny", "Demo Owner", "pages_manage_posts"):
        assert label in page.text


def test_dialog_consents_as_the_user_named_by_sandbox_user(graph: Graph, seeded: Seeded) -> None:
    other = graph.sandbox.create_user(name="Second Owner")

    assert "Second Owner" in _dialog(graph, sandbox_user=other["id"]).text


def test_dialog_refuses_a_wrong_client_id_without_redirecting(graph: Graph, seeded: Seeded) -> None:
    response = graph.get("dialog/oauth", client_id="someone-else", redirect_uri=REDIRECT_URI, state="s")

    assert response.status_code == 400
    assert "Location" not in response.headers


def test_grant_all_redirects_with_code_and_state_and_the_code_exchanges_once(graph: Graph, seeded: Seeded) -> None:
    answer = _decide(graph, _dialog(graph, state="abc123"), "grant")
    assert answer["state"] == "abc123"

    first = _exchange(graph, answer["code"])
    second = _exchange(graph, answer["code"])

    assert first.status_code == 200
    assert first.json()["token_type"] == "bearer"
    assert first.json()["expires_in"] == 5400
    error = error_of(second)
    assert (error["code"], error["error_subcode"]) == (100, 36009)


def test_two_racing_exchanges_of_one_code_yield_one_token(graph: Graph, seeded: Seeded) -> None:
    code = _granted_code(graph)
    statuses: list[int] = []

    def exchange() -> None:
        statuses.append(_exchange(graph, code).status_code)

    threads = [threading.Thread(target=exchange) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(statuses) == [200, 400, 400, 400, 400]
    exchanges = [entry for entry in graph.sandbox.requests_log() if entry["path"].endswith("/oauth/access_token")]
    assert len(exchanges) == 5
    assert all(entry["query"]["code"] == "[redacted]" for entry in exchanges)


def test_deny_redirects_with_access_denied_and_no_code(graph: Graph, seeded: Seeded) -> None:
    answer = _decide(graph, _dialog(graph, state="s1"), "deny")

    assert answer == {
        "error": "access_denied",
        "error_code": "200",
        "error_description": "Permissions error",
        "error_reason": "user_denied",
        "state": "s1",
    }


def test_decline_some_declines_the_unticked_scopes(graph: Graph, seeded: Seeded) -> None:
    keep = [scope for scope in SCOPES.split(",") if scope != "instagram_content_publish"]
    code = _decide(graph, _dialog(graph), "decline", keep=keep)["code"]
    token = _exchange(graph, code).json()["access_token"]

    permissions = graph.get("me/permissions", token).json()["data"]

    assert {"permission": "instagram_content_publish", "status": "declined"} in permissions
    assert {"permission": "pages_manage_posts", "status": "granted"} in permissions


def test_decline_with_everything_ticked_declines_pages_manage_posts(graph: Graph, seeded: Seeded) -> None:
    code = _decide(graph, _dialog(graph), "decline", keep=SCOPES.split(","))["code"]
    token = _exchange(graph, code).json()["access_token"]

    permissions = graph.get("me/permissions", token).json()["data"]

    assert {"permission": "pages_manage_posts", "status": "declined"} in permissions


def test_headless_consent_modes_redirect_at_once(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.set_consent(mode="grant")
    granted = _dialog(graph)
    assert granted.status_code == 302
    assert "code=" in granted.headers["Location"]

    graph.sandbox.set_consent(mode="deny")
    assert "error=access_denied" in _dialog(graph).headers["Location"]

    graph.sandbox.set_consent(mode="decline", declined=["pages_show_list"])
    code = parse_qs(urlsplit(_dialog(graph).headers["Location"]).query)["code"][0]
    token = _exchange(graph, code).json()["access_token"]
    assert {"permission": "pages_show_list", "status": "declined"} in graph.get("me/permissions", token).json()["data"]
    assert graph.get("me/accounts", token).json()["data"] == []


def test_exchange_refuses_a_different_redirect_uri_an_expired_code_and_bad_clients(
    graph: Graph, seeded: Seeded
) -> None:
    mismatch = error_of(_exchange(graph, _granted_code(graph), redirect_uri="http://127.0.0.1:9/other"))
    assert mismatch["error_subcode"] == 36008

    stale = _granted_code(graph)
    graph.sandbox.advance_clock(601)
    assert error_of(_exchange(graph, stale))["error_subcode"] == 36007

    assert error_of(_exchange(graph, "not-a-code"))["error_subcode"] == 36010
    wrong_secret = graph.get(
        "oauth/access_token", client_id=APP_ID, client_secret="nope", redirect_uri=REDIRECT_URI, code="x"
    )
    assert error_of(wrong_secret)["code"] == 1


def test_short_token_exchanges_for_a_long_lived_one(graph: Graph, seeded: Seeded) -> None:
    short = _exchange(graph, _granted_code(graph)).json()["access_token"]

    response = graph.get(
        "oauth/access_token",
        grant_type="fb_exchange_token",
        client_id=APP_ID,
        client_secret=APP_SECRET,
        fb_exchange_token=short,
    )

    assert response.json()["expires_in"] == 5183944
    long_lived = response.json()["access_token"]
    graph.sandbox.advance_clock(3 * 3600)  # the short token is dead by now, the long one is not
    assert error_of(graph.get("me", short))["error_subcode"] == 463
    assert graph.get("me", long_lived).json() == {"id": seeded.user["id"], "name": "Demo Owner"}


def test_an_expired_short_token_cannot_be_exchanged(graph: Graph, seeded: Seeded) -> None:
    short = _exchange(graph, _granted_code(graph)).json()["access_token"]
    graph.sandbox.expire_token(short)

    response = graph.get(
        "oauth/access_token",
        grant_type="fb_exchange_token",
        client_id=APP_ID,
        client_secret=APP_SECRET,
        fb_exchange_token=short,
    )

    assert error_of(response)["code"] == 190


def test_me_accounts_pages_with_page_tokens_and_instagram_accounts(graph: Graph, seeded: Seeded) -> None:
    plain = graph.sandbox.create_page(seeded.user["id"], name="Plain", with_instagram=False)
    fields = "id,name,access_token,tasks,instagram_business_account{id,username}"

    first = graph.get("me/accounts", seeded.user_token, fields=fields, limit=1).json()
    second = requests.get(
        first["paging"]["next"], headers={"Authorization": f"Bearer {seeded.user_token}"}, timeout=5
    ).json()

    [linked], [unlinked] = first["data"], second["data"]
    assert linked["instagram_business_account"] == {"id": seeded.ig, "username": "harbourbikes"}
    assert "CREATE_CONTENT" in linked["tasks"]
    assert unlinked["id"] == plain["id"]
    assert "instagram_business_account" not in unlinked
    assert "next" not in second["paging"]
    # The page token from /me/accounts publishes to its page.
    post = graph.post(f"{linked['id']}/feed", linked["access_token"], message="from the picker")
    assert post.status_code == 200


def test_page_tokens_die_with_the_user_token_they_came_from(graph: Graph, seeded: Seeded) -> None:
    [page] = graph.get("me/accounts", seeded.user_token).json()["data"]

    graph.sandbox.invalidate_token(seeded.user_token, subcode=460)

    error = error_of(graph.post(f"{page['id']}/feed", page["access_token"], message="x"))
    assert (error["code"], error["error_subcode"]) == (190, 460)


def test_me_needs_a_token(graph: Graph) -> None:
    assert error_of(graph.get("me"))["code"] == 2500


def test_me_with_a_page_token_is_the_page(graph: Graph, seeded: Seeded) -> None:
    assert graph.get("me", seeded.page_token).json() == {"id": seeded.page["id"], "name": "Harbour Bikes"}


def test_debug_token_describes_a_valid_token(graph: Graph, seeded: Seeded) -> None:
    body = graph.get("debug_token", f"{APP_ID}|{APP_SECRET}", input_token=seeded.page_token).json()["data"]

    assert body["is_valid"] is True
    assert body["type"] == "PAGE"
    assert body["expires_at"] == 0
    assert body["profile_id"] == seeded.page["id"]
    assert "pages_manage_posts" in body["scopes"]
    granular = {entry["scope"]: entry.get("target_ids") for entry in body["granular_scopes"]}
    assert granular["pages_manage_posts"] == [seeded.page["id"]]
    assert granular["instagram_content_publish"] == [seeded.ig]


def test_debug_token_reports_dead_and_unknown_tokens_as_invalid(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.invalidate_token(seeded.user_token, subcode=467)

    dead = graph.get("debug_token", f"{APP_ID}|{APP_SECRET}", input_token=seeded.user_token).json()["data"]
    unknown = graph.get("debug_token", f"{APP_ID}|{APP_SECRET}", input_token="EAAgarbage").json()["data"]

    assert dead["is_valid"] is False
    assert (dead["error"]["code"], dead["error"]["subcode"]) == (190, 467)
    assert unknown["is_valid"] is False


def test_clock_expiry_kills_a_user_token_after_60_days(graph: Graph, seeded: Seeded) -> None:
    assert graph.get("me", seeded.user_token).status_code == 200

    graph.sandbox.advance_clock(61 * 24 * 3600)

    assert error_of(graph.get("me", seeded.user_token))["error_subcode"] == 463
    assert graph.get("me", seeded.page_token).status_code == 200  # page tokens never expire


def test_tokens_in_the_query_string_work_but_are_flagged(sandbox: GraphSandbox, seeded: Seeded) -> None:
    response = requests.get(f"{sandbox.base_url}/v26.0/me", params={"access_token": seeded.user_token}, timeout=5)

    assert response.status_code == 200
    [entry] = sandbox.requests_log()
    assert entry["token_in_query"] is True
    assert entry["query"]["access_token"] == "[redacted]"
    assert seeded.user_token not in str(sandbox.requests_log())
