"""The generalisation set's loader and scorer (issue 9): ``manage.py gate_eval --set general``.

These tests check the measuring, not the gate: the targets are not asserted here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from posting.gate.core import PASSED, REJECTED, GateResult
from posting.gate.evaluation import Article
from posting.gate.generalisation import (
    GeneralSetError,
    general_article_parse,
    general_set_load,
    general_set_score,
    general_target_failures,
)

HEADER = "title: Harbour Bikes opens a second shop\nown_names: Harbour Bikes; @harbourbikes\n"
BODY = (
    "The cycle retailer opened a second shop in Leith on Monday, its owner said.\n\n"
    "The new shop employs 12 mechanics and stocks 400 bicycles.\n"
)


def article_write(folder: Path, name: str, drafts: str, *, header: str = HEADER, body: str = BODY) -> Path:
    path = folder / name
    path.write_text(f"{header}\n{body}\n== drafts\n{drafts}", encoding="utf-8")
    return path


def keyword_gate(text: str, article: Article) -> GateResult:
    """A stand-in gate for the arithmetic: it passes exactly the drafts that contain 'PASSME'."""
    return GateResult(verdict=PASSED if "PASSME" in text else REJECTED, claims=[], reason=f"keyword in {article.name}")


def test_it_reads_header_body_and_labelled_drafts(tmp_path: Path) -> None:
    path = article_write(
        tmp_path,
        "01-bikes.txt",
        "passed reorder emoji | 🚲 400 bicycles and 12 mechanics at the new shop!\n"
        "\n"
        "rejected short | The new shop opened on Monday. The owner is retiring.\n",
    )

    article = general_article_parse(path)

    assert article.name == "01-bikes"
    assert article.source.title == "Harbour Bikes opens a second shop"
    assert article.source.own_names == ["Harbour Bikes", "@harbourbikes"]
    assert article.source.body.startswith("The cycle retailer") and article.source.body.endswith("400 bicycles.")
    assert [(draft.honest, draft.tags, draft.line) for draft in article.drafts] == [
        (True, ("reorder", "emoji"), 9),
        (False, ("short",), 11),
    ]
    assert article.drafts[1].text == "The new shop opened on Monday. The owner is retiring."


@pytest.mark.parametrize(
    ("drafts", "message"),
    [
        ("held reorder | The new shop employs 12 mechanics.\n", "9: unknown label 'held'"),
        ("passed | The new shop employs 12 mechanics.\n", "9: an honest draft needs one or more tags"),
        ("passed reordered | The new shop employs 12 mechanics.\n", "unknown: reordered"),
        ("rejected | The new shop employs 12 mechanics.\n", "9: a rejected draft needs exactly one kind"),
        ("rejected short swap | The shop was fined.\n", "9: a rejected draft needs exactly one kind"),
        ("passed cta emoji\n", "9: a draft line is 'label | text'"),
        ("passed cta | \n", "9: a draft line with a label but no text"),
        ("passed cta | Drop by!\n== posts\npassed cta | Drop by!\n", "10: a second section '== posts'"),
    ],
)
def test_it_rejects_a_bad_draft_line_naming_file_and_line(tmp_path: Path, drafts: str, message: str) -> None:
    path = article_write(tmp_path, "02-bad.txt", drafts)

    with pytest.raises(GeneralSetError, match=r"02-bad\.txt:") as raised:
        general_article_parse(path)

    assert message in str(raised.value)


def test_it_rejects_a_draft_line_outside_the_drafts_section(tmp_path: Path) -> None:
    # A draft left in the body would become part of the article and support itself.
    path = article_write(
        tmp_path, "03-outside.txt", "passed cta | Drop by!\n", body=BODY + "\nrejected short | Fined.\n"
    )

    with pytest.raises(GeneralSetError, match=r"03-outside.txt:8: a draft line outside the '== drafts' section"):
        general_article_parse(path)


def test_it_rejects_an_unknown_section(tmp_path: Path) -> None:
    path = article_write(tmp_path, "04-claims.txt", "passed cta | Drop by!\n", body=BODY + "\n== claims\n")

    with pytest.raises(GeneralSetError, match=r"04-claims.txt:8: unknown section '== claims'"):
        general_article_parse(path)


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("title: Harbour Bikes opens a second shop\n", "no 'own_names' header line"),
        ("own_names: Harbour Bikes\n", "no 'title' header line"),
        ("title: A shop\nThe cycle retailer opened a second shop\n", "2: expected a header line"),
    ],
)
def test_it_rejects_a_missing_header(tmp_path: Path, header: str, message: str) -> None:
    path = article_write(tmp_path, "05-header.txt", "passed cta | Drop by!\n", header=header)

    with pytest.raises(GeneralSetError, match=r"05-header\.txt:") as raised:
        general_article_parse(path)

    assert message in str(raised.value)


def test_it_rejects_a_file_without_the_drafts_section(tmp_path: Path) -> None:
    path = tmp_path / "06-nodrafts.txt"
    path.write_text(f"{HEADER}\n{BODY}", encoding="utf-8")

    with pytest.raises(GeneralSetError, match=r"06-nodrafts.txt:\d+: no '== drafts' line"):
        general_article_parse(path)


def test_the_scores_are_the_rates_of_passed_verdicts_per_label_kind_and_tag(tmp_path: Path) -> None:
    # given two articles: 4 honest drafts (1 held back) and 4 rejected ones (3 caught)
    article_write(
        tmp_path,
        "01-a.txt",
        "passed reorder emoji | PASSME one\n"
        "passed cta | held back\n"
        "rejected short | caught\n"
        "rejected swap | PASSME slipped through\n",
    )
    article_write(
        tmp_path,
        "02-b.txt",
        "passed emoji | PASSME two\npassed opener | PASSME three\nrejected short | caught\nrejected detail | caught\n",
    )

    # when scored with a gate that passes exactly the PASSME drafts
    score = general_set_score(general_set_load(data_dir=tmp_path), gate=keyword_gate)
    report = score.as_dict(misses=True)

    # then honest pass 3/4 and catch 3/4 give balanced accuracy 0.75
    assert (report["drafts"], report["articles"]) == (8, 2)
    assert report["balanced_accuracy"] == 0.75
    assert (report["honest_held_back"], report["honest_held_back_rate"]) == (1, 0.25)
    assert report["caught_by_kind"] == {
        "short": {"caught": 2, "total": 2, "rate": 1.0},
        "swap": {"caught": 0, "total": 1, "rate": 0.0},
        "detail": {"caught": 1, "total": 1, "rate": 1.0},
    }
    assert report["held_back_by_tag"]["emoji"] == {"held_back": 0, "total": 2, "rate": 0.0}
    assert report["held_back_by_tag"]["cta"] == {"held_back": 1, "total": 1, "rate": 1.0}
    assert report["verdicts"] == {PASSED: 4, REJECTED: 4}
    assert [(miss["article"], miss["line"], miss["label"]) for miss in report["misses"]] == [
        ("01-a", 10, "passed cta"),
        ("01-a", 12, "rejected swap"),
    ]
    assert report["misses"][0]["reason"] == "keyword in 01-a"
    assert general_target_failures(score) == [
        "balanced accuracy 0.750 < 0.9",
        "honest drafts held back 1/4 > 10%",
        "swap caught 0/1 < 80%",
    ]


def test_the_command_reports_the_general_set_as_json_and_fails_only_when_strict(tmp_path: Path, capsys) -> None:
    # Only honest drafts: the short/swap targets cannot be met, whatever the gate says.
    article_write(tmp_path, "01-a.txt", "passed numwords | The new shop employs twelve mechanics.\n")

    call_command("gate_eval", "--set", "general", "--data-dir", str(tmp_path), "--json", "--misses")
    report = json.loads(capsys.readouterr().out)

    assert (report["drafts"], report["articles"], report["honest_drafts"]) == (1, 1, 1)
    assert "no rejected drafts of kind 'short'" in report["failures"]
    assert "misses" in report
    with pytest.raises(CommandError, match="below its generalisation targets"):
        call_command("gate_eval", "--set", "general", "--data-dir", str(tmp_path), "--strict")


def test_the_command_names_file_and_line_of_a_parse_error(tmp_path: Path) -> None:
    article_write(tmp_path, "01-a.txt", "passed numwords | fine\nmaybe | not a label\n")

    with pytest.raises(CommandError, match=r"01-a.txt:10: unknown label 'maybe'"):
        call_command("gate_eval", "--set", "general", "--data-dir", str(tmp_path))


def test_the_committed_set_parses_with_four_honest_and_four_rejected_drafts_per_article() -> None:
    articles = general_set_load()

    assert len(articles) >= 20
    for article in articles:
        assert sum(draft.honest for draft in article.drafts) == 4, article.name
        assert sum(not draft.honest for draft in article.drafts) == 4, article.name
