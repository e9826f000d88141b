"""Facebook Page publishing and read-back, as a provider sees them over HTTP."""

from __future__ import annotations

import hashlib
import hmac

import requests

from devkit.sandbox import GraphSandbox
from tests.devkit.sandbox.conftest import APP_SECRET, Graph, Seeded, error_of


def test_feed_post_creates_a_page_post_whose_id_is_page_underscore_post(graph: Graph, seeded: Seeded) -> None:
    response = graph.post(
        f"{seeded.page['id']}/feed", seeded.page_token, message="Spring tune-ups", link="https://ex.test/a"
    )

    assert response.status_code == 200
    post_id = response.json()["id"]
    page_part, _, post_part = post_id.partition("_")
    assert page_part == seeded.page["id"]
    assert post_part.isdigit()
    [post] = graph.sandbox.posts()
    assert post["id"] == post_id
    assert post["message"] == "Spring tune-ups"
    assert post["link"] == "https://ex.test/a"


def test_a_post_reads_back_live_with_a_sandbox_permalink(graph: Graph, seeded: Seeded) -> None:
    post_id = graph.post(f"{seeded.page['id']}/feed", seeded.page_token, message="hello").json()["id"]

    body = graph.get(
        post_id, seeded.page_token, fields="id,message,created_time,is_published,permalink_url,status_type"
    ).json()

    assert body["id"] == post_id
    assert body["message"] == "hello"
    assert body["is_published"] is True
    assert body["permalink_url"] == f"{graph.sandbox.base_url}/p/{post_id}"
    assert body["status_type"] == "mobile_status_update"
    assert body["created_time"].endswith("+0000")


def test_json_bodies_and_versionless_paths_are_accepted(sandbox: GraphSandbox, seeded: Seeded) -> None:
    response = requests.post(
        f"{sandbox.base_url}/{seeded.page['id']}/feed",
        json={"message": "json body"},
        headers={"Authorization": f"Bearer {seeded.page_token}"},
        timeout=5,
    )

    assert response.status_code == 200
    assert sandbox.posts()[0]["message"] == "json body"


def test_photo_post_returns_photo_id_and_post_id(graph: Graph, seeded: Seeded) -> None:
    body = graph.post(
        f"{seeded.page['id']}/photos", seeded.page_token, url="https://ex.test/bike.jpg", caption="New stock"
    ).json()

    assert body["id"].isdigit()
    assert body["post_id"].startswith(seeded.page["id"] + "_")
    [post] = graph.sandbox.posts()
    assert post == {**post, "id": body["post_id"], "message": "New stock", "image_url": "https://ex.test/bike.jpg"}
    assert post["status_type"] == "added_photos"


def test_unpublished_photos_become_one_post_through_attached_media(graph: Graph, seeded: Seeded) -> None:
    page = seeded.page["id"]
    first = graph.post(f"{page}/photos", seeded.page_token, url="https://ex.test/1.jpg", published="false").json()
    second = graph.post(f"{page}/photos", seeded.page_token, url="https://ex.test/2.jpg", published="false").json()
    assert "post_id" not in first
    assert graph.sandbox.posts() == []

    response = graph.post(
        f"{page}/feed",
        seeded.page_token,
        message="Two bikes",
        **{
            "attached_media[0]": f'{{"media_fbid": "{first["id"]}"}}',
            "attached_media[1]": f'{{"media_fbid": "{second["id"]}"}}',
        },
    )

    assert response.status_code == 200
    [post] = graph.sandbox.posts()
    assert post["status_type"] == "added_photos"
    assert post["image_url"] == "https://ex.test/1.jpg"


def test_a_user_token_cannot_write_to_a_page(graph: Graph, seeded: Seeded) -> None:
    response = graph.post(f"{seeded.page['id']}/feed", seeded.user_token, message="as the user")

    assert error_of(response)["code"] == 200
    assert graph.sandbox.posts() == []


def test_a_page_token_without_pages_manage_posts_cannot_publish(sandbox: GraphSandbox, graph: Graph) -> None:
    user = sandbox.create_user(permissions=["pages_show_list", "pages_read_engagement"])
    page = sandbox.create_page(user["id"])

    response = graph.post(f"{page['id']}/feed", page["access_token"], message="x")

    error = error_of(response)
    assert error["code"] == 200
    assert "pages_manage_posts" in error["message"]


def test_another_users_page_does_not_exist_for_this_token(sandbox: GraphSandbox, graph: Graph, seeded: Seeded) -> None:
    stranger = sandbox.create_user(name="Stranger")
    stranger_page = sandbox.create_page(stranger["id"], name="Elsewhere")

    response = graph.post(f"{stranger_page['id']}/feed", seeded.page_token, message="x")

    error = error_of(response)
    assert (error["code"], error["error_subcode"]) == (100, 33)


def test_missing_and_unknown_tokens_are_refused(graph: Graph, seeded: Seeded) -> None:
    assert error_of(graph.post(f"{seeded.page['id']}/feed", None, message="x"))["code"] == 104
    assert error_of(graph.post(f"{seeded.page['id']}/feed", "EAAnonsense", message="x"))["code"] == 190
    assert graph.sandbox.posts() == []


def test_published_posts_lists_newest_first_with_since_and_paging(graph: Graph, seeded: Seeded) -> None:
    page = seeded.page["id"]
    graph.post(f"{page}/feed", seeded.page_token, message="old")
    graph.sandbox.advance_clock(3600)
    cutoff = int(graph.sandbox.now())
    for n in range(3):
        graph.sandbox.advance_clock(10)
        graph.post(f"{page}/feed", seeded.page_token, message=f"new {n}")

    first = graph.get(
        f"{page}/published_posts", seeded.page_token, fields="id,message,permalink_url", since=cutoff, limit=2
    ).json()
    assert [item["message"] for item in first["data"]] == ["new 2", "new 1"]
    assert all(item["permalink_url"] for item in first["data"])
    assert "access_token" not in first["paging"]["next"]

    second = requests.get(
        first["paging"]["next"], headers={"Authorization": f"Bearer {seeded.page_token}"}, timeout=5
    ).json()
    assert [item["message"] for item in second["data"]] == ["new 0"]
    assert "next" not in second["paging"]


def test_published_posts_needs_pages_read_engagement(sandbox: GraphSandbox, graph: Graph) -> None:
    user = sandbox.create_user(permissions=["pages_manage_posts"])
    page = sandbox.create_page(user["id"])

    assert error_of(graph.get(f"{page['id']}/published_posts", page["access_token"]))["code"] == 10


def test_unknown_fields_are_refused_like_the_real_api(graph: Graph, seeded: Seeded) -> None:
    post_id = graph.post(f"{seeded.page['id']}/feed", seeded.page_token, message="x").json()["id"]

    error = error_of(graph.get(post_id, seeded.page_token, fields="id,permalink"))

    assert error["code"] == 100
    assert "nonexisting field (permalink)" in error["message"]


def test_engagement_counts_read_back_with_summaries(graph: Graph, seeded: Seeded) -> None:
    post_id = graph.post(f"{seeded.page['id']}/feed", seeded.page_token, message="x").json()["id"]
    graph.sandbox.set_engagement(post_id, reactions=7, comments=2)

    body = graph.get(post_id, seeded.page_token, fields="reactions.summary(total_count),comments.summary(true)").json()

    assert body["reactions"]["summary"]["total_count"] == 7
    assert body["comments"]["summary"]["total_count"] == 2


def test_a_post_deleted_later_reads_as_missing_and_leaves_listings(graph: Graph, seeded: Seeded) -> None:
    page = seeded.page["id"]
    post_id = graph.post(f"{page}/feed", seeded.page_token, message="x").json()["id"]

    graph.sandbox.delete_post(post_id)

    error = error_of(graph.get(post_id, seeded.page_token))
    assert (error["code"], error["error_subcode"]) == (100, 33)
    assert graph.get(f"{page}/published_posts", seeded.page_token).json()["data"] == []
    assert graph.sandbox.posts() == []
    assert requests.get(f"{graph.sandbox.base_url}/p/{post_id}", timeout=5).status_code == 404


def test_delete_through_the_api_removes_the_post(graph: Graph, seeded: Seeded) -> None:
    post_id = graph.post(f"{seeded.page['id']}/feed", seeded.page_token, message="x").json()["id"]

    assert graph.delete(post_id, seeded.page_token).json() == {"success": True}
    assert graph.sandbox.posts() == []


def test_the_permalink_page_shows_the_post_to_a_person(graph: Graph, seeded: Seeded) -> None:
    post_id = graph.post(
        f"{seeded.page['id']}/feed", seeded.page_token, message="<b>Open</b> late", link="https://ex.test/a"
    ).json()["id"]

    page = requests.get(f"{graph.sandbox.base_url}/p/{post_id}", timeout=5)

    assert page.status_code == 200
    assert page.headers["Content-Type"].startswith("text/html")
    assert "&lt;b&gt;Open&lt;/b&gt; late" in page.text
    assert "Harbour Bikes" in page.text


def test_required_appsecret_proof_refuses_calls_without_a_valid_proof(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.set_appsecret_proof(required=True)
    page, token = seeded.page["id"], seeded.page_token
    proof = hmac.new(APP_SECRET.encode(), token.encode(), hashlib.sha256).hexdigest()

    missing = graph.post(f"{page}/feed", token, message="x")
    wrong = graph.post(f"{page}/feed", token, message="x", appsecret_proof="0" * 64)
    right = graph.post(f"{page}/feed", token, message="x", appsecret_proof=proof)

    assert error_of(missing)["code"] == 100
    assert "Invalid appsecret_proof" in error_of(wrong)["message"]
    assert right.status_code == 200
    assert len(graph.sandbox.posts()) == 1
    assert graph.sandbox.requests_log()[-1]["body"]["appsecret_proof"] == "[redacted]"


def test_malformed_attached_media_is_a_parameter_error(graph: Graph, seeded: Seeded) -> None:
    response = graph.post(f"{seeded.page['id']}/feed", seeded.page_token, message="x", **{"attached_media[0]": "{oops"})

    assert error_of(response)["code"] == 100
    assert graph.sandbox.posts() == []
