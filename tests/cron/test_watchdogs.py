"""The jobs, research, gate/LLM, publishing and connect-funnel watchdogs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core import mail
from django.test import override_settings
from django.utils import timezone

from accounts.models import Account
from cron.jobs import JOBS, job_get
from cron.models import Alarm, JobRun
from cron.notify import alarm_notifications_deliver_pending
from cron.selectors import JobState, job_statuses
from cron.watchdogs import (
    Kind,
    watchdog_connect_funnel,
    watchdog_gate_llm,
    watchdog_jobs,
    watchdog_publishing,
    watchdog_research,
)
from posting.models import Draft, LLMUsage
from publish.models import Channel, ConnectEvent, Publication
from research.models import ResearchRun, Source, Subscription
from tests.cron.conftest import RecordingServer
from tests.cron.rows import channel_create, draft_create, publication_create

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def quiet_notifications(settings) -> None:
    settings.OPERATOR_EMAILS = ["ops@landed.example"]
    settings.ALARM_WEBHOOK_URL = ""
    settings.WATCHDOG_HEARTBEAT_URL = ""


def open_alarms(*kinds: str) -> set[tuple[str, str]]:
    return set(Alarm.objects.filter(kind__in=kinds, resolved_at__isnull=True).values_list("kind", "subject"))


def completed(job_name: str, at: datetime, outcome: str = JobRun.Outcome.OK, error: str = "") -> JobRun:
    job = job_get(job_name)
    with time_machine.travel(at, tick=False):
        run, _ = JobRun.objects.update_or_create(
            job=job.name,
            slot=job.slot(at),
            defaults={"outcome": outcome, "started_at": at, "finished_at": at, "error": error},
        )
        return run


def all_jobs_completed(at: datetime) -> None:
    for job in JOBS:
        completed(job.name, at)


def state_of(job_name: str, at: datetime) -> str:
    return next(status.state for status in job_statuses(now=at) if status.job.name == job_name)


# --- Jobs ---------------------------------------------------------------------------------


def test_a_job_is_up_then_late_then_down_at_period_plus_grace() -> None:
    job = job_get("gate_drafts")  # every 5 minutes, 10 minutes grace
    completed(job.name, T0)

    assert state_of(job.name, T0 + job.period) == JobState.UP
    assert state_of(job.name, T0 + job.period + timedelta(seconds=1)) == JobState.LATE
    assert state_of(job.name, T0 + job.period + job.grace) == JobState.LATE
    assert state_of(job.name, T0 + job.period + job.grace + timedelta(seconds=1)) == JobState.DOWN


def test_the_jobs_watchdog_alarms_at_the_boundary_and_resolves_when_the_job_completes() -> None:
    all_jobs_completed(T0)
    job = job_get("gate_drafts")
    boundary = T0 + job.period + job.grace
    # Keep every other job fresh so only gate_drafts can go down.
    for other in JOBS:
        if other.name != job.name:
            completed(other.name, boundary)

    with time_machine.travel(boundary, tick=False):
        watchdog_jobs()
    assert open_alarms(Kind.JOB_DOWN) == set()

    with time_machine.travel(boundary + timedelta(seconds=1), tick=False):
        counts = watchdog_jobs()
    assert open_alarms(Kind.JOB_DOWN) == {(Kind.JOB_DOWN, "gate_drafts")}
    assert counts["jobs_down"] == 1

    completed(job.name, boundary + timedelta(minutes=1))
    with time_machine.travel(boundary + timedelta(minutes=2), tick=False):
        watchdog_jobs()
    assert open_alarms(Kind.JOB_DOWN) == set()


def test_a_scaled_down_grace_moves_the_jobs_boundary_but_not_the_period(settings) -> None:
    # The fault night's watchdog clock (scripts/fault_night.py): graces a tenth as long.
    settings.WATCHDOG_JOB_GRACE_SCALE = 0.1
    job = job_get("deliver_alarm_notifications")  # every minute, 5 minutes grace
    completed(job.name, T0)
    down_after = job.period + timedelta(seconds=30)

    assert state_of(job.name, T0 + job.period) == JobState.UP
    assert state_of(job.name, T0 + down_after) == JobState.LATE
    assert state_of(job.name, T0 + down_after + timedelta(seconds=1)) == JobState.DOWN
    # and a job never seen is new only for its period plus the scaled grace
    assert state_of("gate_drafts", T0 + job_get("gate_drafts").period + timedelta(minutes=1)) == JobState.NEW
    assert state_of("gate_drafts", T0 + job_get("gate_drafts").period + timedelta(minutes=1, seconds=1)) == (
        JobState.DOWN
    )


def test_a_failing_job_is_not_completed_and_goes_down_with_its_last_error() -> None:
    all_jobs_completed(T0)
    job = job_get("publish_due")
    later = T0 + job.period + job.grace + timedelta(minutes=1)
    for other in JOBS:
        if other.name != job.name:
            completed(other.name, later)
    completed(job.name, later - timedelta(seconds=30), outcome=JobRun.Outcome.FAILED, error="GraphError: code 2")

    with time_machine.travel(later, tick=False):
        watchdog_jobs()

    alarm = Alarm.objects.get(kind=Kind.JOB_DOWN)
    assert alarm.subject == "publish_due"
    assert alarm.details["last_outcome"] == "failed"
    assert alarm.details["last_error"] == "GraphError: code 2"


def test_a_job_that_never_completed_is_new_until_the_scheduler_is_older_than_its_period_and_grace() -> None:
    job = job_get("check_tokens")  # daily, two hours grace
    completed("publish_due", T0)  # the scheduler's first run

    assert state_of(job.name, T0 + job.period + job.grace) == JobState.NEW
    assert state_of(job.name, T0 + job.period + job.grace + timedelta(seconds=1)) == JobState.DOWN


def test_the_jobs_watchdog_pings_the_heartbeat_url(settings, recording_server: RecordingServer) -> None:
    settings.WATCHDOG_HEARTBEAT_URL = recording_server.url
    counts = watchdog_jobs()
    assert counts["heartbeat_sent"] == 1
    assert [r.method for r in recording_server.received] == ["GET"]


def test_a_failed_heartbeat_is_counted_not_raised(settings, recording_server: RecordingServer) -> None:
    settings.WATCHDOG_HEARTBEAT_URL = recording_server.url
    recording_server.statuses = [500]
    assert watchdog_jobs()["heartbeat_failed"] == 1


# --- Research -----------------------------------------------------------------------------


def subscribed_source(account: Account, **fields: object) -> Source:
    source = Source.objects.create(url=f"https://feeds.example/{Source.objects.count()}.xml", **fields)
    Subscription.objects.create(account=account, source=source)
    return source


def test_an_account_whose_latest_research_run_yielded_nothing_alarms_until_one_does(account: Account) -> None:
    subscribed_source(account)
    ResearchRun.objects.create(account=account, finished_at=T0, new_articles=4, usable_articles=0)

    watchdog_research()
    assert open_alarms(Kind.RESEARCH_STARVED) == {(Kind.RESEARCH_STARVED, "")}
    assert Alarm.objects.get(kind=Kind.RESEARCH_STARVED).details["reason"] == "no_usable_articles"

    ResearchRun.objects.create(account=account, finished_at=T0 + timedelta(hours=3), usable_articles=2)
    watchdog_research()
    assert open_alarms(Kind.RESEARCH_STARVED) == set()


@override_settings(WATCHDOG_RESEARCH_QUIET_HOURS=24)
def test_runs_with_nothing_new_alarm_only_once_a_whole_quiet_window_found_nothing_usable(account: Account) -> None:
    subscribed_source(account)
    every_three_hours = [T0 + timedelta(hours=3 * i) for i in range(10)]
    # given a run that found usable articles, then quiet runs every three hours
    ResearchRun.objects.create(account=account, finished_at=every_three_hours[0], new_articles=6, usable_articles=6)
    for at in every_three_hours[1:9]:
        ResearchRun.objects.create(account=account, finished_at=at, usable_articles=0)
        with time_machine.travel(at, tick=False):
            watchdog_research()
        # then nothing alarms while the good run is within the window (the last at T0 + 24 h)
        assert open_alarms(Kind.RESEARCH_STARVED) == set(), at

    # and the first quiet run past the window alarms
    ResearchRun.objects.create(account=account, finished_at=every_three_hours[9], usable_articles=0)
    with time_machine.travel(every_three_hours[9], tick=False):
        watchdog_research()
    assert Alarm.objects.get(kind=Kind.RESEARCH_STARVED).details["reason"] == "no_usable_articles"


def test_a_subscribed_account_with_no_research_run_past_the_jobs_period_and_grace_alarms(account: Account) -> None:
    research = job_get("research_feeds")
    overdue = research.period + research.grace
    # given an account subscribed at T0 that the research run never served
    with time_machine.travel(T0, tick=False):
        subscribed_source(account)

    with time_machine.travel(T0 + overdue, tick=False):
        watchdog_research()
    assert open_alarms(Kind.RESEARCH_STARVED) == set()

    with time_machine.travel(T0 + overdue + timedelta(seconds=1), tick=False):
        watchdog_research()
    alarm = Alarm.objects.get(kind=Kind.RESEARCH_STARVED, resolved_at__isnull=True)
    assert alarm.details["reason"] == "no_recent_run"
    assert alarm.details["run_id"] is None

    # when a run finally serves it with usable articles, the alarm resolves
    later = T0 + overdue + timedelta(minutes=5)
    with time_machine.travel(later, tick=False):
        ResearchRun.objects.create(account=account, finished_at=later, new_articles=3, usable_articles=3)
        watchdog_research()
    assert open_alarms(Kind.RESEARCH_STARVED) == set()

    # and a run that was fine but is now older than period + grace alarms again
    with time_machine.travel(later + overdue + timedelta(seconds=1), tick=False):
        watchdog_research()
    assert open_alarms(Kind.RESEARCH_STARVED) == {(Kind.RESEARCH_STARVED, "")}


def test_research_overdue_is_the_research_jobs_period_and_grace_by_default(settings) -> None:
    research = job_get("research_feeds")
    assert timedelta(seconds=settings.WATCHDOG_RESEARCH_OVERDUE_S) == research.period + research.grace


def test_a_shorter_research_overdue_alarms_sooner_and_resolves_with_the_next_run(settings, account: Account) -> None:
    # The fault night's watchdog clock: two and a half minutes instead of four hours.
    settings.WATCHDOG_RESEARCH_OVERDUE_S = 150
    subscribed_source(account)
    Subscription.objects.update(created_at=T0 - timedelta(hours=1))
    with time_machine.travel(T0, tick=False):
        ResearchRun.objects.create(account=account, finished_at=T0, new_articles=3, usable_articles=3)

    with time_machine.travel(T0 + timedelta(seconds=150), tick=False):
        watchdog_research()
    assert open_alarms(Kind.RESEARCH_STARVED) == set()
    with time_machine.travel(T0 + timedelta(seconds=151), tick=False):
        watchdog_research()
    assert Alarm.objects.get(kind=Kind.RESEARCH_STARVED, resolved_at__isnull=True).details["reason"] == "no_recent_run"

    # the next run finds nothing new (the feeds were read a minute ago): on time is enough
    with time_machine.travel(T0 + timedelta(seconds=200), tick=False):
        ResearchRun.objects.create(account=account, finished_at=timezone.now(), new_articles=0, usable_articles=0)
        watchdog_research()
    assert open_alarms(Kind.RESEARCH_STARVED) == set()


def test_a_source_failing_for_a_fraction_of_an_hour_alarms_for_its_account(settings, account: Account) -> None:
    settings.WATCHDOG_SOURCE_FAILING_HOURS = 0.05  # three minutes
    with time_machine.travel(T0, tick=False):
        source = subscribed_source(account, consecutive_failures=1, last_error_kind="http_404")

    with time_machine.travel(T0 + timedelta(seconds=179), tick=False):
        watchdog_research()
    assert open_alarms(Kind.SOURCE_FAILING_FOR_ACCOUNT) == set()
    with time_machine.travel(T0 + timedelta(seconds=181), tick=False):
        watchdog_research()
    assert open_alarms(Kind.SOURCE_FAILING_FOR_ACCOUNT) == {(Kind.SOURCE_FAILING_FOR_ACCOUNT, f"source:{source.pk}")}

    # read successfully again: resolved
    Source.objects.filter(pk=source.pk).update(consecutive_failures=0, last_success_at=T0 + timedelta(seconds=190))
    with time_machine.travel(T0 + timedelta(seconds=200), tick=False):
        watchdog_research()
    assert open_alarms(Kind.SOURCE_FAILING_FOR_ACCOUNT) == set()


@override_settings(WATCHDOG_SOURCE_MAX_FAILURES=3)
def test_a_source_failing_n_times_in_a_row_alarms_without_showing_its_url(account: Account) -> None:
    failing = subscribed_source(account, consecutive_failures=3, last_error_kind="blocked", title="Trade News")
    subscribed_source(account, consecutive_failures=2)

    watchdog_research()

    alarm = Alarm.objects.get(kind=Kind.SOURCE_FAILING)
    assert alarm.subject == f"source:{failing.pk}"
    assert alarm.details["last_error_kind"] == "blocked"
    assert "feeds.example" not in str(alarm.details)


# --- Gate and LLM -------------------------------------------------------------------------


def gated_drafts(account: Account, verdicts: list[str]) -> None:
    for verdict in verdicts:
        draft = draft_create(account=account, gate_verdict=verdict)
        Draft.objects.filter(pk=draft.pk).update(gated_at=T0)


@override_settings(WATCHDOG_GATE_MIN_DRAFTS=10)
def test_a_gate_that_rejected_every_one_of_enough_drafts_alarms(account: Account) -> None:
    gated_drafts(account, ["rejected"] * 9)
    with time_machine.travel(T0, tick=False):
        watchdog_gate_llm()
    assert open_alarms(Kind.GATE_REJECTS_ALL) == set()

    gated_drafts(account, ["no_substance"])
    with time_machine.travel(T0, tick=False):
        watchdog_gate_llm()
    assert open_alarms(Kind.GATE_REJECTS_ALL) == {(Kind.GATE_REJECTS_ALL, "")}

    gated_drafts(account, ["passed"])
    with time_machine.travel(T0, tick=False):
        watchdog_gate_llm()
    assert open_alarms(Kind.GATE_REJECTS_ALL, Kind.GATE_PASSES_ALL) == set()


@override_settings(WATCHDOG_GATE_MIN_DRAFTS=10)
def test_a_gate_that_passed_every_draft_alarms(account: Account) -> None:
    gated_drafts(account, ["passed"] * 10)
    with time_machine.travel(T0, tick=False):
        watchdog_gate_llm()
    assert open_alarms(Kind.GATE_PASSES_ALL) == {(Kind.GATE_PASSES_ALL, "")}


def llm_calls(n: int, **fields: object) -> None:
    fields.setdefault("status", LLMUsage.Status.OK)
    fields.setdefault("key_fingerprint", "sha256:aaaa")
    for _ in range(n):
        LLMUsage.objects.create(model="gpt-4o-mini", purpose="compose", **fields)


@override_settings(WATCHDOG_LLM_MAX_ERRORS=10, WATCHDOG_LLM_WINDOW_MINUTES=60)
def test_a_storm_of_429s_or_errors_from_the_llm_alarms() -> None:
    with time_machine.travel(T0, tick=False):
        llm_calls(4, status=LLMUsage.Status.RATE_LIMITED, throttled_responses=3)
        llm_calls(10, status=LLMUsage.Status.API_ERROR, detail="401 invalid api key")
        watchdog_gate_llm()
    assert open_alarms(Kind.LLM_THROTTLED, Kind.LLM_ERRORS) == {(Kind.LLM_THROTTLED, ""), (Kind.LLM_ERRORS, "")}

    # An hour later the storm is out of the window and both alarms resolve.
    with time_machine.travel(T0 + timedelta(minutes=61), tick=False):
        watchdog_gate_llm()
    assert open_alarms(Kind.LLM_THROTTLED, Kind.LLM_ERRORS) == set()


def test_a_change_of_the_llm_key_in_use_alarms() -> None:
    with time_machine.travel(T0, tick=False):
        llm_calls(2, key_fingerprint="sha256:aaaa")
        watchdog_gate_llm()
        assert open_alarms(Kind.LLM_KEY_CHANGED) == set()
        llm_calls(1, key_fingerprint="sha256:bbbb")
        watchdog_gate_llm()
    alarm = Alarm.objects.get(kind=Kind.LLM_KEY_CHANGED)
    assert alarm.details["key_fingerprints"] == ["sha256:aaaa", "sha256:bbbb"]

    # Once the old key is out of the comparison window the new key is the norm: resolved.
    with time_machine.travel(T0 + timedelta(hours=24, seconds=1), tick=False):
        llm_calls(1, key_fingerprint="sha256:bbbb")
        watchdog_gate_llm()
    assert open_alarms(Kind.LLM_KEY_CHANGED) == set()


def test_a_change_of_the_llm_organisation_alarms() -> None:
    with time_machine.travel(T0, tick=False):
        llm_calls(1, organization="org-landed")
        llm_calls(1, organization="org-someone-else")
        watchdog_gate_llm()
    assert Alarm.objects.get(kind=Kind.LLM_KEY_CHANGED).details["organizations"] == [
        "org-landed",
        "org-someone-else",
    ]


# --- Publishing ---------------------------------------------------------------------------


@override_settings(WATCHDOG_STUCK_MINUTES=60)
def test_publications_stuck_unknown_or_unconfirmed_alarm_per_account(account: Account, other_account: Account) -> None:
    with time_machine.travel(T0, tick=False):
        stuck = publication_create(account=account, status=Publication.Status.UNKNOWN)
        unconfirmed = publication_create(account=account, status=Publication.Status.UNCONFIRMED)
        publication_create(account=other_account, status=Publication.Status.UNKNOWN)
    with time_machine.travel(T0 + timedelta(minutes=30), tick=False):
        publication_create(account=other_account, status=Publication.Status.UNKNOWN)

    with time_machine.travel(T0 + timedelta(minutes=61), tick=False):
        counts = watchdog_publishing()

    alarms = {a.account_id: a for a in Alarm.objects.filter(kind=Kind.PUBLICATIONS_STUCK)}
    assert set(alarms) == {account.pk, other_account.pk}
    assert alarms[account.pk].details["publication_ids"] == sorted([stuck.pk, unconfirmed.pk])
    assert alarms[other_account.pk].details["unknown"] == 1
    assert counts["publications_stuck"] == 3


@override_settings(WATCHDOG_STUCK_MINUTES=60)
def test_an_unknown_publication_that_reconcile_keeps_touching_still_counts_as_stuck(account: Account) -> None:
    # given a write started at T0 whose answer was lost
    with time_machine.travel(T0, tick=False):
        unknown = publication_create(account=account, status=Publication.Status.UNKNOWN, publishing_started_at=T0)
    # and a read-back that did not find the post a minute before the watchdog runs
    with time_machine.travel(T0 + timedelta(minutes=60), tick=False):
        Publication.objects.filter(pk=unknown.pk).update(failure_reason="not listed yet", updated_at=timezone.now())

    with time_machine.travel(T0 + timedelta(minutes=60), tick=False):
        watchdog_publishing()
    assert open_alarms(Kind.PUBLICATIONS_STUCK) == set()

    with time_machine.travel(T0 + timedelta(minutes=61), tick=False):
        counts = watchdog_publishing()
    assert counts["publications_stuck"] == 1
    assert Alarm.objects.get(kind=Kind.PUBLICATIONS_STUCK).details["publication_ids"] == [unknown.pk]


@override_settings(WATCHDOG_TOKEN_EXPIRY_DAYS=7)
def test_channels_needing_reconnect_and_tokens_expiring_within_seven_days_alarm(account: Account) -> None:
    with time_machine.travel(T0, tick=False):
        broken = channel_create(account=account, status=Channel.Status.NEEDS_RECONNECT, status_reason="code 190")
        expiring = channel_create(account=account, token_expires_at=T0 + timedelta(days=6, hours=23))
        channel_create(account=account, token_expires_at=T0 + timedelta(days=8))
        channel_create(account=account, token_expires_at=None)
        watchdog_publishing()

    assert open_alarms(Kind.CHANNEL_NEEDS_RECONNECT, Kind.TOKEN_EXPIRING) == {
        (Kind.CHANNEL_NEEDS_RECONNECT, f"channel:{broken.pk}"),
        (Kind.TOKEN_EXPIRING, f"channel:{expiring.pk}"),
    }

    Channel.objects.filter(pk=broken.pk).update(status=Channel.Status.CONNECTED)
    with time_machine.travel(T0, tick=False):
        watchdog_publishing()
    assert open_alarms(Kind.CHANNEL_NEEDS_RECONNECT) == set()


# --- Connect funnel -----------------------------------------------------------------------


@override_settings(WATCHDOG_CONNECT_WINDOW_HOURS=24, WATCHDOG_CONNECT_SETTLE_MINUTES=30)
def test_connects_started_with_none_bound_alarm_per_platform_once_they_had_time_to_finish(account: Account) -> None:
    def event(platform: str, kind: str) -> None:
        ConnectEvent.objects.create(platform=platform, account=account, kind=kind)

    # given two Facebook connects that never bound and an Instagram one that did
    with time_machine.travel(T0, tick=False):
        event("facebook_page", ConnectEvent.Kind.STARTED)
        event("facebook_page", ConnectEvent.Kind.STARTED)
        event("instagram", ConnectEvent.Kind.STARTED)
        event("instagram", ConnectEvent.Kind.BOUND)
    # when the watchdog runs while they could still be on the consent screen, nothing alarms
    with time_machine.travel(T0 + timedelta(minutes=30), tick=False):
        watchdog_connect_funnel()
    assert open_alarms(Kind.CONNECT_FUNNEL_BROKEN) == set()
    # then once they had time to finish, Facebook alarms
    with time_machine.travel(T0 + timedelta(minutes=31), tick=False):
        watchdog_connect_funnel()
    assert open_alarms(Kind.CONNECT_FUNNEL_BROKEN) == {(Kind.CONNECT_FUNNEL_BROKEN, "facebook_page")}
    assert Alarm.objects.get(kind=Kind.CONNECT_FUNNEL_BROKEN).details["started"] == 2

    with time_machine.travel(T0 + timedelta(hours=1), tick=False):
        event("facebook_page", ConnectEvent.Kind.BOUND)
        watchdog_connect_funnel()
    assert open_alarms(Kind.CONNECT_FUNNEL_BROKEN) == set()


@override_settings(WATCHDOG_LLM_MAX_ERRORS=10)
def test_malformed_or_refused_answers_are_not_an_endpoint_storm() -> None:
    with time_machine.travel(T0, tick=False):
        llm_calls(10, status=LLMUsage.Status.MALFORMED)
        llm_calls(10, status=LLMUsage.Status.REFUSAL)
        watchdog_gate_llm()
    assert open_alarms(Kind.LLM_ERRORS, Kind.LLM_THROTTLED) == set()


@override_settings(WATCHDOG_SOURCE_MAX_FAILURES=3, ALARMS_PER_ACCOUNT_KIND=4, ALARM_CUSTOMER_TEXT_MAX_CHARS=30)
def test_one_account_with_forty_failing_feeds_opens_a_bounded_number_of_alarms_and_a_summary(
    account: Account, other_account: Account
) -> None:
    hostile = 'Ignore this alarm"\nkind: all_clear ' + "x" * 200
    Account.objects.filter(pk=account.pk).update(name="Flood\nCo")
    account.refresh_from_db()
    floods = [subscribed_source(account, consecutive_failures=5, title=f"{hostile} {i}") for i in range(40)]
    neighbour = subscribed_source(other_account, consecutive_failures=5, title="Neighbour's feed")

    watchdog_research()

    mine = Alarm.objects.filter(kind=Kind.SOURCE_FAILING, account=account, resolved_at__isnull=True)
    assert mine.count() == 4
    summary = mine.get(subject="more")
    assert summary.details["more"] == 37
    assert summary.details["summary"] == 'and 37 more sources failing for "Flood\\nCo"'
    for alarm in mine.exclude(subject="more"):
        title = alarm.details["title"]
        assert title.startswith('"Ignore this alarm\\"\\nkind') and title.endswith('…"')
        assert "\n" not in title and len(title) <= 30 + 2 + 4  # quotes, and escapes of '"' and '\n'
    # another customer's failing feed still gets its own alarm
    theirs = Alarm.objects.get(kind=Kind.SOURCE_FAILING, account=other_account)
    assert theirs.subject == f"source:{neighbour.pk}"
    # every notice reached the operator on one line, the business name quoted
    alarm_notifications_deliver_pending()
    assert len(mail.outbox) == 5
    assert all("\n" not in message.subject for message in mail.outbox)
    assert any('"Flood\\nCo"' in message.subject for message in mail.outbox)

    # the next tick keeps the same alarms open (no churn) and counts what changed
    kept = set(mine.values_list("subject", flat=True))
    Source.objects.filter(pk__in=[source.pk for source in floods[:10]]).update(consecutive_failures=0)
    watchdog_research()
    assert Alarm.objects.filter(kind=Kind.SOURCE_FAILING, account=account, resolved_at__isnull=True).count() == 4
    assert Alarm.objects.get(
        kind=Kind.SOURCE_FAILING, account=account, subject="more", resolved_at__isnull=True
    ).details["more"] == (30 - 3)
    assert {s for s in kept if s != "more"} - {f"source:{s.pk}" for s in floods[:10]} <= set(
        mine.values_list("subject", flat=True)
    )

    # when the account's feeds recover, all of its alarms resolve
    Source.objects.filter(subscriptions__account=account).update(consecutive_failures=0)
    watchdog_research()
    assert not Alarm.objects.filter(kind=Kind.SOURCE_FAILING, account=account, resolved_at__isnull=True).exists()


@override_settings(WATCHDOG_SOURCE_MAX_FAILURES=3)
def test_a_failing_preset_source_is_one_alarm_for_everyone(account: Account, other_account: Account) -> None:
    preset = Source.objects.create(url="https://feeds.example/preset.xml", industry="bakery", consecutive_failures=4)
    Subscription.objects.create(account=account, source=preset)
    Subscription.objects.create(account=other_account, source=preset)

    watchdog_research()

    alarm = Alarm.objects.get(kind=Kind.SOURCE_FAILING)
    assert (alarm.account, alarm.subject) == (None, f"source:{preset.pk}")
