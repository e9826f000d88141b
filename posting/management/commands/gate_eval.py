"""``manage.py gate_eval``: the factual gate's scores on the labelled set, next to two baselines.

Exits non-zero when the gate is below the targets of issue 4, so CI can run it as a check.

It reads the labelled set from the source tree, ``tests/data/gate/`` (format and splits:
its README.md), so it runs from a checkout or the Docker image (which copies the whole
tree), not from an installation without the tests. It needs no database and no LLM: the
gate is scored on its own checks only.

``--set general`` scores the generalisation set instead (``tests/data/gate_general``, issue 9:
whole customer-style drafts the gate was never tuned on); it reports and exits zero unless
``--strict`` is given, so "before" numbers that miss the targets can still be recorded.

``--judge`` scores the gate with the LLM judge as ``draft_gate`` runs it (the configured
OpenAI-compatible endpoint, ``OPENAI_API_KEY``), in a column of its own next to the gate
alone; every call is recorded as ``LLMUsage``, so it needs the database too. Without a key
it stops with an error instead of quietly scoring the gate alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from posting.gate.core import GateResult, gate_evaluate
from posting.gate.evaluation import (
    DATA_DIR,
    GATES,
    SPLIT_CHOICES,
    SPLITS,
    STYLE_SPLIT,
    STYLE_TARGETS,
    TARGETS,
    Article,
    Gate,
    LabelledSetError,
    labelled_set_load,
    report_lines,
    score_articles,
    style_target_failures,
    target_failures,
)
from posting.gate.generalisation import (
    GENERAL_DATA_DIR,
    GeneralSetError,
    general_report_lines,
    general_set_load,
    general_set_score,
    general_target_failures,
)
from posting.llm import llm_claim_judge


class Command(BaseCommand):
    help = "Score the factual gate on the labelled set (tests/data/gate) against always-pass and headline-only."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--set",
            dest="set_name",
            choices=["labelled", "general"],
            default="labelled",
            help="the labelled set the gate is tuned on (default), or the generalisation set it never saw",
        )
        parser.add_argument("--split", choices=[*SPLIT_CHOICES, "all"], default="all", help="which part of the set")
        parser.add_argument(
            "--data-dir",
            type=Path,
            default=None,
            help="the set's folder (default: tests/data/gate, or tests/data/gate_general with --set general)",
        )
        parser.add_argument("--json", action="store_true", help="print the scores as JSON")
        parser.add_argument("--misses", action="store_true", help="list the claims the gate got wrong")
        parser.add_argument(
            "--strict", action="store_true", help="with --set general: exit non-zero when the targets are missed"
        )
        parser.add_argument(
            "--judge", action="store_true", help="also score the gate with the LLM judge (needs OPENAI_API_KEY)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["set_name"] == "general":
            self._general_handle(options)
            return
        split = options["split"]
        data_dir: Path = options["data_dir"] or DATA_DIR
        gates = dict(GATES)
        if options["judge"]:
            gates = {"gate": GATES["gate"], "gate_judge": _judged_gate()}
        # "all" is the four older splits together (their targets); the style split is listed
        # beside them with its own targets (issue 9).
        splits = [*SPLITS, "all", STYLE_SPLIT] if split == "all" else [split]
        results: dict[str, dict[str, Any]] = {}
        failures: list[str] = []
        for name in splits:
            try:
                articles = labelled_set_load(data_dir=data_dir, split=name)
            except (LabelledSetError, OSError) as error:
                raise CommandError(f"The labelled set in {data_dir} cannot be read: {error}") from None
            if not articles:
                raise CommandError(
                    f"No labelled articles for split {name!r} in {data_dir} (the set is tests/data/gate)."
                )
            scores = {gate_name: score_articles(articles, gate) for gate_name, gate in gates.items()}
            results[name] = {"articles": len(articles), "scores": scores}
            if name == split:
                check = style_target_failures if name == STYLE_SPLIT else target_failures
                failures = check(scores["gate_judge" if options["judge"] else "gate"])

        if options["json"]:
            payload = {
                "splits": {
                    name: {
                        "articles": result["articles"],
                        **{gate: score.as_dict() for gate, score in result["scores"].items()},
                        **({"misses": result["scores"]["gate"].misses} if options["misses"] else {}),
                    }
                    for name, result in results.items()
                },
                "targets": STYLE_TARGETS if split == STYLE_SPLIT else TARGETS,
                "target_split": split,
                "failures": failures,
                "ok": not failures,
            }
            self.stdout.write(json.dumps(payload, indent=2))
        else:
            for name, result in results.items():
                self.stdout.write(f"\n== {name} ({result['articles']} articles)")
                for line in report_lines(result["scores"]):
                    self.stdout.write(line)
                if options["misses"]:
                    for miss in result["scores"]["gate"].misses:
                        self.stdout.write(f"  miss [{miss['label']}] {miss['article']}: {miss['claim']}")
            self.stdout.write("")
            if failures:
                self.stdout.write(f"BELOW TARGET on {split}: " + "; ".join(failures))
            else:
                self.stdout.write(f"All targets met on {split}.")
        if failures:
            raise CommandError("the factual gate is below its targets", returncode=1)

    def _general_handle(self, options: dict[str, Any]) -> None:
        data_dir: Path = options["data_dir"] or GENERAL_DATA_DIR
        try:
            articles = general_set_load(data_dir=data_dir)
        except (GeneralSetError, OSError) as error:
            raise CommandError(f"The generalisation set in {data_dir} cannot be read: {error}") from None
        if not articles:
            raise CommandError(f"No articles (*.txt) in {data_dir} (the set is tests/data/gate_general).")
        score = general_set_score(articles)
        failures = general_target_failures(score)
        if options["json"]:
            self.stdout.write(json.dumps(score.as_dict(misses=options["misses"]), indent=2, ensure_ascii=False))
        else:
            for line in general_report_lines(score, misses=options["misses"]):
                self.stdout.write(line)
            self.stdout.write("")
            self.stdout.write(("BELOW TARGET: " + "; ".join(failures)) if failures else "All targets met.")
        if failures and options["strict"]:
            raise CommandError("the factual gate is below its generalisation targets", returncode=1)


def _judged_gate() -> Gate:
    judge = llm_claim_judge(account=None)
    if judge is None:
        raise CommandError(
            "--judge needs a language model: set OPENAI_API_KEY (and OPENAI_BASE_URL for another endpoint)."
        )

    def gate(text: str, article: Article) -> GateResult:
        return gate_evaluate(
            text=text, title=article.title, body=article.body, own_names=article.own_names, judge=judge
        )

    return gate
