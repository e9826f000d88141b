"""The Instagram container poll keeps to a time budget and never swallows the soft time limit
(real sandbox; the hung answers are the sandbox's, the limit is raised the way Celery's is)."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.utils import timezone

from devkit.sandbox import GraphSandbox
from publish import services
from publish.models import Publication
from publish.services import containers_poll, publication_publish
from tests.reconcile import fixtures
from tests.reconcile.fixtures import SandboxPage, publication_make

graph_sandbox = fixtures.graph_sandbox
sandbox_page = fixtures.sandbox_page

pytestmark = pytest.mark.django_db


def _containers_processing(sandbox_page: SandboxPage, graph_sandbox: GraphSandbox, n: int) -> list[Publication]:
    """``n`` Instagram publications whose containers were still processing and are due a poll."""
    graph_sandbox.set_container_plan(in_progress_polls=5)
    publications = []
    for i in range(n):
        publication = publication_publish(publication_id=publication_make(channel=sandbox_page.instagram, n=i).pk)
        assert publication.container_id
        publications.append(publication)
    Publication.objects.filter(pk__in=[p.pk for p in publications]).update(scheduled_for=timezone.now())
    return publications


def _hang_status_reads(graph_sandbox: GraphSandbox, publications: list[Publication], seconds: float) -> None:
    for publication in publications:
        graph_sandbox.inject(
            method="GET",
            path_regex=rf"/{publication.container_id}$",
            kind="hang_after_create",
            seconds=seconds,
            times=-1,
        )


def test_the_poll_stops_starting_new_reads_once_its_budget_is_spent(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given three containers whose status reads each take a second, and a half-second budget
    publications = _containers_processing(sandbox_page, graph_sandbox, 3)
    _hang_status_reads(graph_sandbox, publications, seconds=1.0)
    monkeypatch.setattr(services, "CONTAINER_POLL_BUDGET_S", 0.5)

    # when the poll runs, then it reads one and leaves the others for the next tick
    counts = containers_poll()
    assert (counts["polled"], counts["deferred"]) == (1, 2)
    assert counts["waiting"] == 1


@pytest.fixture
def soft_time_limit_in() -> Iterator[callable]:
    """Raise SoftTimeLimitExceeded in this thread after ``seconds``, as Celery's worker does
    (a signal handler raising it wherever the task is, here inside a hung HTTP read)."""

    def _raise(signum, frame) -> None:
        raise SoftTimeLimitExceeded("soft time limit")

    previous = signal.signal(signal.SIGALRM, _raise)

    def arm(seconds: float) -> None:
        signal.setitimer(signal.ITIMER_REAL, seconds)

    yield arm
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


def test_the_soft_time_limit_stops_the_poll_instead_of_being_counted_as_one_failure(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox, soft_time_limit_in
) -> None:
    publications = _containers_processing(sandbox_page, graph_sandbox, 3)
    _hang_status_reads(graph_sandbox, publications, seconds=3.0)

    soft_time_limit_in(0.3)
    with pytest.raises(SoftTimeLimitExceeded):
        containers_poll()

    # Only the first was touched: it waits for a retry; the others were never started.
    statuses = {p.pk: p.status for p in Publication.objects.filter(pk__in=[p.pk for p in publications])}
    assert set(statuses.values()) == {Publication.Status.SCHEDULED}
    assert Publication.objects.filter(pk__in=[p.pk for p in publications], failure_kind="internal").count() == 1
