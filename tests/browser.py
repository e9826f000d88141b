"""Running the product the way `make run` does, for the browser tests: ``manage.py landed_run``
as its own process on free ports and a temporary var/ folder, driven by Debian's Chromium
(Playwright cannot download a browser here). tests/test_browser_demo.py and
tests/test_browser_team.py share it."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
# CI installs Chromium (.ci/run); a laptop without it still runs everything else.
needs_chromium = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class Served:
    base_url: str
    var_dir: Path
    log_path: Path
    env: dict[str, str]

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextmanager
def landed_run_serving(tmp_path: Path, **extra_env: str) -> Iterator[Served]:
    """Start ``landed_run`` (the embedded default: SQLite, the sandbox and the demo feeds
    in-process) and yield once it serves the login page; stop it afterwards."""
    web, sandbox, feeds = free_port(), free_port(), free_port()
    # The embedded default: no test database or broker of the test run.
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL"}}
    env.update(
        DJANGO_DEBUG="1",
        LANDED_VAR_DIR=str(tmp_path / "var"),
        CRON_SECRET="browser-test-cron-secret-0123456789abcdef",
        GRAPH_API_BASE_URL=f"http://127.0.0.1:{sandbox}",
        DEMO_FEEDS_PORT=str(feeds),
        RESEARCH_ALLOW_HOSTS=f"127.0.0.1:{feeds}",
        **extra_env,
    )
    served = Served(
        base_url=f"http://127.0.0.1:{web}", var_dir=tmp_path / "var", log_path=tmp_path / "landed_run.log", env=env
    )
    with served.log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "landed_run", "--addrport", f"127.0.0.1:{web}"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if process.poll() is not None:
                pytest.fail(f"landed_run exited early:\n{served.log()}")
            try:
                if requests.get(f"{served.base_url}/login/", timeout=2).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            time.sleep(0.5)
        else:
            pytest.fail(f"landed_run did not serve the login page in time:\n{served.log()}")
        yield served
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
