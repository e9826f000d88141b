"""Instagram content publishing: containers, their plans, media_publish, read-back and quota."""

from __future__ import annotations

import threading

import requests

from tests.devkit.sandbox.conftest import Graph, Seeded, error_of

IMAGE = "https://ex.test/bike.jpg"


def _container(graph: Graph, seeded: Seeded, caption: str = "New bikes are in") -> str:
    response = graph.post(f"{seeded.ig}/media", seeded.page_token, image_url=IMAGE, caption=caption)
    assert response.status_code == 200, response.text
    return response.json()["id"]


def _status(graph: Graph, seeded: Seeded, container_id: str) -> dict:
    return graph.get(container_id, seeded.page_token, fields="status_code,status").json()


def test_container_then_publish_gives_media_that_reads_back_with_a_permalink(graph: Graph, seeded: Seeded) -> None:
    container_id = _container(graph, seeded)
    assert _status(graph, seeded, container_id)["status_code"] == "FINISHED"
    assert graph.sandbox.media() == []  # a container is invisible until published

    media_id = graph.post(f"{seeded.ig}/media_publish", seeded.page_token, creation_id=container_id).json()["id"]

    body = graph.get(
        media_id, seeded.page_token, fields="id,permalink,timestamp,caption,media_type,media_product_type,shortcode"
    ).json()
    assert body["permalink"] == f"{graph.sandbox.base_url}/p/{media_id}"
    assert body["caption"] == "New bikes are in"
    assert body["media_type"] == "IMAGE"
    assert body["shortcode"]
    assert _status(graph, seeded, container_id)["status_code"] == "PUBLISHED"
    [media] = graph.sandbox.media(seeded.ig)
    assert media["container_id"] == container_id


def test_the_user_token_of_the_owner_may_publish_too(graph: Graph, seeded: Seeded) -> None:
    container_id = graph.post(f"{seeded.ig}/media", seeded.user_token, image_url=IMAGE, caption="x").json()["id"]

    response = graph.post(f"{seeded.ig}/media_publish", seeded.user_token, creation_id=container_id)

    assert response.status_code == 200


def test_slow_container_answers_in_progress_then_finished_and_refuses_early_publish(
    graph: Graph, seeded: Seeded
) -> None:
    graph.sandbox.set_container_plan(in_progress_polls=2)
    container_id = _container(graph, seeded)

    early = graph.post(f"{seeded.ig}/media_publish", seeded.page_token, creation_id=container_id)
    error = error_of(early)
    assert (error["code"], error["error_subcode"]) == (9007, 2207027)

    statuses = [_status(graph, seeded, container_id)["status_code"] for _ in range(3)]
    assert statuses == ["IN_PROGRESS", "IN_PROGRESS", "FINISHED"]
    assert graph.post(f"{seeded.ig}/media_publish", seeded.page_token, creation_id=container_id).status_code == 200


def test_container_error_carries_its_subcode_in_status_and_on_publish(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.set_container_plan(outcome="ERROR", error_subcode=2207052)
    container_id = _container(graph, seeded)

    status = _status(graph, seeded, container_id)
    assert status["status_code"] == "ERROR"
    assert "2207052" in status["status"]
    error = error_of(graph.post(f"{seeded.ig}/media_publish", seeded.page_token, creation_id=container_id))
    assert (error["code"], error["error_subcode"]) == (9004, 2207052)
    assert graph.sandbox.media() == []


def test_a_container_expires_after_24_hours_of_virtual_time(graph: Graph, seeded: Seeded) -> None:
    container_id = _container(graph, seeded)

    graph.sandbox.advance_clock(24 * 3600 + 1)

    assert _status(graph, seeded, container_id)["status_code"] == "EXPIRED"
    error = error_of(graph.post(f"{seeded.ig}/media_publish", seeded.page_token, creation_id=container_id))
    assert error["error_subcode"] == 2207020


def test_plan_outcome_expired_is_reported(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.set_container_plan(outcome="EXPIRED")

    assert _status(graph, seeded, _container(graph, seeded))["status_code"] == "EXPIRED"


def test_publishing_a_container_twice_makes_one_media(graph: Graph, seeded: Seeded) -> None:
    container_id = _container(graph, seeded)
    assert graph.post(f"{seeded.ig}/media_publish", seeded.page_token, creation_id=container_id).status_code == 200

    again = graph.post(f"{seeded.ig}/media_publish", seeded.page_token, creation_id=container_id)

    assert error_of(again)["code"] == 100
    assert len(graph.sandbox.media()) == 1


def test_racing_publishes_of_one_container_make_one_media(graph: Graph, seeded: Seeded) -> None:
    container_id = _container(graph, seeded)
    statuses: list[int] = []

    def publish() -> None:
        response = graph.post(f"{seeded.ig}/media_publish", seeded.page_token, creation_id=container_id)
        statuses.append(response.status_code)

    threads = [threading.Thread(target=publish) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(statuses) == [200, 400, 400, 400, 400, 400]
    assert len(graph.sandbox.media()) == 1


def test_unknown_container_is_builder_not_found(graph: Graph, seeded: Seeded) -> None:
    error = error_of(graph.post(f"{seeded.ig}/media_publish", seeded.page_token, creation_id="999"))

    assert (error["code"], error["error_subcode"]) == (24, 2207008)


def test_caption_limits_give_the_documented_errors(graph: Graph, seeded: Seeded) -> None:
    def create(caption: str) -> requests.Response:
        return graph.post(f"{seeded.ig}/media", seeded.page_token, image_url=IMAGE, caption=caption)

    assert create("x" * 2200).status_code == 200
    too_long = error_of(create("x" * 2201))
    assert (too_long["code"], too_long["error_subcode"]) == (36004, 2207010)
    assert create(" ".join(f"#tag{n}" for n in range(30))).status_code == 200
    assert error_of(create(" ".join(f"#tag{n}" for n in range(31))))["error_subcode"] == 2207010
    assert create(" ".join(f"@user{n}" for n in range(20))).status_code == 200
    mentions = error_of(create(" ".join(f"@user{n}" for n in range(21))))
    assert (mentions["code"], mentions["error_subcode"]) == (100, 2207040)


def test_each_caption_limit_names_its_own_limit_in_every_word(graph: Graph, seeded: Seeded) -> None:
    def words(caption: str) -> tuple[str, str, str]:
        error = error_of(graph.post(f"{seeded.ig}/media", seeded.page_token, image_url=IMAGE, caption=caption))
        return error["message"], error["error_user_title"], error["error_user_msg"]

    assert words("x" * 2201) == (
        "The caption is too long: at most 2200 characters.",
        "Caption too long",
        "Captions can have at most 2200 characters.",
    )
    assert words(" ".join(f"#tag{n}" for n in range(31))) == (
        "The caption has too many hashtags: at most 30.",
        "Too many hashtags",
        "Captions can have at most 30 hashtags.",
    )
    assert words(" ".join(f"@user{n}" for n in range(21))) == (
        "Cannot use more than 20 @ tags in a caption.",
        "Too many tags",
        "Captions can mention at most 20 accounts.",
    )
    # Past two limits at once, the first in Graph's order (length, hashtags, mentions) answers.
    assert words("#tag " * 31 + "x" * 2200)[1] == "Caption too long"


def test_missing_image_url_is_a_parameter_error(graph: Graph, seeded: Seeded) -> None:
    assert error_of(graph.post(f"{seeded.ig}/media", seeded.page_token, caption="x"))["code"] == 100


def test_quota_is_enforced_on_publish_and_matches_content_publishing_limit(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.set_quota(total=2)
    for _ in range(2):
        graph.post(f"{seeded.ig}/media_publish", seeded.page_token, creation_id=_container(graph, seeded))
    limit = graph.get(f"{seeded.ig}/content_publishing_limit", seeded.page_token, fields="quota_usage,config").json()
    assert limit == {"data": [{"quota_usage": 2, "config": {"quota_total": 2, "quota_duration": 86400}}]}

    refused = graph.post(f"{seeded.ig}/media_publish", seeded.page_token, creation_id=_container(graph, seeded))

    error = error_of(refused)
    assert (error["code"], error["error_subcode"]) == (9, 2207042)
    assert len(graph.sandbox.media()) == 2


def test_quota_frees_up_after_the_rolling_24_hours(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.set_quota(total=1)
    graph.post(f"{seeded.ig}/media_publish", seeded.page_token, creation_id=_container(graph, seeded))

    graph.sandbox.advance_clock(24 * 3600 + 1)

    limit = graph.get(f"{seeded.ig}/content_publishing_limit", seeded.page_token, fields="quota_usage").json()
    assert limit["data"][0]["quota_usage"] == 0
    ok = graph.post(f"{seeded.ig}/media_publish", seeded.page_token, creation_id=_container(graph, seeded))
    assert ok.status_code == 200


def test_container_cap_per_24_hours(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.set_quota(containers_total=2)
    _container(graph, seeded)
    _container(graph, seeded)

    error = error_of(graph.post(f"{seeded.ig}/media", seeded.page_token, image_url=IMAGE, caption="x"))

    assert (error["code"], error["error_subcode"]) == (9, 2207042)


def test_media_list_pages_newest_first(graph: Graph, seeded: Seeded) -> None:
    for n in range(3):
        graph.sandbox.advance_clock(5)
        graph.post(f"{seeded.ig}/media_publish", seeded.page_token, creation_id=_container(graph, seeded, f"post {n}"))

    first = graph.get(f"{seeded.ig}/media", seeded.page_token, fields="id,caption,timestamp,permalink", limit=2).json()

    assert [item["caption"] for item in first["data"]] == ["post 2", "post 1"]
    rest = requests.get(first["paging"]["next"], headers={"Authorization": f"Bearer {seeded.page_token}"}, timeout=5)
    assert [item["caption"] for item in rest.json()["data"]] == ["post 0"]


def test_page_without_instagram_has_no_business_account_field(graph: Graph, seeded: Seeded) -> None:
    plain = graph.sandbox.create_page(seeded.user["id"], name="Plain", with_instagram=False)

    linked = graph.get(seeded.page["id"], seeded.user_token, fields="instagram_business_account").json()
    unlinked = graph.get(plain["id"], seeded.user_token, fields="instagram_business_account").json()

    assert linked["instagram_business_account"]["id"] == seeded.ig
    assert unlinked == {"id": plain["id"]}
    assert plain["instagram_id"] is None


def test_instagram_user_reads_back(graph: Graph, seeded: Seeded) -> None:
    body = graph.get(seeded.ig, seeded.page_token, fields="id,username,media_count").json()

    assert body == {"id": seeded.ig, "username": "harbourbikes", "media_count": 0}


def test_without_instagram_content_publish_creating_a_container_is_refused(graph: Graph) -> None:
    user = graph.sandbox.create_user(permissions=["instagram_basic", "pages_show_list"])
    page = graph.sandbox.create_page(user["id"])

    response = graph.post(f"{page['instagram_id']}/media", page["access_token"], image_url=IMAGE, caption="x")

    assert error_of(response)["code"] == 10


def test_the_media_permalink_page_shows_the_caption_and_account(graph: Graph, seeded: Seeded) -> None:
    container_id = _container(graph, seeded, caption="Ride & <smile>")
    media_id = graph.post(f"{seeded.ig}/media_publish", seeded.page_token, creation_id=container_id).json()["id"]

    page = requests.get(f"{graph.sandbox.base_url}/p/{media_id}", timeout=5)

    assert page.status_code == 200
    assert "@harbourbikes" in page.text
    assert "Ride &amp; &lt;smile&gt;" in page.text
    assert IMAGE in page.text
