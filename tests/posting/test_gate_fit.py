"""scripts/gate_fit.py chooses the gate's support threshold: the best worst group among the
settings that keep the issue's floor and catch targets, near-ties broken by the mean, and in
cross-validation a held-out group never rules a setting in or out. Checked on made-up score
rows (the real fit takes minutes; docs/BENCHMARKS.md has its output)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gate_fit.py"


def _gate_fit() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gate_fit", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row(support: float, *, old: float = 0.98, catch: float = 0.9, **scores: float) -> dict[str, Any]:
    row: dict[str, Any] = {"support_min": support, "gate_old": old}
    for group in _gate_fit().GROUPS:  # every group the script fits on
        row[group] = scores.get(group, 0.8)
        row[f"{group}_catch"] = scores.get(f"{group}_catch", catch)
    return row


def test_the_best_worst_group_wins_over_the_best_mean() -> None:
    fit = _gate_fit()
    steady = _row(0.7, gate=0.80, gate_tuning=0.80, gate_general=0.80, gate_general2=0.80)
    uneven = _row(0.6, gate=0.99, gate_tuning=0.99, gate_general=0.99, gate_general2=0.70)

    assert fit.choose([uneven, steady], fit.GROUPS) is steady


def test_a_setting_below_the_floor_or_a_catch_target_is_not_eligible() -> None:
    fit = _gate_fit()
    good = _row(0.7, gate_general=0.75)
    below_floor = _row(0.6, old=0.94, gate_general=0.85)
    misses_swaps = _row(0.5, gate_general=0.85, gate_general_catch=0.79)

    assert fit.choose([below_floor, misses_swaps, good], fit.GROUPS) is good


def test_near_ties_are_broken_by_the_mean() -> None:
    fit = _gate_fit()
    worst_a_little_lower = _row(0.6, gate=0.95, gate_tuning=0.95, gate_general=0.95, gate_general2=0.71)
    worst_a_little_higher = _row(0.75, gate_general2=0.715)

    assert fit.choose([worst_a_little_higher, worst_a_little_lower], fit.GROUPS) is worst_a_little_lower


def test_a_held_out_group_does_not_decide_which_settings_are_eligible() -> None:
    fit = _gate_fit()
    # Best on the three chosen-on groups, but below the catch target on the held-out one.
    row = _row(0.6, gate=0.9, gate_tuning=0.9, gate_general=0.9, gate_general2_catch=0.5)
    other = _row(0.7)
    groups = ("gate", "gate_tuning", "gate_general")

    assert fit.choose([other, row], groups) is row
    assert fit.choose([other, row], fit.GROUPS) is other


def test_a_catch_target_no_setting_reaches_on_a_group_does_not_rule_out_every_setting() -> None:
    fit = _gate_fit()
    # Every setting misses the swap target on gate_general3: it decides by balanced accuracy alone.
    better = _row(0.6, gate_general3=0.75, gate_general3_catch=0.70)
    worse = _row(0.7, gate_general3=0.70, gate_general3_catch=0.72)

    assert fit.choose([worse, better], fit.GROUPS) is better
    # Where one setting reaches it, the others are still ruled out.
    reaches = _row(0.8, gate_general3=0.65, gate_general3_catch=0.81)
    assert fit.choose([worse, better, reaches], fit.GROUPS) is reaches
