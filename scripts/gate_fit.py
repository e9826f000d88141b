"""Fit the factual gate's few support thresholds on every labelled set together (issue 9, round 4).

    DJANGO_DEBUG=1 .venv/bin/python scripts/gate_fit.py [--json]
    DJANGO_DEBUG=1 .venv/bin/python scripts/gate_fit.py --ablate   # what each veto earns
    DJANGO_DEBUG=1 .venv/bin/python scripts/gate_fit.py --why      # what holds honest drafts back

The gate's hard checks (numbers, dates, names, negation, opposites, roles) veto and are not
fitted. What is fitted is how much of a claim's content its evidence must cover, each word
weighed by its IDF in the article (``posting.gate.core.SUPPORT_MIN`` and ``SUPPORT_MIN_CLAUSE``),
what a word standing in another word's slot costs (``SWAP_COST``; None = a veto), and how far
around a number or name the claim and another article sentence must share a word for that
sentence to lend it (``KEY_CONTEXT``; 0 = only where both neighbours are the same).

Nine groups of data: ``tests/data/gate`` (its splits dev, holdout, fresh, blind and style,
claims and posts), ``tests/data/gate_tuning`` and ``tests/data/gate_general`` …
``tests/data/gate_general7`` (the last seven were held out once; the first two are tuned-on since
round 4, ``gate_general3`` since round 5, ``gate_general4`` since round 6, ``gate_general5`` since
session 6's sentence-model probe, ``gate_general6`` and ``gate_general7`` since round 8).
``gate_general8`` (held out, scored before and after session 7's rounds) is not a group: no round
has read it, and the next held-out set is never read here.

A setting is judged by its worst group's balanced accuracy (robust rather than best on
average), subject to the issue's floor of 0.95 on ``tests/data/gate``'s older splits and to its
catch targets (short invented sentences and single-word swaps ≥ 80% on every set, role swaps
≥ 80% on the older splits). The
cross-validation chooses the setting on the other groups and scores the one left out, for each group.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from posting.gate import core  # noqa: E402
from posting.gate.evaluation import SPLITS, STYLE_SPLIT, gate_full, labelled_set_load, score_articles  # noqa: E402
from posting.gate.generalisation import general_set_load, general_set_score  # noqa: E402

DATA = ROOT / "tests" / "data"
GENERAL_GROUPS = (
    "gate_tuning",
    "gate_general",
    "gate_general2",
    "gate_general3",
    "gate_general4",
    "gate_general5",
    "gate_general6",
    "gate_general7",
)
GROUPS = ("gate", *GENERAL_GROUPS)
FLOOR = 0.95  # issue 9: the existing sets do not get worse than this
# Issue 9: short invented sentences and single-word swaps caught on every set, role swaps on the
# older splits (their issue-4 target).
CATCH_MIN = 0.80
# Balanced accuracies this close are the same: about two drafts of the smallest set (160 drafts).
TIE = 0.0125

SUPPORT_GRID = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8)
CLAUSE_GAP = 0.05
# A swap as a cost (1.0: the swapped word weighs double) instead of a veto was tried on the
# grid above and lost on every group at every threshold (docs/BENCHMARKS.md); kept as an option.
SWAP_GRID: tuple[float | None, ...] = (None,)
KEY_CONTEXT_GRID = (0, 2)


def _score_all(sets: dict[str, object]) -> dict[str, float]:
    scores: dict[str, float] = {}
    old = [article for article in sets["gate"] if article.split in SPLITS]  # type: ignore[attr-defined]
    style = [article for article in sets["gate"] if article.split == STYLE_SPLIT]  # type: ignore[attr-defined]
    old_score, style_score = score_articles(old, gate_full), score_articles(style, gate_full)
    scores["gate_old"] = old_score.balanced_accuracy
    scores["gate_style"] = style_score.balanced_accuracy
    scores["gate"] = min(scores["gate_old"], scores["gate_style"])
    # The catch targets, the lowest per group: a setting below them on a group it is
    # chosen on is not eligible, however well it balances.
    scores["gate_catch"] = min(
        _rate(old_score.by_kind.get("role", [0, 0])), style_score.tag_catch("short"), style_score.tag_catch("swap")
    )
    for name in GENERAL_GROUPS:
        general = general_set_score(sets[name])  # type: ignore[arg-type]
        scores[name] = general.balanced_accuracy
        short, swap = general.by_kind.get("short", [0, 0]), general.by_kind.get("swap", [0, 0])
        scores[f"{name}_catch"] = min(_rate(short), _rate(swap))
    return scores


def _rate(counts: list[int]) -> float:
    return counts[0] / counts[1] if counts[1] else 1.0


def _settings() -> list[tuple[float, float, float | None, int]]:
    return [
        (support, round(support - CLAUSE_GAP, 2), swap, context)
        for support, swap, context in itertools.product(SUPPORT_GRID, SWAP_GRID, KEY_CONTEXT_GRID)
    ]


def _objective(scores: dict[str, Any], groups: tuple[str, ...], catch_groups: tuple[str, ...]) -> float:
    # Only the groups the setting is chosen on may rule it out: a held-out group is not seen.
    if scores["gate_old"] < FLOOR or min((scores[f"{group}_catch"] for group in catch_groups), default=1.0) < CATCH_MIN:
        return -1.0
    return min(scores[group] for group in groups)


def choose(rows: list[dict[str, Any]], groups: tuple[str, ...]) -> dict[str, Any]:
    """The setting with the best worst group; settings whose worst group is within TIE of it
    are as good (two drafts of the smallest set), and the best mean over the groups decides.

    A group on which no setting reaches the catch targets (gate_general3's swaps: 72% at every
    threshold) cannot rule settings out on them, or it would rule out all of them; its balanced
    accuracy still counts."""
    catch_groups = tuple(group for group in groups if max(row[f"{group}_catch"] for row in rows) >= CATCH_MIN)
    best_worst = max(_objective(row, groups, catch_groups) for row in rows)
    tied = [row for row in rows if _objective(row, groups, catch_groups) >= best_worst - TIE]
    return max(tied, key=lambda row: sum(row[group] for group in groups))


# The contradiction checks, each switched off in turn by --ablate.
VETOES = ("_role_swap", "_voice_swap", "_neighbour_swap", "_preposition_flip", "_opposite", "_superlative_unsupported")


def _ablate(sets: dict[str, object]) -> int:
    """What each veto earns: the shipped setting's scores with that check answering "no objection"."""
    print("with every veto", " ".join(f"{key}={value:.3f}" for key, value in _score_all(sets).items()), flush=True)
    for name in VETOES:
        check = getattr(core, name)
        setattr(core, name, lambda *args, **kwargs: "")
        try:
            scores = _score_all(sets)
        finally:
            setattr(core, name, check)
        print("without", name, " ".join(f"{key}={value:.3f}" for key, value in scores.items()), flush=True)
    return 0


# Which check held an honest draft back, read from the claim's reason (the customer-facing
# sentence names the check by what it says): first match wins.
HELD_BY = (
    ("about the business", r"about the business"),
    ("nothing in the article like it", r"doesn't say anything like"),
    (
        "number, name or date not in the evidence",
        r"doesn't mention the figure|doesn't give the date|doesn't mention \"",
    ),
    ("superlative", r"doesn't say \"|does not say \""),
    ("word in another word's slot (swap)", r"The article says \"[^\"]*\", not \""),
    ("negation / opposite", r"says the opposite"),
    ("roles", r"other way round"),
    ("coverage", r"never mentions"),
)


def held_by(reason: str) -> str:
    said = re.sub(r'^In "[^"]*": ', "", reason).split(" Nearest sentence")[0]
    return next((name for name, pattern in HELD_BY if re.search(pattern, said)), "other")


def _why(sets: dict[str, object]) -> int:
    """Per set, the honest drafts held back, by the check that held them (a draft with two
    failing claims counts under both)."""
    for name in GENERAL_GROUPS:
        counts: Counter[str] = Counter()
        honest = held = 0
        for article in sets[name]:  # type: ignore[attr-defined]
            for draft in article.drafts:
                if not draft.honest:
                    continue
                honest += 1
                result = gate_full(draft.text, article.source)
                if result.verdict == core.PASSED:
                    continue
                held += 1
                counts.update({held_by(claim.reason) for claim in result.claims if not claim.supported})
        shown = ", ".join(f"{check} {count}" for check, count in counts.most_common())
        print(f"{name}: {held}/{honest} honest drafts held back; {shown}", flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--ablate", action="store_true", help="score the shipped setting without each veto in turn")
    parser.add_argument("--why", action="store_true", help="per set, which check holds back each honest draft")
    options = parser.parse_args()
    sets: dict[str, object] = {
        "gate": labelled_set_load(split="all") + labelled_set_load(split=STYLE_SPLIT),
        **{name: general_set_load(data_dir=DATA / name) for name in GENERAL_GROUPS},
    }
    if options.ablate:
        return _ablate(sets)
    if options.why:
        return _why(sets)
    rows = []
    for support, clause, swap, context in _settings():
        core.SUPPORT_MIN, core.SUPPORT_MIN_CLAUSE, core.SWAP_COST, core.KEY_CONTEXT = support, clause, swap, context
        scores = _score_all(sets)
        row = {"support_min": support, "support_min_clause": clause, "swap_cost": swap, "key_context": context}
        rows.append({**row, **scores})
        if not options.json:
            shown = " ".join(f"{key}={value:.3f}" for key, value in scores.items())
            print(support, clause, swap, context, shown, flush=True)
    best = choose(rows, GROUPS)
    folds = {}
    for held in GROUPS:
        chosen = choose(rows, tuple(group for group in GROUPS if group != held))
        folds[held] = {
            "chosen": {key: chosen[key] for key in ("support_min", "support_min_clause", "swap_cost", "key_context")},
            "held_out_balanced_accuracy": round(chosen[held], 4),
        }
    result = {"best": best, "cross_validation": folds}
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
