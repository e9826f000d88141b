"""``manage.py gate_check --source ARTICLE.txt --draft DRAFT.txt [--own-name N] [--sign-off S] [--json]``.

Any draft against any source. The article file's first line is its headline and the rest
its body. The verdict uses the gate's own checks only (no LLM), so an operator gets the
same answer offline. Every sentence of the draft is listed with its class: "claim" (checked)
or why it was not checked ("hashtags", "call_to_action", "question", "sign_off", ...).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from posting.gate.core import gate_evaluate

MAX_FILE_BYTES = 2_000_000


class Command(BaseCommand):
    help = "Check a draft against a source article with the factual gate."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--source", required=True, help="article text file: first line headline, then the body")
        parser.add_argument("--draft", required=True, help="draft text file")
        parser.add_argument("--own-name", action="append", default=[], help="the business's own name or handle")
        parser.add_argument(
            "--sign-off", action="append", default=[], help="a sign-off the business habitually closes posts with"
        )
        parser.add_argument("--json", action="store_true", help="print the verdict as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        source = _read(options["source"], "--source")
        draft = _read(options["draft"], "--draft")
        title, _, body = source.partition("\n")
        result = gate_evaluate(
            text=draft,
            title=title.strip(),
            body=body,
            own_names=options["own_name"],
            sign_offs=options["sign_off"],
        )
        if options["json"]:
            payload = {"verdict": result.verdict, "claims": [claim.as_dict() for claim in result.claims]}
            self.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2))
            return
        self.stdout.write(f"verdict: {result.verdict}")
        self.stdout.write(result.reason)
        for claim in result.claims:
            mark = ("ok " if claim.supported else "NO ") if claim.sentence_class == "claim" else "-- "
            self.stdout.write(f"  {mark} [{claim.sentence_class}] {claim.text}")
            self.stdout.write(f"       {claim.reason}")
            for evidence in claim.evidence:
                self.stdout.write(f"       [{evidence['sentence']}] {evidence['text']}")


def _read(path: str, flag: str) -> str:
    file = Path(path)
    try:
        if file.stat().st_size > MAX_FILE_BYTES:
            raise CommandError(f"{flag} {path}: larger than {MAX_FILE_BYTES} bytes")
        return file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CommandError(f"{flag} {path}: no such file") from None
    except UnicodeDecodeError:
        raise CommandError(f"{flag} {path}: not UTF-8 text") from None
    except OSError as error:
        raise CommandError(f"{flag} {path}: {error.strerror}") from None
