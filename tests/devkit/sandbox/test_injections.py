"""Every injectable failure: what the client sees, and whether the side effect happened."""

from __future__ import annotations

import json

import pytest
import requests

from tests.devkit.sandbox.conftest import Graph, Seeded, error_of

FEED = r"/\d+/feed$"


def _publish(graph: Graph, seeded: Seeded, timeout: float = 5) -> requests.Response:
    return graph.post(f"{seeded.page['id']}/feed", seeded.page_token, timeout=timeout, message="hello")


def test_error_is_returned_before_the_side_effect(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.inject(path_regex=FEED, kind="error", code=368, subcode=1390008, message="Blocked")

    response = _publish(graph, seeded)

    error = error_of(response)
    assert response.status_code == 400
    assert (error["code"], error["error_subcode"], error["message"]) == (368, 1390008, "Blocked")
    assert graph.sandbox.posts() == []


def test_error_code_2_defaults_to_a_transient_http_500(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.inject(path_regex=FEED, kind="error", code=2)

    response = _publish(graph, seeded)

    assert response.status_code == 500
    assert error_of(response)["is_transient"] is True


def test_500_after_create_commits_the_post_then_answers_code_2(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.inject(path_regex=FEED, kind="500_after_create")

    response = _publish(graph, seeded)

    assert response.status_code == 500
    error = error_of(response)
    assert (error["code"], error["is_transient"]) == (2, True)
    assert len(graph.sandbox.posts()) == 1


def test_drop_after_create_commits_then_closes_the_connection(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.inject(path_regex=FEED, kind="drop_after_create")

    with pytest.raises(requests.ConnectionError):
        _publish(graph, seeded)

    assert len(graph.sandbox.posts()) == 1
    assert graph.sandbox.requests_log()[-1]["status"] == 0
    assert graph.sandbox.requests_log()[-1]["injected"] == "drop_after_create"


def test_hang_after_create_commits_then_outlasts_the_client_timeout(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.inject(path_regex=FEED, kind="hang_after_create", seconds=5)

    with pytest.raises(requests.Timeout):
        _publish(graph, seeded, timeout=0.3)

    assert len(graph.sandbox.posts()) == 1


def test_media_publish_lost_response_leaves_media_live_and_container_published(graph: Graph, seeded: Seeded) -> None:
    container_id = graph.post(f"{seeded.ig}/media", seeded.page_token, image_url="https://ex.test/a.jpg").json()["id"]
    graph.sandbox.inject(path_regex=r"/media_publish$", kind="drop_after_create")

    with pytest.raises(requests.ConnectionError):
        graph.post(f"{seeded.ig}/media_publish", seeded.page_token, creation_id=container_id)

    assert len(graph.sandbox.media()) == 1
    status = graph.get(container_id, seeded.page_token, fields="status_code").json()
    assert status["status_code"] == "PUBLISHED"


def test_html_502_is_an_html_bad_gateway_with_nothing_created(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.inject(path_regex=FEED, kind="html_502")

    response = _publish(graph, seeded)

    assert response.status_code == 502
    assert response.headers["Content-Type"].startswith("text/html")
    assert graph.sandbox.posts() == []


def test_non_json_body_is_not_parseable(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.inject(path_regex=FEED, kind="non_json")

    response = _publish(graph, seeded)

    assert response.status_code == 200
    with pytest.raises(ValueError):
        response.json()
    assert graph.sandbox.posts() == []


def test_ok_without_id_is_an_empty_200_with_nothing_created(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.inject(path_regex=FEED, kind="ok_without_id")

    response = _publish(graph, seeded)

    assert (response.status_code, response.json()) == (200, {})
    assert graph.sandbox.posts() == []


@pytest.mark.parametrize(("code", "usage_type"), [(4, "pages"), (32, "pages"), (80001, "pages"), (80002, "instagram")])
def test_throttle_carries_usage_headers_and_regain_time(
    graph: Graph, seeded: Seeded, code: int, usage_type: str
) -> None:
    graph.sandbox.inject(path_regex=FEED, kind="throttle", code=code, minutes=17)

    response = _publish(graph, seeded)

    error = error_of(response)
    assert (error["code"], error["is_transient"]) == (code, True)
    assert json.loads(response.headers["X-App-Usage"])["call_count"] == 100
    buc = json.loads(response.headers["X-Business-Use-Case-Usage"])
    [entry] = buc[seeded.page["id"]]
    assert entry["estimated_time_to_regain_access"] == 17
    assert entry["type"] == usage_type
    assert graph.sandbox.posts() == []


def test_token_expired_is_190_463_by_default(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.inject(path_regex=FEED, kind="token_expired")

    error = error_of(_publish(graph, seeded))

    assert (error["code"], error["error_subcode"]) == (190, 463)


def test_a_phantom_failure_reports_an_error_while_the_media_is_live(graph: Graph, seeded: Seeded) -> None:
    container_id = graph.post(f"{seeded.ig}/media", seeded.page_token, image_url="https://ex.test/a.jpg").json()["id"]
    graph.sandbox.inject(path_regex=r"/media_publish$", kind="error", code=4, subcode=2207051, after_create=True)

    response = graph.post(f"{seeded.ig}/media_publish", seeded.page_token, creation_id=container_id)

    assert error_of(response)["error_subcode"] == 2207051
    assert len(graph.sandbox.media()) == 1


def test_injections_are_spent_after_times_uses(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.inject(path_regex=FEED, kind="error", code=1, times=2)

    statuses = [_publish(graph, seeded).status_code for _ in range(3)]

    assert statuses == [500, 500, 200]
    assert [entry["injected"] for entry in graph.sandbox.requests_log()] == ["error", "error", ""]


def test_times_minus_one_fails_every_matching_request_until_cleared(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.inject(path_regex=FEED, kind="html_502", times=-1)
    assert [_publish(graph, seeded).status_code for _ in range(3)] == [502, 502, 502]

    graph.sandbox.clear_injections()

    assert _publish(graph, seeded).status_code == 200


def test_injections_match_method_and_path(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.inject(method="GET", path_regex=FEED, kind="html_502")

    assert _publish(graph, seeded).status_code == 200  # a POST does not match a GET injection
    assert graph.get(f"{seeded.page['id']}/feed", seeded.page_token).status_code == 502


def test_an_after_create_injection_waits_for_a_request_that_succeeds(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.inject(path_regex=FEED, kind="500_after_create")

    refused = graph.post(f"{seeded.page['id']}/feed", "EAAbogus", message="x")
    assert error_of(refused)["code"] == 190

    assert _publish(graph, seeded).status_code == 500
    assert len(graph.sandbox.posts()) == 1


def test_unknown_injection_kind_is_refused(graph: Graph) -> None:
    with pytest.raises(ValueError, match="unknown injection kind"):
        graph.sandbox.inject(kind="explode")


def test_usage_headers_creep_on_every_answer_when_set(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.set_usage(app_call_count=78, business_call_count=91)

    response = _publish(graph, seeded)

    assert response.status_code == 200
    assert json.loads(response.headers["X-App-Usage"])["call_count"] == 78
    [entry] = json.loads(response.headers["X-Business-Use-Case-Usage"])[seeded.page["id"]]
    assert entry["call_count"] == 91
