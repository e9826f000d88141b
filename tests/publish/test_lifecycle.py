"""The publication lifecycle: one table of moves, one conditional update that makes them, and
the second-post guard tied to the request kinds the providers really send."""

from __future__ import annotations

import pytest

from accounts.models import Platform
from devkit.sandbox import GraphSandbox
from publish.kinds import AttemptOutcome, FailureKind, RequestKind
from publish.lifecycle import (
    TRANSITIONS,
    Event,
    ForbiddenTransition,
    post_writes_count,
    publication_transition,
    transition_target,
)
from publish.models import Publication, PublishAttempt
from publish.services import publication_publish
from tests.reconcile import fixtures
from tests.reconcile.fixtures import SandboxPage, publication_make

graph_sandbox = fixtures.graph_sandbox
sandbox_page = fixtures.sandbox_page

S = Publication.Status

# The whole table, written out: a change to who may move a publication where is a change
# to this test, made on purpose.
EXPECTED = {
    Event.CLAIM: ({S.SCHEDULED}, S.PUBLISHING),
    Event.PLATFORM_ACCEPTED: ({S.PUBLISHING}, S.PUBLISHED),
    Event.RETRY_LATER: ({S.PUBLISHING}, S.SCHEDULED),
    Event.OUTCOME_UNKNOWN: ({S.PUBLISHING}, S.UNKNOWN),
    Event.GIVE_UP: ({S.PUBLISHING}, S.FAILED),
    Event.WORKER_LOST: ({S.PUBLISHING}, S.UNKNOWN),
    Event.READ_LIVE: ({S.PUBLISHED}, S.LANDED),
    Event.FOUND: ({S.UNKNOWN}, S.PUBLISHED),
    Event.RETRY_AFTER_UNKNOWN: ({S.UNKNOWN}, S.SCHEDULED),
    Event.NEVER_SEEN: ({S.UNKNOWN}, S.FAILED),
    Event.UNCONFIRM: ({S.PUBLISHED, S.UNKNOWN}, S.UNCONFIRMED),
    Event.VANISH: ({S.LANDED}, S.VANISHED),
    Event.WITHDRAW: ({S.SCHEDULED}, S.WITHDRAWN),
    Event.REQUEUE: ({S.WITHDRAWN}, S.SCHEDULED),
    Event.CUSTOMER_RETRY: ({S.FAILED}, S.SCHEDULED),
    Event.OPERATOR_RETRY: ({S.FAILED}, S.SCHEDULED),
}


def test_the_transition_table_is_exactly_the_documented_one() -> None:
    assert {event: (set(move.sources), move.target) for event, move in TRANSITIONS.items()} == EXPECTED
    assert set(TRANSITIONS) == set(Event)


def test_nothing_leaves_a_terminal_state_but_the_two_retries_of_a_failure() -> None:
    left = set().union(*(move.sources for move in TRANSITIONS.values()))
    assert {S.VANISHED, S.UNCONFIRMED}.isdisjoint(left)
    # FAILED is left by two moves only, each a retry where nothing can have landed: the
    # customer's (publish.services.publication_retry: reconcile saw nothing, never_seen;
    # tests/posting/test_previews_and_history.py) and the operator's audited one (the console).
    leaving_failed = {event for event, move in TRANSITIONS.items() if S.FAILED in move.sources}
    assert leaving_failed == {Event.CUSTOMER_RETRY, Event.OPERATOR_RETRY}
    assert all(TRANSITIONS[event].sources == {S.FAILED} for event in leaving_failed)


@pytest.mark.parametrize("event", list(Event))
def test_every_allowed_move_happens_and_every_forbidden_one_does_not(event: Event, sandbox_page: SandboxPage) -> None:
    sources, target = EXPECTED[event]
    publication = publication_make(channel=sandbox_page.facebook)
    for status in S:
        # LANDED needs a permalink (a database constraint); the others do not care.
        Publication.objects.filter(pk=publication.pk).update(status=status, permalink="https://fb.example/p/1")
        moved = publication_transition(event=event, publication_id=publication.pk)
        publication.refresh_from_db()
        if status in sources:
            assert moved == 1, f"{event} from {status}"
            assert publication.status == target
            assert transition_target(event=event, source=status) == target
        else:
            assert moved == 0, f"{event} from {status}"
            assert publication.status == status
            with pytest.raises(ForbiddenTransition):
                transition_target(event=event, source=status)


def test_two_workers_claiming_the_same_publication_cannot_both_win(sandbox_page: SandboxPage) -> None:
    publication = publication_make(channel=sandbox_page.facebook)

    first = publication_transition(event=Event.CLAIM, publication_id=publication.pk)
    second = publication_transition(event=Event.CLAIM, publication_id=publication.pk)

    assert (first, second) == (1, 0)


def test_a_caller_narrowing_the_source_only_moves_from_that_state(sandbox_page: SandboxPage) -> None:
    publication = publication_make(channel=sandbox_page.facebook)
    Publication.objects.filter(pk=publication.pk).update(status=S.UNKNOWN)

    assert publication_transition(event=Event.UNCONFIRM, publication_id=publication.pk, source=S.PUBLISHED) == 0
    with pytest.raises(ForbiddenTransition):
        publication_transition(event=Event.UNCONFIRM, publication_id=publication.pk, source=S.LANDED)
    assert publication_transition(event=Event.UNCONFIRM, publication_id=publication.pk, source=S.UNKNOWN) == 1


def test_the_status_cannot_be_smuggled_in_as_a_field(sandbox_page: SandboxPage) -> None:
    publication = publication_make(channel=sandbox_page.facebook)

    with pytest.raises(ValueError, match="transition table"):
        publication_transition(event=Event.CLAIM, publication_id=publication.pk, status=S.LANDED)
    with pytest.raises(ValueError, match="publication_id or a where"):
        publication_transition(event=Event.WORKER_LOST)


# --- kinds ---------------------------------------------------------------------------------


def test_exactly_the_post_making_writes_create_a_post() -> None:
    assert set(RequestKind.post_creating()) == {RequestKind.FB_FEED, RequestKind.FB_PHOTO, RequestKind.IG_MEDIA_PUBLISH}
    # Creating a container is a write, but a container is invisible until media_publish.
    assert not RequestKind.IG_CONTAINER_CREATE.creates_post


def test_every_platform_error_kind_is_a_failure_kind_and_an_attempt_outcome() -> None:
    from publish import errors

    classes = [
        value for value in vars(errors).values() if isinstance(value, type) and issubclass(value, errors.PlatformError)
    ]
    assert len(classes) >= 8
    for cls in classes:
        assert isinstance(cls.kind, FailureKind)
        assert AttemptOutcome(cls.kind.value)


@pytest.mark.parametrize(
    ("platform", "link", "image"),
    [
        (Platform.FACEBOOK_PAGE, True, False),
        (Platform.FACEBOOK_PAGE, False, True),
        (Platform.INSTAGRAM, False, True),
    ],
    ids=["facebook-feed", "facebook-photo", "instagram"],
)
def test_the_second_post_guard_counts_the_write_every_provider_really_sends(
    platform: str, link: bool, image: bool, sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    """If a provider's post-making request were renamed to a kind the guard does not count,
    reconcile could retry past MAX_POST_WRITES: this publishes for real and asks the guard."""
    channel = sandbox_page.facebook if platform == Platform.FACEBOOK_PAGE else sandbox_page.instagram
    publication = publication_make(channel=channel)
    Publication.objects.filter(pk=publication.pk).update(
        link_url=publication.link_url if link else "",
        image_url="https://news.example/lead.jpg" if image else "",
    )

    publication = publication_publish(publication_id=publication.pk)

    assert publication.status == S.PUBLISHED
    assert post_writes_count(publication_id=publication.pk) == 1
    kinds = [
        RequestKind(kind)
        for kind in PublishAttempt.objects.filter(publication=publication).values_list("request_kind", flat=True)
    ]
    assert [kind for kind in kinds if kind.creates_post] == [kinds[-1]]
