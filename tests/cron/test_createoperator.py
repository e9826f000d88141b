"""manage.py createoperator, as a person deploying runs it (a real subprocess on the test database)."""

from __future__ import annotations

import os
import pty
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests import worker

ROOT = Path(__file__).resolve().parent.parent.parent


def _createoperator(
    *args: str, stdin: str, env_extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"DATABASE_URL": worker.test_database_url()} | (env_extra or {})
    return subprocess.run(
        [sys.executable, "manage.py", "createoperator", *args],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.django_db(transaction=True)
def test_an_operator_created_from_the_command_line_sees_the_ops_page() -> None:
    result = _createoperator("alice", "--email", "alice@example.com", stdin="correct horse battery staple\n")
    assert result.returncode == 0, result.stderr
    assert "Created operator alice" in result.stdout
    assert "correct horse" not in result.stdout + result.stderr

    alice = User.objects.get(username="alice")
    assert alice.check_password("correct horse battery staple")
    client = Client()
    # Signing in goes through django-axes, which needs the request: post the real login form.
    response = client.post("/login/", {"username": "alice", "password": "correct horse battery staple"})
    assert response.status_code == 302, response.content[:300]
    assert client.get("/ops/").status_code == 200
    assert client.get("/admin/").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_weak_password_is_refused_and_changes_nothing() -> None:
    User.objects.create_user(username="bob", password="an old and long password")
    result = _createoperator("bob", stdin="password\n")
    assert result.returncode != 0
    assert "Password refused" in result.stderr
    bob = User.objects.get(username="bob")
    assert not bob.is_staff and bob.check_password("an old and long password")


@pytest.mark.django_db(transaction=True)
def test_the_issues_interface_username_and_email_options_and_noinput_from_the_environment() -> None:
    result = _createoperator(
        "--username",
        "carol",
        "--email",
        "carol@example.com",
        "--noinput",
        stdin="",
        env_extra={"DJANGO_SUPERUSER_PASSWORD": "a long enough operator password"},
    )
    assert result.returncode == 0, result.stderr
    carol = User.objects.get(username="carol")
    assert carol.is_staff and carol.email == "carol@example.com"
    assert carol.check_password("a long enough operator password")

    # --noinput without the variable is a clear error that creates nothing
    missing = _createoperator("--username", "dave", "--noinput", stdin="", env_extra={"DJANGO_SUPERUSER_PASSWORD": ""})
    assert missing.returncode != 0 and "DJANGO_SUPERUSER_PASSWORD" in missing.stderr
    assert not User.objects.filter(username="dave").exists()


def _createoperator_on_a_terminal(*args: str, answers: list[str]) -> tuple[int, str]:
    """Run the command with a real pseudo-terminal as its controlling terminal (as a person at
    a shell has), answer each password prompt in turn, and return its exit status and screen."""
    env = os.environ | {"DATABASE_URL": worker.test_database_url()}
    pid, fd = pty.fork()
    if pid == 0:  # the child: exec at once, nothing of pytest runs here
        os.chdir(ROOT)
        os.execve(sys.executable, [sys.executable, "manage.py", "createoperator", *args], env)  # noqa: S606 (a fixed argv, our own command)
    screen, pending, deadline = b"", list(answers), time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            chunk = os.read(fd, 1024)
        except OSError:  # the child closed the terminal: it exited
            break
        if not chunk:
            break
        screen += chunk
        if pending and screen.count(b"Password") > len(answers) - len(pending):
            os.write(fd, pending.pop(0).encode() + b"\n")
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), screen.decode(errors="replace")


@pytest.mark.django_db(transaction=True)
# The child only chdirs and execs (no lock of this process is taken before exec), so the
# multi-threaded forkpty warning does not apply.
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_on_a_terminal_the_password_is_prompted_twice_without_echo() -> None:
    password = "a long enough terminal password"
    code, screen = _createoperator_on_a_terminal(
        "--username", "erin", "--email", "erin@example.com", answers=[password, password]
    )
    assert code == 0, screen
    assert "Password: " in screen and "Password (again): " in screen
    assert password not in screen  # getpass turned echo off
    erin = User.objects.get(username="erin")
    assert erin.is_staff and erin.check_password(password)

    # two different answers change nothing
    code, screen = _createoperator_on_a_terminal("--username", "erin", answers=[password, "another long password"])
    assert code != 0 and "differ" in screen
    erin.refresh_from_db()
    assert erin.check_password(password)


def test_on_the_embedded_default_the_operator_is_created_in_its_sqlite_database(tmp_path: Path) -> None:
    # make run's database: no DATABASE_URL, SQLite under LANDED_VAR_DIR
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL"}}
    env |= {"DJANGO_DEBUG": "1", "LANDED_VAR_DIR": str(tmp_path), "DJANGO_SUPERUSER_PASSWORD": "a long enough password"}
    for command in (["migrate", "--noinput", "-v", "0"], ["createoperator", "--username", "frank", "--noinput"]):
        result = subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert result.returncode == 0, result.stderr
    with sqlite3.connect(tmp_path / "landed.sqlite3") as db:
        rows = db.execute("SELECT username, is_staff, is_superuser FROM auth_user").fetchall()
    assert rows == [("frank", 1, 1)]
