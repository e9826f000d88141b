"""The one owner of a publication's status: which moves exist, and the only code that makes them.

The moves (event: from → to)::

    claim:               SCHEDULED  → PUBLISHING   (a worker's claim)
    platform_accepted:   PUBLISHING → PUBLISHED    (the platform gave a post id)
    retry_later:         PUBLISHING → SCHEDULED    (nothing irreversible went out)
    outcome_unknown:     PUBLISHING → UNKNOWN      (a write may have gone out)
    give_up:             PUBLISHING → FAILED
    worker_lost:         PUBLISHING → UNKNOWN      (the publish sweep, abandoned claims)
    read_live:           PUBLISHED  → LANDED       (reconcile read it live, with a permalink)
    found:               UNKNOWN    → PUBLISHED    (reconcile found the write on the platform)
    retry_after_unknown: UNKNOWN    → SCHEDULED    (proven absent: the one safe retry)
    never_seen:          UNKNOWN    → FAILED
    unconfirm:           PUBLISHED or UNKNOWN → UNCONFIRMED (out of reads)
    vanish:              LANDED     → VANISHED     (gone when read again a day later)
    withdraw:            SCHEDULED  → WITHDRAWN    (the customer took it back to drafts)
    requeue:             WITHDRAWN  → SCHEDULED    (approved again, into a posting slot)
    customer_retry:      FAILED     → SCHEDULED    (the customer's retry, only where reconcile
                                                    saw nothing land: failure_kind never_seen)
    operator_retry:      FAILED     → SCHEDULED    (the operator's one retry, nothing landed)

``TRANSITIONS`` is the table (event → the states it may leave, the state it enters) and
``publication_transition`` performs one as a conditional update, so two workers racing on
the same publication can never both win: the loser's update matches no row and it learns
so from the return value. Every write of ``Publication.status`` in ``publish`` and
``reconcile`` goes through it (a test pins the table).

The guard against a second post lives here too: ``post_writes_count`` counts the attempts
whose request kind can create a post, by asking ``RequestKind.creates_post``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from django.db.models import Q
from django.utils import timezone

from publish.kinds import RequestKind
from publish.models import Publication, PublishAttempt

Status = Publication.Status


class Event(enum.StrEnum):
    """What happened to a publication; each event makes exactly one move (see TRANSITIONS)."""

    # publish: a worker takes a due publication.
    CLAIM = "claim"
    # publish, from the claim: the platform accepted the post and returned its id.
    PLATFORM_ACCEPTED = "platform_accepted"
    # publish, from the claim: nothing (or nothing irreversible) went out; try again later.
    RETRY_LATER = "retry_later"
    # publish, from the claim: a write may have gone out and we do not know; reconcile decides.
    OUTCOME_UNKNOWN = "outcome_unknown"
    # publish, from the claim: retrying cannot help.
    GIVE_UP = "give_up"
    # publish sweep: a claim older than any task may run was abandoned by a dead worker.
    WORKER_LOST = "worker_lost"
    # reconcile: the post read back live, with the permalink that read returned.
    READ_LIVE = "read_live"
    # reconcile: an unknown write found among the channel's recent posts.
    FOUND = "found"
    # reconcile: an unknown write proven absent (or its container unfinished): safe to retry.
    RETRY_AFTER_UNKNOWN = "retry_after_unknown"
    # reconcile: too many writes never showed up; a human looks.
    NEVER_SEEN = "never_seen"
    # reconcile: out of reads without seeing the post live.
    UNCONFIRM = "unconfirm"
    # reconcile, a day later: the landed post is gone.
    VANISH = "vanish"
    # the customer, from the queue: back to drafts before a worker claimed it. Losing to the
    # claim is the race "too late, it is going out", told to the customer as such.
    WITHDRAW = "withdraw"
    # the customer approved a withdrawn draft again: it takes a posting slot once more.
    REQUEUE = "requeue"
    # the customer, from History: send a failed post again. Only where reconcile read the
    # platform and saw nothing land (NEVER_SEEN); publish.services.publication_retry adds
    # that condition to the move, so no other failure can be retried from the page.
    CUSTOMER_RETRY = "customer_retry"
    # the operator's console, once per publication: a failed post nothing of which landed.
    OPERATOR_RETRY = "operator_retry"


@dataclass(frozen=True)
class Transition:
    sources: frozenset[str]
    target: str


TRANSITIONS: dict[Event, Transition] = {
    Event.CLAIM: Transition(frozenset({Status.SCHEDULED}), Status.PUBLISHING),
    Event.PLATFORM_ACCEPTED: Transition(frozenset({Status.PUBLISHING}), Status.PUBLISHED),
    Event.RETRY_LATER: Transition(frozenset({Status.PUBLISHING}), Status.SCHEDULED),
    Event.OUTCOME_UNKNOWN: Transition(frozenset({Status.PUBLISHING}), Status.UNKNOWN),
    Event.GIVE_UP: Transition(frozenset({Status.PUBLISHING}), Status.FAILED),
    Event.WORKER_LOST: Transition(frozenset({Status.PUBLISHING}), Status.UNKNOWN),
    Event.READ_LIVE: Transition(frozenset({Status.PUBLISHED}), Status.LANDED),
    Event.FOUND: Transition(frozenset({Status.UNKNOWN}), Status.PUBLISHED),
    Event.RETRY_AFTER_UNKNOWN: Transition(frozenset({Status.UNKNOWN}), Status.SCHEDULED),
    Event.NEVER_SEEN: Transition(frozenset({Status.UNKNOWN}), Status.FAILED),
    Event.UNCONFIRM: Transition(frozenset({Status.PUBLISHED, Status.UNKNOWN}), Status.UNCONFIRMED),
    Event.VANISH: Transition(frozenset({Status.LANDED}), Status.VANISHED),
    Event.WITHDRAW: Transition(frozenset({Status.SCHEDULED}), Status.WITHDRAWN),
    Event.REQUEUE: Transition(frozenset({Status.WITHDRAWN}), Status.SCHEDULED),
    Event.CUSTOMER_RETRY: Transition(frozenset({Status.FAILED}), Status.SCHEDULED),
    Event.OPERATOR_RETRY: Transition(frozenset({Status.FAILED}), Status.SCHEDULED),
}


class ForbiddenTransition(ValueError):
    """Code asked for a move the table does not have: a bug, never a race."""


def transition_target(*, event: Event, source: str) -> str:
    """The state ``event`` moves a publication in ``source`` to; ForbiddenTransition if none."""
    move = TRANSITIONS[event]
    if source not in move.sources:
        raise ForbiddenTransition(f"{event} cannot move a publication from {source!r}")
    return move.target


def publication_transition(
    *,
    event: Event,
    publication_id: int | None = None,
    source: str | None = None,
    where: Q | None = None,
    **fields: Any,
) -> int:
    """Make ``event``'s move as one conditional update, setting ``fields`` with the status.

    Targets one publication (``publication_id``) or every publication matching ``where``
    (the sweeps); ``source`` narrows the states left to the one the caller read, and
    ``where`` adds the caller's own condition (due, still holding the claim). Returns how
    many rows moved: for one publication, 1 means this caller won and 0 that another
    worker moved it first or it was no longer in a state this event leaves.
    """
    move = TRANSITIONS[event]
    sources = move.sources
    if source is not None:
        transition_target(event=event, source=source)
        sources = frozenset({source})
    if publication_id is None and where is None:
        raise ValueError("a transition needs a publication_id or a where condition")
    if "status" in fields:
        raise ValueError("the status comes from the transition table, not from the caller")
    queryset = Publication.objects.filter(status__in=sources)
    if publication_id is not None:
        queryset = queryset.filter(pk=publication_id)
    if where is not None:
        queryset = queryset.filter(where)
    fields.setdefault("updated_at", timezone.now())
    return queryset.update(status=move.target, **fields)


def post_writes_count(*, publication_id: int) -> int:
    """How many requests that could have created a post were made for this publication."""
    return PublishAttempt.objects.filter(
        publication_id=publication_id, request_kind__in=RequestKind.post_creating()
    ).count()
