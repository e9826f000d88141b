"""``manage.py gate_eval``: the factual gate's scores on the labelled set, next to two baselines.

Exits non-zero when the gate is below the targets of issue 4, so CI can run it as a check.

It reads the labelled set from the source tree, ``tests/data/gate/`` (format and splits:
its README.md), so it runs from a checkout or the Docker image (which copies the whole
tree), not from an installation without the tests. It needs no database and no LLM: the
gate is scored on its own checks only.

``--set general`` scores the generalisation set instead (``tests/data/gate_general``, issue 9:
whole customer-style drafts the gate was never tuned on); it reports and exits zero unless
``--strict`` is given, so "before" numbers that miss the targets can still be recorded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from posting.gate.evaluation import (
    DATA_DIR,
    GATES,
    SPLITS,
    TARGETS,
    LabelledSetError,
    labelled_set_load,
    report_lines,
    score_articles,
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
        parser.add_argument("--split", choices=[*SPLITS, "all"], default="all", help="which part of the set")
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

    def handle(self, *args: Any, **options: Any) -> None:
        if options["set_name"] == "general":
            self._general_handle(options)
            return
        split = options["split"]
        data_dir: Path = options["data_dir"] or DATA_DIR
        splits = [*SPLITS, "all"] if split == "all" else [split]
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
            scores = {gate_name: score_articles(articles, gate) for gate_name, gate in GATES.items()}
            results[name] = {"articles": len(articles), "scores": scores}
            if name == split:
                failures = target_failures(scores["gate"])

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
                "targets": TARGETS,
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
