"""Every held-back claim's reason over the tuned-on gate sets, grouped by the kind of message
(issue 9, done-means 3: a reason a shop owner can act on).

    DJANGO_DEBUG=1 .venv/bin/python scripts/gate_reasons_audit.py                 # counts per kind
    DJANGO_DEBUG=1 .venv/bin/python scripts/gate_reasons_audit.py --sample 25     # and 25 reasons of each kind
    DJANGO_DEBUG=1 .venv/bin/python scripts/gate_reasons_audit.py --snapshot F    # write every verdict to F
    DJANGO_DEBUG=1 .venv/bin/python scripts/gate_reasons_audit.py --compare F     # fail if any verdict differs

Each reason is printed with the claim it is about and the article sentence the gate cited.
``--snapshot``/``--compare`` hold the verdicts (per draft, and passed/held and class per claim)
so that a change to the wording of reasons can be shown to change no decision.

The sets read: ``tests/data/gate`` (dev, holdout, fresh, blind, style: claims and posts),
``tests/data/gate_tuning`` and ``tests/data/gate_general`` … ``gate_general7`` (all tuned-on).
The next held-out set is never read here.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from posting.gate.core import CLAIM, GateResult  # noqa: E402
from posting.gate.evaluation import DATA_DIR, SPLIT_CHOICES, gate_full, labelled_set_load  # noqa: E402
from posting.gate.generalisation import general_set_load  # noqa: E402
from posting.gate.lexicon import SUPERLATIVES  # noqa: E402

GENERAL_SETS = ("gate_tuning", "gate_general", *(f"gate_general{n}" for n in range(2, 8)))

# "The article doesn't say "best"." (one superlative word, or "most" with its word).
_SUPERLATIVE = re.compile(
    r"(?:doesn't|does not) say \"[^\"]*\b(?:" + "|".join(SUPERLATIVES) + r"|\w+est)\b[^\" ]*( \w+)?\"\.", re.I
)
# The kind of a reason, told by its wording; the first pattern that matches names it.
KINDS = (
    ("business", re.compile(r"about the business|never mentions the business")),
    ("missing_fact", re.compile(r"doesn't (?:mention|give) (?:the figure |the date )?\"")),
    ("other_way_round", re.compile(r"other way round|the other way|, not by ")),
    ("opposite", re.compile(r"the opposite")),
    ("superlative", _SUPERLATIVE),
    ("date_shift", re.compile(r"The article says \"(?:last|next|this|coming|past|previous) ")),
    ("word_pair", re.compile(r"The article says \"[^\"]+\", not \"")),
    ("not_said", re.compile(r"doesn't say this|doesn't say that|doesn't say anything|doesn't say \"")),
    ("no_text", re.compile(r"has no text")),
)


@dataclass(frozen=True)
class Held:
    place: str
    draft: str
    claim: str
    reason: str

    @property
    def kind(self) -> str:
        return reason_kind(self.reason)


def reason_kind(reason: str) -> str:
    # A clause's reason is prefixed with the clause ('In "…": …'); the kind is the inner one's.
    inner = re.sub(r'^In "[^"]*": ', "", reason)
    for kind, pattern in KINDS:
        if pattern.search(inner):
            return kind
    return "other"


def drafts() -> list[tuple[str, str, object]]:
    """(place, draft text, article) for every draft and labelled claim of the tuned-on sets."""
    found: list[tuple[str, str, object]] = []
    for split in SPLIT_CHOICES:
        for article in labelled_set_load(data_dir=DATA_DIR, split=split):
            for number, claim in enumerate(article.claims):
                found.append((f"gate/{article.name}/claim{number}", claim.text, article))
            for number, post in enumerate(article.posts):
                found.append((f"gate/{article.name}/post{number}", post.text, article))
    for name in GENERAL_SETS:
        data_dir = ROOT / "tests" / "data" / name
        for general in general_set_load(data_dir=data_dir):
            for draft in general.drafts:
                found.append((f"{name}/{general.name}:{draft.line}", draft.text, general.source))
    return found


def verdicts_and_reasons() -> tuple[dict[str, object], list[Held]]:
    verdicts: dict[str, object] = {}
    held: list[Held] = []
    for place, text, article in drafts():
        result: GateResult = gate_full(text, article)  # type: ignore[arg-type]
        verdicts[place] = {
            "verdict": result.verdict,
            "claims": [[claim.text, claim.sentence_class, claim.supported] for claim in result.claims],
        }
        for claim in result.claims:
            if claim.sentence_class == CLAIM and not claim.supported:
                held.append(Held(place=place, draft=text, claim=claim.text, reason=claim.reason))
    return verdicts, held


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sample", type=int, default=0, help="print this many reasons of each kind")
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--kind", default="", help="print only this kind")
    parser.add_argument("--snapshot", type=Path, help="write every verdict to this JSON file")
    parser.add_argument("--compare", type=Path, help="exit 1 when any verdict differs from this snapshot")
    parser.add_argument(
        "--kinds-from",
        type=Path,
        help="group by the kind each reason had in this snapshot (to re-read the same sample after a change)",
    )
    args = parser.parse_args()

    verdicts, held = verdicts_and_reasons()
    earlier: dict[str, str] = {}
    if args.kinds_from:
        for place, claim, reason in json.loads(args.kinds_from.read_text(encoding="utf-8"))["held"]:
            earlier[f"{place}\n{claim}"] = reason_kind(reason)
    by_kind: dict[str, list[Held]] = defaultdict(list)
    for item in held:
        by_kind[earlier.get(f"{item.place}\n{item.claim}", item.kind)].append(item)
    if args.sample:
        rng = random.Random(args.seed)
        for kind in sorted(by_kind):
            if args.kind and kind != args.kind:
                continue
            items = sorted(set(by_kind[kind]), key=lambda item: (item.place, item.claim))
            chosen = rng.sample(items, min(args.sample, len(items)))
            print(f"=== {kind} ({len(by_kind[kind])})")
            for item in chosen:
                print(f"- [{item.place}] claim: {item.claim}\n  reason: {item.reason}")
    print(f"drafts and labelled claims gated: {len(verdicts)}; held-back claims: {len(held)}")
    for kind, items in sorted(by_kind.items(), key=lambda pair: -len(pair[1])):
        print(f"  {kind:16} {len(items)}")
    if args.snapshot:
        snapshot = {"verdicts": verdicts, "held": [[item.place, item.claim, item.reason] for item in held]}
        args.snapshot.write_text(json.dumps(snapshot, indent=0, sort_keys=True), encoding="utf-8")
        print(f"verdicts written to {args.snapshot}")
    if args.compare:
        before = json.loads(args.compare.read_text(encoding="utf-8"))["verdicts"]
        changed = sorted(place for place in set(before) | set(verdicts) if before.get(place) != verdicts.get(place))
        for place in changed[:20]:
            print(f"CHANGED {place}: {before.get(place)} -> {verdicts.get(place)}")
        print(f"verdicts compared with {args.compare}: {len(changed)} of {len(verdicts)} differ")
        return 1 if changed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
