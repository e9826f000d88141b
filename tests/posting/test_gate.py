"""The factual gate on stored drafts, and its two operator commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from accounts.models import Account
from posting.gate.evaluation import GATES, labelled_set_load, score_articles, target_failures
from posting.gate.services import draft_gate, drafts_gate_pending
from posting.models import Draft, VoiceProfile
from research.models import Article
from tests import factories

TITLE = "Harbour Bikes opens a second shop"
BODY = (
    "The cycle retailer opened a second shop in Leith on Monday, its owner said.\n"
    "The new shop employs 12 mechanics and stocks 400 bicycles.\n"
    "Owner Jane Smith said demand rose 20 percent in 2025, mostly for electric cargo bikes."
)


def drafted(account: Account, text: str, *, body: str = BODY, slug: str = "a") -> Draft:
    article = factories.article_create(url=f"https://news.example/{slug}", title=TITLE, text=body)
    return factories.draft_create(account=account, article=article, text=text, status="drafted", gate_verdict="")


@pytest.mark.django_db
def test_it_stores_the_verdict_claims_and_evidence_and_marks_the_draft_gated(account: Account) -> None:
    draft = drafted(account, "The new shop employs 12 mechanics and stocks 400 bicycles. #cycling")

    gated = draft_gate(draft_id=draft.pk)

    assert gated.status == Draft.Status.GATED
    assert gated.gate_verdict == Draft.Verdict.PASSED
    assert gated.gated_at is not None
    assert gated.gate_reason
    assert gated.gate_claims == [
        {
            "text": "The new shop employs 12 mechanics and stocks 400 bicycles.",
            "class": "claim",
            "supported": True,
            "evidence": [{"sentence": 2, "text": "The new shop employs 12 mechanics and stocks 400 bicycles."}],
            "reason": "Supported by the cited sentences.",
        },
        {
            "text": "#cycling",
            "class": "hashtags",
            "supported": True,
            "evidence": [],
            "reason": "Not checked: hashtags and mentions.",
        },
    ]


@pytest.mark.django_db
def test_it_judges_against_the_full_body_not_the_headline(account: Account) -> None:
    # The headline says nothing about demand: only the body supports this draft.
    draft = drafted(account, "Owner Jane Smith said demand rose 20 percent in 2025.")

    assert draft_gate(draft_id=draft.pk).gate_verdict == Draft.Verdict.PASSED


@pytest.mark.django_db
def test_gating_twice_changes_nothing(account: Account) -> None:
    draft = drafted(account, "Demand rose 45 percent in 2025.")
    first = draft_gate(draft_id=draft.pk)

    second = draft_gate(draft_id=draft.pk)

    assert first.gate_verdict == second.gate_verdict == Draft.Verdict.REJECTED
    assert second.gated_at == first.gated_at
    assert "45" in second.gate_reason


@pytest.mark.django_db
def test_a_draft_a_human_already_decided_is_left_alone(account: Account) -> None:
    draft = factories.draft_create(account=account, status="approved", gate_verdict="passed")

    assert draft_gate(draft_id=draft.pk).status == Draft.Status.APPROVED


@pytest.mark.django_db
def test_an_article_without_text_rejects_the_draft_with_the_reason(account: Account) -> None:
    draft = drafted(account, "The new shop employs 12 mechanics.", body="")
    Article.objects.filter(pk=draft.article_id).update(extraction_status=Article.Extraction.BLOCKED)

    gated = draft_gate(draft_id=draft.pk)

    assert gated.gate_verdict == Draft.Verdict.REJECTED
    assert "no extracted text" in gated.gate_reason
    assert "Blocked" in gated.gate_reason


@pytest.mark.django_db
def test_the_accounts_own_names_are_not_claims_but_facts_about_the_business_are(account: Account) -> None:
    account.own_names = ["Harbour Bikes", "@harbourbikes"]
    account.save()
    shout_out = drafted(
        account, "The new shop employs 12 mechanics. Come and see Harbour Bikes! @harbourbikes", slug="a"
    )
    boast = drafted(account, "Harbour Bikes has won awards for its repairs since 1998.", slug="b")

    assert draft_gate(draft_id=shout_out.pk).gate_verdict == Draft.Verdict.PASSED
    assert draft_gate(draft_id=boast.pk).gate_verdict == Draft.Verdict.REJECTED


@pytest.mark.django_db
def test_drafts_gate_pending_gates_every_waiting_draft_and_counts_the_verdicts(account: Account) -> None:
    drafted(account, "The new shop employs 12 mechanics and stocks 400 bicycles.", slug="a")
    drafted(account, "The new shop employs 15 mechanics.", slug="b")
    drafted(account, "Big news, stay tuned! #cycling", slug="c")
    factories.draft_create(account=account, status="gated", gate_verdict="passed")

    counts = drafts_gate_pending()

    assert counts == {"gated": 3, "passed": 1, "rejected": 1, "no_substance": 1}
    assert not Draft.objects.filter(status=Draft.Status.DRAFTED).exists()
    assert drafts_gate_pending() == {"gated": 0, "passed": 0, "rejected": 0, "no_substance": 0}


def test_gate_check_prints_the_verdict_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "article.txt"
    draft = tmp_path / "draft.txt"
    source.write_text(f"{TITLE}\n{BODY}\n", encoding="utf-8")
    draft.write_text("The new shop employs 12 mechanics. It employs 30 mechanics. #cycling\n", encoding="utf-8")

    call_command("gate_check", "--source", str(source), "--draft", str(draft), "--json")

    printed = json.loads(capsys.readouterr().out)
    assert printed["verdict"] == "rejected"
    assert [set(claim) for claim in printed["claims"]] == [{"text", "class", "supported", "evidence", "reason"}] * 3
    assert [claim["class"] for claim in printed["claims"]] == ["claim", "claim", "hashtags"]
    assert [claim["supported"] for claim in printed["claims"]] == [True, False, True]
    assert printed["claims"][2]["reason"] == "Not checked: hashtags and mentions."
    assert printed["claims"][0]["evidence"] == [
        {"sentence": 2, "text": "The new shop employs 12 mechanics and stocks 400 bicycles."}
    ]


def test_gate_check_refuses_a_missing_file_with_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no such file"):
        call_command("gate_check", "--source", str(tmp_path / "nope.txt"), "--draft", str(tmp_path / "nope.txt"))


def test_gate_eval_prints_the_gate_next_to_both_baselines_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("gate_eval", "--json")

    printed = json.loads(capsys.readouterr().out)
    assert printed["ok"] is True
    scores = printed["splits"]["all"]
    assert set(scores) >= {"gate", "headline_only", "always_pass", "articles"}
    assert scores["always_pass"]["balanced_accuracy"] == 0.5
    assert scores["headline_only"]["supported_by_tag"]["body"] == 0.0


def test_the_gate_meets_its_targets_on_the_labelled_set() -> None:
    # This is what makes CI fail when a change makes the gate worse than issue 4 allows:
    # balanced accuracy >= 0.90, false rejections <= 5%, every error kind caught >= 80%,
    # and no post without substance ever passes.
    articles = labelled_set_load(split="all")
    score = score_articles(articles, GATES["gate"])

    assert len(articles) >= 40
    assert score.supported + score.unsupported >= 300
    assert target_failures(score) == []
    assert score.no_substance_posts >= 40
    # The headline-only gate, the failure this design exists for, stays far below.
    assert score_articles(articles, GATES["headline_only"]).balanced_accuracy < 0.6


@pytest.mark.django_db
def test_the_accounts_name_is_not_a_claim_even_when_it_lists_no_other_names(account: Account) -> None:
    # The fixture account is called "Harbour Bikes" and lists no own_names.
    draft = drafted(account, "The new shop employs 12 mechanics.\n\nRide safe, the Harbour Bikes crew")

    assert draft_gate(draft_id=draft.pk).gate_verdict == Draft.Verdict.PASSED


@pytest.mark.django_db
def test_a_sign_off_learned_from_the_accounts_past_posts_is_not_a_claim(account: Account) -> None:
    # given a sign-off naming a person the article never mentions
    sign_off = "Ride safe - Dave and the crew"
    before = drafted(account, f"The new shop employs 12 mechanics.\n\n{sign_off}", slug="before")
    after = drafted(account, f"The new shop employs 12 mechanics. {sign_off} 🚲 #cycling", slug="after")
    edited = drafted(account, f"The new shop employs 12 mechanics.\n\n{sign_off}, fixing bikes since 1998", slug="e")

    # when the gate has not learned it, then it is judged as a claim and rejected
    assert draft_gate(draft_id=before.pk).gate_verdict == Draft.Verdict.REJECTED

    # when the account's voice (on another platform) has learned it as a sign-off
    VoiceProfile.objects.create(account=account, platform="instagram", stats={"sign_offs": [sign_off]})

    # then it is the business's own words, but a new fact tacked onto it is still a claim
    assert draft_gate(draft_id=after.pk).gate_verdict == Draft.Verdict.PASSED
    rejected = draft_gate(draft_id=edited.pk)
    assert rejected.gate_verdict == Draft.Verdict.REJECTED
    assert "1998" in rejected.gate_reason


def test_gate_check_takes_the_businesss_sign_offs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "article.txt"
    draft = tmp_path / "draft.txt"
    source.write_text(f"{TITLE}\n{BODY}\n", encoding="utf-8")
    draft.write_text("The new shop employs 12 mechanics.\n\nRide safe - Dave and the crew\n", encoding="utf-8")

    call_command("gate_check", "--source", str(source), "--draft", str(draft), "--json")
    without = json.loads(capsys.readouterr().out)
    call_command(
        "gate_check", "--source", str(source), "--draft", str(draft), "--sign-off", "Ride safe - Dave and the crew"
    )

    assert without["verdict"] == "rejected"
    assert capsys.readouterr().out.startswith("verdict: passed")


def test_gate_eval_without_the_labelled_set_says_where_it_looked(tmp_path: Path) -> None:
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "01-bad.txt").write_text("title: A headline\n\nA body.\n\n== claims\nmaybe | a claim\n")

    with pytest.raises(CommandError, match="No labelled articles for split 'holdout'"):
        call_command("gate_eval", "--split", "holdout", "--data-dir", str(tmp_path))
    with pytest.raises(CommandError, match=r"cannot be read: 01-bad\.txt: unknown claim label 'maybe'"):
        call_command("gate_eval", "--split", "dev", "--data-dir", str(tmp_path))


def test_gate_check_lists_every_sentence_with_its_class(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "article.txt"
    draft = tmp_path / "draft.txt"
    source.write_text(f"{TITLE}\n{BODY}\n", encoding="utf-8")
    draft.write_text(
        "Big news! 🚲 The new shop employs 12 mechanics. The shop was closed. Who's visiting? "
        "Book a service today. Harbour Bikes\n\nRide safe - Dave and the crew #cycling\n",
        encoding="utf-8",
    )

    call_command(
        "gate_check",
        "--source",
        str(source),
        "--draft",
        str(draft),
        "--own-name",
        "Harbour Bikes",
        "--sign-off",
        "Ride safe - Dave and the crew",
        "--json",
    )

    printed = json.loads(capsys.readouterr().out)
    assert set(printed) == {"verdict", "claims"}
    assert printed["verdict"] == "rejected"
    assert [(claim["class"], claim["supported"]) for claim in printed["claims"]] == [
        ("exclamation", True),
        ("claim", True),
        ("claim", False),
        ("question", True),
        ("call_to_action", True),
        ("own_name", True),
        ("sign_off", True),
        ("hashtags", True),
    ]
    assert printed["claims"][2]["reason"].startswith("The article ")
    assert '"closed"' in printed["claims"][2]["reason"]
    assert printed["claims"][0]["reason"] == "Not checked: an exclamation that states no fact."
