"""Fixtures for the Graph sandbox tests: a real sandbox on an ephemeral port, driven over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests

from devkit.sandbox import GraphSandbox

APP_ID = "landed-sandbox-app"
APP_SECRET = "landed-sandbox-secret"
REDIRECT_URI = "http://127.0.0.1:9/connect/callback"


@dataclass
class Graph:
    """A thin HTTP client for tests: tokens always in the Authorization header."""

    sandbox: GraphSandbox
    version: str = "v26.0"

    def url(self, path: str) -> str:
        return f"{self.sandbox.base_url}/{self.version}/{path.lstrip('/')}"

    def get(self, path: str, token: str | None = None, **params: Any) -> requests.Response:
        return requests.get(self.url(path), params=params, headers=_auth(token), timeout=5, allow_redirects=False)

    def post(self, path: str, token: str | None = None, timeout: float = 5, **data: Any) -> requests.Response:
        return requests.post(self.url(path), data=data, headers=_auth(token), timeout=timeout, allow_redirects=False)

    def delete(self, path: str, token: str | None = None) -> requests.Response:
        return requests.delete(self.url(path), headers=_auth(token), timeout=5)


@dataclass
class Seeded:
    user: dict[str, Any]
    page: dict[str, Any]

    @property
    def page_token(self) -> str:
        return self.page["access_token"]

    @property
    def user_token(self) -> str:
        return self.user["access_token"]

    @property
    def ig(self) -> str:
        return self.page["instagram_id"]


def _auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


@pytest.fixture
def sandbox() -> Iterator[GraphSandbox]:
    sb = GraphSandbox()
    sb.start()
    yield sb
    sb.close()


@pytest.fixture
def graph(sandbox: GraphSandbox) -> Graph:
    return Graph(sandbox)


@pytest.fixture
def seeded(sandbox: GraphSandbox) -> Seeded:
    user = sandbox.create_user()
    return Seeded(user=user, page=sandbox.create_page(user["id"]))


def error_of(response: requests.Response) -> dict[str, Any]:
    """The Graph error object of a response, asserting the documented envelope."""
    body = response.json()
    error = body["error"]
    assert {"message", "type", "code", "error_subcode", "is_transient", "fbtrace_id"} <= set(error)
    return error
