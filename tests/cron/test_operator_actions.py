"""Issue 12 items 7 and 5: the operator's actions, each audited (run a stage now, pause and
resume, resolve an alarm, retry a failed publication once when nothing landed), and the
read-only support view of a customer's pages, recorded and listed, with no way to approve."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from accounts.models import Account
from cron.models import Alarm, JobRun, OperatorAction
from cron.services import alarm_open
from posting.models import Draft
from publish.kinds import FailureKind
from publish.models import Publication
from research.models import ResearchRun
from tests import factories
from tests.cron.rows import publication_create

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def quiet(settings) -> None:
    settings.OPERATOR_EMAILS = []
    settings.ALARM_WEBHOOK_URL = ""


def signed_in(username: str, *, staff: bool) -> Client:
    User.objects.create_user(username=username, password=PASSWORD, is_staff=staff)
    client = Client(enforce_csrf_checks=True)
    client.get("/login/")
    token = client.cookies["csrftoken"].value
    # Through the login form: django-axes authenticates with the request.
    assert (
        client.post("/login/", {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token}).status_code
        == 302
    )
    return client


def post(client: Client, url: str) -> int:
    return client.post(url, {"csrfmiddlewaretoken": client.cookies["csrftoken"].value}).status_code


def actions() -> list[tuple[str, str, str, bool]]:
    return list(OperatorAction.objects.order_by("pk").values_list("username", "action", "target", "ok"))


def test_staff_pause_and_resume_an_account_each_audited_and_members_cannot(account: Account, member) -> None:
    operator = signed_in("operator", staff=True)
    assert post(operator, f"/ops/accounts/{account.slug}/pause/") == 302
    account.refresh_from_db()
    assert account.paused
    assert post(operator, f"/ops/accounts/{account.slug}/resume/") == 302
    account.refresh_from_db()
    assert not account.paused
    assert actions() == [("operator", "pause", "", True), ("operator", "resume", "", True)]

    customer = Client(enforce_csrf_checks=True)
    customer.force_login(member)
    customer.get("/login/")
    assert post(customer, f"/ops/accounts/{account.slug}/pause/") == 403
    # and without the CSRF token even staff are refused
    assert operator.post(f"/ops/accounts/{account.slug}/pause/").status_code == 403
    assert len(actions()) == 2


def test_running_a_stage_now_records_its_job_run_and_the_action(
    account: Account, django_capture_on_commit_callbacks
) -> None:
    from config.celery_app import app as celery_app

    # In-process, as the embedded default runs it; the worker path is the same task.
    celery_app.conf.task_always_eager = True
    try:
        operator = signed_in("operator", staff=True)
        with django_capture_on_commit_callbacks(execute=True):
            assert post(operator, f"/ops/accounts/{account.slug}/run/research/") == 302
        assert post(operator, f"/ops/accounts/{account.slug}/run/nonsense/") == 302
    finally:
        celery_app.conf.task_always_eager = False
    run = JobRun.objects.get(job="research_feeds")
    assert (run.trigger, run.outcome) == ("console", JobRun.Outcome.OK)
    assert ResearchRun.objects.filter(account=account).exists()
    assert actions() == [("operator", "run_stage", "research", True), ("operator", "run_stage", "nonsense", False)]


def test_resolving_an_alarm_is_audited_and_a_second_resolve_is_refused(account: Account) -> None:
    alarm, _ = alarm_open(kind="nothing_landed", account=account, details={})
    operator = signed_in("operator", staff=True)
    assert post(operator, f"/ops/alarms/{alarm.pk}/resolve/") == 302
    assert Alarm.objects.get(pk=alarm.pk).resolved_at is not None
    page = operator.get(f"/ops/alarms/{alarm.pk}/resolve/")
    assert page.status_code == 405
    assert post(operator, f"/ops/alarms/{alarm.pk}/resolve/") == 302
    assert actions() == [
        ("operator", "resolve_alarm", f"alarm:{alarm.pk}", True),
        ("operator", "resolve_alarm", f"alarm:{alarm.pk}", False),
    ]


def test_a_refused_publication_is_retried_once_and_one_with_a_platform_id_never(account: Account) -> None:
    refused = publication_create(
        account=account, status=Publication.Status.FAILED, failure_kind=FailureKind.PERMANENT, failure_reason="(#100)"
    )
    maybe_live = publication_create(
        account=account, status=Publication.Status.FAILED, failure_kind=FailureKind.GAVE_UP, platform_post_id="1_2"
    )
    operator = signed_in("operator", staff=True)

    assert post(operator, f"/ops/publications/{refused.pk}/retry/") == 302
    refused.refresh_from_db()
    # scheduled again now, its failure cleared (the publish task is handed over on commit)
    assert (refused.status, refused.failure_kind, refused.failure_reason) == (Publication.Status.SCHEDULED, "", "")
    # once only: a second retry is refused whatever happened to the first
    Publication.objects.filter(pk=refused.pk).update(status=Publication.Status.FAILED, failure_kind="permanent")
    assert post(operator, f"/ops/publications/{refused.pk}/retry/") == 302
    assert post(operator, f"/ops/publications/{maybe_live.pk}/retry/") == 302
    maybe_live.refresh_from_db()
    assert maybe_live.status == Publication.Status.FAILED

    assert [(a[1], a[2], a[3]) for a in actions()] == [
        ("retry_publication", f"publication:{refused.pk}", True),
        ("retry_publication", f"publication:{refused.pk}", False),
        ("retry_publication", f"publication:{maybe_live.pk}", False),
    ]
    listed = operator.get("/ops/").content.decode()
    assert "already retried once" in listed and "refused" in listed


def test_the_support_view_shows_the_customers_drafts_read_only_records_each_opening_and_lists_it(
    account: Account,
) -> None:
    draft = factories.draft_create(account=account, text="Harbour Bikes opened a second shop in Leith on Monday.")
    operator = signed_in("operator", staff=True)

    page = operator.get(f"/ops/accounts/{account.slug}/view/drafts/")
    history = operator.get(f"/ops/accounts/{account.slug}/view/history/")

    assert page.status_code == 200 and history.status_code == 200
    body = page.content.decode()
    assert "second shop in Leith" in body
    assert "read only, and recorded" in body
    assert "Approve</button>" not in body and "Reject</button>" not in body
    assert [(a[1], a[2]) for a in actions()] == [("support_view", "drafts"), ("support_view", "history")]
    assert operator.get(f"/ops/accounts/{account.slug}/view/settings/").status_code == 404
    # staff cannot approve on the customer's behalf
    assert post(operator, f"/a/{account.slug}/drafts/{draft.pk}/approve/") == 404
    draft.refresh_from_db()
    assert draft.status == Draft.Status.GATED
    # the console lists who looked at which account
    assert "support_view" not in operator.get("/ops/").content.decode()  # shown by its label
    assert "Viewed as the customer sees it" in operator.get("/ops/").content.decode()


def test_the_support_view_shows_the_customers_queue_with_its_times_and_nothing_that_changes_it(
    account: Account,
) -> None:
    queued = publication_create(account=account, status=Publication.Status.SCHEDULED)
    operator = signed_in("operator", staff=True)

    response = operator.get(f"/ops/accounts/{account.slug}/view/queue/")

    assert response.status_code == 200
    body = response.content.decode()
    assert f'id="publication-{queued.pk}"' in body or queued.message[:30] in body
    assert "read only, and recorded" in body
    # no Post now, Move, Back to drafts or posting-times form: nothing a click could change
    assert "<form" not in body.split("<main>", 1)[1].split("</main>", 1)[0]
    assert [(a[1], a[2]) for a in actions()] == [("support_view", "queue")]


def test_a_customer_cannot_open_the_support_view(account: Account, member) -> None:
    client = Client()
    client.force_login(member)
    assert client.get(f"/ops/accounts/{account.slug}/view/drafts/").status_code == 403
    assert not OperatorAction.objects.exists()


def test_every_refused_action_is_audited_with_its_reason_and_tells_the_operator_why(account: Account) -> None:
    from cron.actions import (
        ActionRefused,
        account_stage_run_request,
        alarm_resolve_by_operator,
        publication_retry_by_operator,
    )

    operator = User.objects.create_user(username="operator", is_staff=True)
    maybe_live = publication_create(
        account=account, status=Publication.Status.FAILED, failure_kind=FailureKind.GAVE_UP, platform_post_id="1_2"
    )
    refusals = []
    for attempt in (
        lambda: account_stage_run_request(user=operator, account=account, stage="publish"),
        lambda: alarm_resolve_by_operator(user=operator, alarm_id=987654),
        lambda: publication_retry_by_operator(user=operator, publication_id=maybe_live.pk),
    ):
        with pytest.raises(ActionRefused) as refused:
            attempt()
        refusals.append(str(refused.value))
    OperatorAction.objects.create(
        user_id=operator.pk,
        username="operator",
        action=OperatorAction.Action.RETRY_PUBLICATION,
        target=f"publication:{maybe_live.pk}",
        ok=True,
    )
    with pytest.raises(ActionRefused) as again:
        publication_retry_by_operator(user=operator, publication_id=maybe_live.pk)
    refusals.append(str(again.value))

    assert refusals[:2] == [
        "No stage named 'publish'; the stages are research, compose, gate.",
        "This alarm is not open.",
    ]
    assert refusals[3] == "This publication was already retried once; look at why before anything else."
    rows = list(
        OperatorAction.objects.filter(ok=False)
        .order_by("pk")
        .values_list("username", "action", "account_id", "target", "detail")
    )
    assert rows == [
        ("operator", "run_stage", account.pk, "publish", "unknown stage"),
        ("operator", "resolve_alarm", None, "alarm:987654", "not open"),
        ("operator", "retry_publication", account.pk, f"publication:{maybe_live.pk}", refusals[2]),
        ("operator", "retry_publication", account.pk, f"publication:{maybe_live.pk}", "already retried once"),
    ]
    assert refusals[2]  # publish's own reason, passed on as it said it
