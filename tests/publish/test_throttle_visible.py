"""A channel the platform throttled is visible: on the Channels page, on /ops/, next to the
posts waiting behind it, and as an alarm when the pause is long (real sandbox throttles)."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth.models import User
from django.test import Client

from cron.models import Alarm
from cron.watchdogs import Kind, watchdog_publishing
from devkit.sandbox import GraphSandbox
from publish.models import Channel, Publication
from publish.services import channel_defer, publication_publish
from tests.reconcile import fixtures
from tests.reconcile.fixtures import SandboxPage, publication_make

graph_sandbox = fixtures.graph_sandbox
sandbox_page = fixtures.sandbox_page

FEED = r"/\d+/feed$"

pytestmark = pytest.mark.django_db


def _throttled_for(minutes: int, sandbox_page: SandboxPage, graph_sandbox: GraphSandbox) -> Publication:
    """Publish once into a throttle the sandbox holds for ``minutes``; the publication waits."""
    graph_sandbox.inject(method="POST", path_regex=FEED, kind="throttle", code=80001, minutes=minutes)
    publication = publication_publish(publication_id=publication_make(channel=sandbox_page.facebook, n=1).pk)
    assert publication.status == Publication.Status.SCHEDULED
    return publication


def test_the_channels_page_and_the_queue_say_when_a_throttled_channel_resumes(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox, account, member_client: Client
) -> None:
    # given: Facebook throttled the Page for 7 minutes while a post was going out
    _throttled_for(7, sandbox_page, graph_sandbox)
    channel = Channel.objects.get(pk=sandbox_page.facebook.pk)
    resumes = channel.throttled_until.strftime("%H:%M")

    # then: the Channels page says the channel is paused and when it resumes
    channels = member_client.get(f"/a/{account.slug}/channels/").content.decode()
    assert "Paused: Facebook asked us to slow down" in channels
    assert resumes in channels
    # and the queued post says it is waiting behind the pause
    history = member_client.get(f"/a/{account.slug}/history/").content.decode()
    assert "is paused for the platform's rate limits until" in history
    assert resumes in history

    # when the pause is over, neither page mentions it any more
    with time_machine.travel(channel.throttled_until + timedelta(seconds=1)):
        assert "Paused:" not in member_client.get(f"/a/{account.slug}/channels/").content.decode()
        assert "rate limits until" not in member_client.get(f"/a/{account.slug}/history/").content.decode()


def test_the_ops_page_lists_paused_channels_with_their_resume_time(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    _throttled_for(7, sandbox_page, graph_sandbox)
    channel = Channel.objects.get(pk=sandbox_page.facebook.pk)
    operator = User.objects.create_user(username="operator", password="x", is_staff=True)
    client = Client()
    client.force_login(operator)

    page = client.get("/ops/").content.decode()

    assert "Channels paused for rate limits (1)" in page
    assert channel.throttled_until.strftime("%Y-%m-%d %H:%M") in page


def test_a_pause_longer_than_an_hour_opens_an_alarm_that_resolves_when_it_ends(
    sandbox_page: SandboxPage, graph_sandbox: GraphSandbox
) -> None:
    # given: a short pause alarms no one
    _throttled_for(7, sandbox_page, graph_sandbox)
    watchdog_publishing()
    assert not Alarm.objects.filter(kind=Kind.CHANNEL_PAUSED_LONG).exists()

    # when: the pause is extended to 90 minutes from its start (a quota, not a blip)
    channel = Channel.objects.get(pk=sandbox_page.facebook.pk)
    started = channel.throttled_since
    channel_defer(channel=channel, until=started + timedelta(minutes=90))
    channel.refresh_from_db()
    assert channel.throttled_since == started  # an extension keeps the start of the pause
    watchdog_publishing()

    # then: one alarm for that channel, saying when it resumes
    alarm = Alarm.objects.get(kind=Kind.CHANNEL_PAUSED_LONG, resolved_at__isnull=True)
    assert alarm.subject == f"channel:{channel.pk}"
    assert alarm.details["resumes_at"] == channel.throttled_until.isoformat()

    # and once the pause has ended, the next run resolves it
    with time_machine.travel(channel.throttled_until + timedelta(minutes=1)):
        watchdog_publishing()
    alarm.refresh_from_db()
    assert alarm.resolved_at is not None
