"""A throttle pauses a channel for as long as the platform says, when it says it (Meta's
``estimated_time_to_regain_access`` in X-Business-Use-Case-Usage), and for the default when it
says nothing usable; the throttled post then lands once. Real sandbox throttles over HTTP."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from devkit.sandbox import GraphSandbox
from publish.graph import DEFAULT_THROTTLE_S, MAX_REGAIN_S, rate_limit_usage
from publish.kinds import AttemptOutcome
from publish.models import Channel, Publication, PublishAttempt
from publish.services import USAGE_PAUSE_S, publication_publish
from tests.reconcile import fixtures
from tests.reconcile.fixtures import SandboxPage, publication_make

graph_sandbox = fixtures.graph_sandbox
sandbox_page = fixtures.sandbox_page

FEED = r"/\d+/feed$"
# publish/services.py adds 5-30 s of jitter to a throttle's wait, so a batch does not return as one burst.
JITTER_S = (5, 30)


def _buc(regain: object) -> dict[str, str]:
    entry = {"type": "pages", "call_count": 100, "total_time": 20, "estimated_time_to_regain_access": regain}
    return {"X-Business-Use-Case-Usage": json.dumps({"123": [entry]})}


@pytest.mark.parametrize(
    ("header", "regain_s"),
    [
        (_buc(2), 120),
        (_buc(0.25), 15),  # a fraction of a minute: rounded up to whole seconds
        (_buc(-3), 0),
        (_buc("19"), 0),  # a string is not a number the header promises
        (_buc(float("nan")), 0),  # json.dumps writes NaN and json.loads reads it back
        (_buc(float("inf")), 0),
        (_buc(10**9), MAX_REGAIN_S),  # would overflow a datetime
        ({"X-Business-Use-Case-Usage": '{"123": [{"estimated_time_to_regain_access": 5'}, 0),  # cut short
        ({"X-Business-Use-Case-Usage": "[1, 2]"}, 0),
    ],
)
def test_the_regain_time_is_read_only_from_a_finite_positive_number(header: dict[str, str], regain_s: int) -> None:
    assert rate_limit_usage(header).regain_s == regain_s


@pytest.mark.django_db
def test_a_throttle_that_announces_a_minute_pauses_the_channel_a_minute_and_the_post_lands_once_after(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    # given: the Page is throttled, and the platform says access returns in one minute
    graph_sandbox.inject(method="POST", path_regex=FEED, kind="throttle", code=80001, minutes=1)
    before = timezone.now()

    # when: the post goes out into the throttle
    publication = publication_publish(publication_id=publication_make(channel=sandbox_page.facebook, n=1).pk)

    # then: it waits, the channel is paused one minute plus jitter (not the 15-minute default),
    # the attempt is recorded as throttled, and nothing was posted
    channel = Channel.objects.get(pk=sandbox_page.facebook.pk)
    assert publication.status == Publication.Status.SCHEDULED
    pause = channel.throttled_until - before
    assert timedelta(seconds=60 + JITTER_S[0]) <= pause <= timedelta(seconds=60 + JITTER_S[1] + 5)
    assert publication.scheduled_for == channel.throttled_until
    attempt = PublishAttempt.objects.get(publication=publication)
    assert (attempt.outcome, attempt.error_code) == (AttemptOutcome.THROTTLED, 80001)
    assert graph_sandbox.posts(sandbox_page.page_id) == []

    # and before the pause ends a second try sends nothing
    assert publication_publish(publication_id=publication.pk).status == Publication.Status.SCHEDULED
    assert PublishAttempt.objects.filter(publication=publication).count() == 1

    # when the pause is over, the post goes out and exists once
    with time_machine.travel(channel.throttled_until + timedelta(seconds=1)):
        publication = publication_publish(publication_id=publication.pk)
    assert publication.platform_post_id
    assert [post["id"] for post in graph_sandbox.posts(sandbox_page.page_id)] == [publication.platform_post_id]


@pytest.mark.django_db
def test_a_throttle_announces_its_own_regain_over_the_steady_usage_headers(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    # given: every answer carries low usage (as the night's sandbox does), then a throttle
    graph_sandbox.set_usage(app_call_count=12, business_call_count=9)
    graph_sandbox.inject(method="POST", path_regex=FEED, kind="throttle", code=80001, minutes=1)
    before = timezone.now()

    publication_publish(publication_id=publication_make(channel=sandbox_page.facebook, n=1).pk)

    # then: the throttle's own header (100%, one minute) reached the client, not the steady
    # one without an estimate (the fault night's first throttle waited the 15-minute default)
    channel = Channel.objects.get(pk=sandbox_page.facebook.pk)
    assert channel.throttled_until - before <= timedelta(seconds=60 + JITTER_S[1] + 5)


@pytest.mark.django_db
@pytest.mark.parametrize("usage_header", ["not json", '{"1": [{"estimated_time_to_regain_access": NaN}]}', ""])
def test_a_throttle_with_a_malformed_usage_header_waits_the_default(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox, usage_header: str
) -> None:
    graph_sandbox.inject(method="POST", path_regex=FEED, kind="throttle", code=4, usage_header=usage_header)
    before = timezone.now()

    publication = publication_publish(publication_id=publication_make(channel=sandbox_page.facebook, n=1).pk)

    channel = Channel.objects.get(pk=sandbox_page.facebook.pk)
    assert publication.status == Publication.Status.SCHEDULED
    pause = channel.throttled_until - before
    assert timedelta(seconds=DEFAULT_THROTTLE_S + JITTER_S[0]) <= pause
    assert pause <= timedelta(seconds=DEFAULT_THROTTLE_S + JITTER_S[1] + 5)


@pytest.mark.django_db
@pytest.mark.parametrize(("regain_minutes", "pause_s"), [(2, 120), (0, USAGE_PAUSE_S)])
def test_near_the_limit_a_post_pauses_the_channel_for_the_announced_regain_else_the_default(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox, regain_minutes: int, pause_s: int
) -> None:
    # given: every answer says the Page's usage is at 95%, with or without a regain estimate
    graph_sandbox.set_usage(business_call_count=95, regain_minutes=regain_minutes)
    before = timezone.now()

    # when: a post goes out
    publication = publication_publish(publication_id=publication_make(channel=sandbox_page.facebook, n=1).pk)

    # then: it landed, and the channel's other work waits as long as the platform said
    assert publication.platform_post_id
    channel = Channel.objects.get(pk=sandbox_page.facebook.pk)
    pause = (channel.throttled_until - before).total_seconds()
    assert pause_s <= pause <= pause_s + 5
