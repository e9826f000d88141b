"""State that persists, virtual time, read-back lag, and the HTTP control API for other processes."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
import requests

from devkit.sandbox import GraphSandbox
from devkit.sandbox import store as store_module
from devkit.sandbox.store import StateFileError
from tests.devkit.sandbox.conftest import Graph, Seeded, error_of

ROOT = Path(__file__).resolve().parents[3]


def test_state_survives_a_restart_on_the_same_file(tmp_path: Path) -> None:
    # given a sandbox with a state file, a post, a container plan and an armed injection
    state = tmp_path / "sandbox.sqlite3"
    first = GraphSandbox(state_path=state)
    first.start()
    user = first.create_user()
    page = first.create_page(user["id"])
    graph = Graph(first)
    post_id = graph.post(f"{page['id']}/feed", page["access_token"], message="before restart").json()["id"]
    first.set_container_plan(in_progress_polls=1)
    first.inject(path_regex=r"/feed$", kind="html_502")
    first.advance_clock(100)
    first.close()

    # when a new sandbox opens the same file (on another port)
    second = GraphSandbox(state_path=state)
    second.start()
    try:
        graph = Graph(second)
        # then tokens, posts, the plan, the injection and the clock are all still there
        body = graph.get(post_id, page["access_token"], fields="message,permalink_url").json()
        assert body["message"] == "before restart"
        assert body["permalink_url"] == f"{second.base_url}/p/{post_id}"
        assert graph.post(f"{page['id']}/feed", page["access_token"], message="x").status_code == 502
        container = graph.post(f"{page['instagram_id']}/media", page["access_token"], image_url="https://ex.test/a.jpg")
        status = graph.get(container.json()["id"], page["access_token"], fields="status_code").json()
        assert status["status_code"] == "IN_PROGRESS"
        assert second.now() - time.time() >= 99  # the virtual clock offset survived
        new_id = graph.post(f"{page['id']}/feed", page["access_token"], message="after").json()["id"]
        assert new_id != post_id
    finally:
        second.close()


def test_in_memory_sandboxes_do_not_share_state() -> None:
    one, two = GraphSandbox(), GraphSandbox()
    one.create_user()

    assert two.state()["users"] == []
    one.close()
    two.close()


def test_read_lag_answers_100_33_then_unpublished_then_live(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.set_read_lag(reads=2, unpublished_reads=1)
    post_id = graph.post(f"{seeded.page['id']}/feed", seeded.page_token, message="fresh").json()["id"]
    fields = "id,is_published,permalink_url"

    lagging = [error_of(graph.get(post_id, seeded.page_token, fields=fields)) for _ in range(2)]
    unpublished = graph.get(post_id, seeded.page_token, fields=fields).json()
    live = graph.get(post_id, seeded.page_token, fields=fields).json()

    assert all((error["code"], error["error_subcode"]) == (100, 33) for error in lagging)
    assert unpublished == {"id": post_id, "is_published": False}
    assert live["is_published"] is True
    assert live["permalink_url"].endswith(f"/p/{post_id}")


def test_read_lag_applies_to_instagram_media_too(graph: Graph, seeded: Seeded) -> None:
    graph.sandbox.set_read_lag(reads=1)
    container_id = graph.post(f"{seeded.ig}/media", seeded.page_token, image_url="https://ex.test/a.jpg").json()["id"]
    media_id = graph.post(f"{seeded.ig}/media_publish", seeded.page_token, creation_id=container_id).json()["id"]

    assert error_of(graph.get(media_id, seeded.page_token, fields="permalink"))["error_subcode"] == 33
    assert graph.get(media_id, seeded.page_token, fields="permalink").json()["permalink"]


def test_advance_clock_moves_created_times(graph: Graph, seeded: Seeded) -> None:
    before = graph.sandbox.now()

    now = graph.sandbox.advance_clock(2 * 86400)

    assert now - before >= 2 * 86400
    post_id = graph.post(f"{seeded.page['id']}/feed", seeded.page_token, message="x").json()["id"]
    created = graph.get(post_id, seeded.page_token, fields="created_time").json()["created_time"]
    expected_day = datetime.fromtimestamp(now, tz=UTC).strftime("%Y-%m-%d")
    assert created.startswith(expected_day)


def test_reset_forgets_everything(graph: Graph, seeded: Seeded) -> None:
    graph.post(f"{seeded.page['id']}/feed", seeded.page_token, message="x")

    graph.sandbox.reset()

    assert graph.sandbox.posts() == []
    assert graph.sandbox.requests_log() == []
    assert error_of(graph.get("me", seeded.user_token))["code"] == 190


def test_control_api_mirrors_the_python_api(sandbox: GraphSandbox) -> None:
    def control(method: str, **kwargs: object) -> requests.Response:
        return requests.post(f"{sandbox.base_url}/_sandbox/{method}", json=kwargs, timeout=5)

    user = control("create_user", name="Remote Owner").json()
    page = control("create_page", user_id=user["id"], name="Remote Page").json()
    # a JSON body without a JSON Content-Type, as `curl -d '{...}'` sends it
    injected = requests.post(
        f"{sandbox.base_url}/_sandbox/inject",
        data=json.dumps({"method": "POST", "path_regex": "/feed$", "kind": "500_after_create"}),
        timeout=5,
    )
    assert injected.status_code == 200
    graph = Graph(sandbox)

    assert graph.post(f"{page['id']}/feed", page["access_token"], message="over http").status_code == 500

    [post] = requests.get(f"{sandbox.base_url}/_sandbox/posts", timeout=5).json()
    assert post["message"] == "over http"
    log = control("requests_log").json()
    assert [entry["injected"] for entry in log] == ["500_after_create"]
    assert control("advance_clock", seconds=60).json() > 0
    assert control("state").json()["pages"][0]["name"] == "Remote Page"
    assert control("reset").json() is None
    assert control("posts").json() == []


def test_control_api_refuses_unknown_methods_and_bad_arguments(sandbox: GraphSandbox) -> None:
    unknown = requests.post(f"{sandbox.base_url}/_sandbox/store", json={}, timeout=5)
    bad = requests.post(f"{sandbox.base_url}/_sandbox/inject", json={"kind": "nope"}, timeout=5)
    wrong = requests.post(f"{sandbox.base_url}/_sandbox/set_read_lag", json={"lag": 1}, timeout=5)

    assert unknown.status_code == 404
    assert bad.status_code == 400
    assert wrong.status_code == 400


def test_unknown_paths_answer_in_the_graph_envelope(graph: Graph, seeded: Seeded) -> None:
    assert error_of(graph.get(f"{seeded.page['id']}/nonsense", seeded.page_token))["code"] == 100
    assert error_of(graph.get("424242", seeded.page_token))["error_subcode"] == 33


def test_malformed_json_bodies_are_a_clear_error(graph: Graph, seeded: Seeded) -> None:
    response = requests.post(
        graph.url(f"{seeded.page['id']}/feed"),
        data="{not json",
        headers={"Authorization": f"Bearer {seeded.page_token}", "Content-Type": "application/json"},
        timeout=5,
    )

    assert error_of(response)["code"] == 100
    assert graph.sandbox.posts() == []


def test_seed_demo_is_idempotent_and_returns_live_tokens(graph: Graph) -> None:
    first = graph.sandbox.seed_demo()
    second = graph.sandbox.seed_demo()

    assert first["page"]["id"] == second["page"]["id"]
    assert len(graph.sandbox.state()["users"]) == 1
    response = graph.post(f"{second['page']['id']}/feed", second["page"]["access_token"], message="demo")
    assert response.status_code == 200
    assert graph.get("me", second["user"]["access_token"]).status_code == 200


def test_the_sandbox_imports_without_django() -> None:
    code = "import sys, devkit.sandbox; sys.exit(any(m.split('.')[0] == 'django' for m in sys.modules))"

    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False, timeout=30).returncode == 0


def test_management_command_serves_and_seeds_until_terminated(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "manage.py", "graph_sandbox", "--port", "0", "--state", str(tmp_path / "s.sqlite3"), "--seed"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        # devkit's commands exist on the embedded default only (DEBUG on, config/settings.py).
        env={**os.environ, "DJANGO_DEBUG": "1", "LANDED_VAR_DIR": str(tmp_path)},
    )
    try:
        assert process.stdout is not None
        serving = process.stdout.readline()
        seeded = process.stdout.readline()
        base_url = serving.rsplit(" ", 1)[-1].strip()
        assert base_url.startswith("http://127.0.0.1:")
        assert "Harbour Bikes" in seeded
        assert "EAA" not in seeded  # ids only: tokens never reach a console
        assert requests.get(f"{base_url}/_sandbox/state", timeout=5).json()["pages"][0]["name"] == "Harbour Bikes"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)
    assert (tmp_path / "s.sqlite3").exists()


def test_a_state_file_of_a_newer_schema_version_is_refused_clearly(tmp_path: Path) -> None:
    state = tmp_path / "future.sqlite3"
    with sqlite3.connect(state) as db:
        db.execute("CREATE TABLE posts (id TEXT)")
        db.execute("PRAGMA user_version = 99")

    with pytest.raises(StateFileError, match="delete the file"):
        GraphSandbox(state_path=state)


def test_a_state_file_from_before_the_login_column_is_migrated(tmp_path: Path) -> None:
    # given a version-1 file: codes without the login column, and a user in it
    state = tmp_path / "v1.sqlite3"
    first = GraphSandbox(state_path=state)
    user = first.create_user()
    first.close()
    with sqlite3.connect(state) as db:
        db.execute("ALTER TABLE codes DROP COLUMN login")
        db.execute("PRAGMA user_version = 1")

    # when it is opened again, then the user is still there and codes work
    second = GraphSandbox(state_path=state)
    second.start()
    try:
        second.set_consent(mode="grant")
        graph = Graph(second)
        dialog = graph.get(
            "dialog/oauth",
            client_id="landed-sandbox-app",
            redirect_uri="http://127.0.0.1:9/cb",
            scope="pages_show_list",
        )
        assert "code=" in dialog.headers["Location"]
        assert second.state()["users"][0]["id"] == user["id"]
    finally:
        second.close()


def test_the_request_log_keeps_only_the_latest_requests(
    graph: Graph, seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "REQUEST_LOG_KEEP", 3)

    for n in range(5):
        graph.get("me", seeded.user_token, fields=f"id,name{',id' * n}")

    assert len(graph.sandbox.requests_log()) == 3
    assert graph.sandbox.requests_log()[-1]["query"]["fields"].count(",id") == 4
