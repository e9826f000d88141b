"""``manage.py compose_eval [--split dev] [--json] [--failures] [--with-model]``: the composer's numbers.

Behind ``make eval-compose``. ``dev`` is the split the composer was tuned on; ``blind`` is
scored once, after tuning (tests/data/compose/README.md). Exits non-zero when a split misses
a target of issue 10.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from posting.composer.evaluation import (
    DATA_DIR,
    EvaluationSetError,
    report_lines,
    split_evaluate,
    target_failures,
)
from posting.llm import llm_configured


class Command(BaseCommand):
    help = "Score relevance, dedupe, voice and the offline composer on tests/data/compose/<split>."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--split",
            action="append",
            help=(
                "a folder under tests/data/compose: dev, blind, blind2 ... blind8 "
                "(repeatable; default: every split present, held-out ones included)"
            ),
        )
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--failures", action="store_true", help="list every miss")
        parser.add_argument(
            "--without-vocabularies",
            action="store_true",
            help="also rank without the trade vocabularies (how relevance does for a trade we have none for)",
        )
        parser.add_argument(
            "--without-industry",
            action="store_true",
            help="also rank with every industry blank (how relevance does for an industry we cannot map)",
        )

        parser.add_argument(
            "--with-model",
            action="store_true",
            help=(
                "also rank with the configured language model's say on borderline articles "
                "(needs OPENAI_API_KEY; one call per borderline article, about a fifth of them)"
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        splits = options["split"] or [p.name for p in sorted(DATA_DIR.iterdir()) if (p / "labels.json").exists()]
        if options["with_model"] and not llm_configured():
            raise CommandError(
                "--with-model needs a language model: set OPENAI_API_KEY (and OPENAI_BASE_URL if not OpenAI's)."
            )
        try:
            scores = [split_evaluate(split=split) for split in splits]
            if options["with_model"]:
                scores += [split_evaluate(split=split, model=True) for split in splits]
            if options["without_vocabularies"]:
                scores += [split_evaluate(split=split, vocabularies=False) for split in splits]
            if options["without_industry"]:
                scores += [split_evaluate(split=split, industries=False) for split in splits]
        except EvaluationSetError as exc:
            raise CommandError(str(exc)) from None
        if options["json"]:
            self.stdout.write(json.dumps([score.as_dict() for score in scores], ensure_ascii=False, indent=2))
        else:
            for line in report_lines(scores):
                self.stdout.write(line)
        failing = []
        for score in scores:
            if options["failures"]:
                for failure in score.failures:
                    self.stdout.write(f"  {score.split}: {failure}")
            failing += [f"{score.split}: {failure}" for failure in target_failures(score)]
        if failing:
            raise CommandError("Targets missed: " + "; ".join(failing))
