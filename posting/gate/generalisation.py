"""Score the factual gate on the generalisation set in ``tests/data/gate_general`` (issue 9).

The set (format: its README.md) was written by people who never tuned the gate: whole
customer-style drafts, each labelled ``passed`` (every fact is in the article, tagged with the
writing features it uses) or ``rejected`` (exactly one false or unsupported statement, of one
kind). It was scored once before the gate changed and after each round; since issue 9's round
4 it and ``gate_general2`` are tuned-on (scripts/gate_fit.py fits on them), and so is
``gate_general3`` since round 5; nothing here reads a set unless given as ``data_dir``. This module only
measures: each draft goes through the same ``gate_full`` call as the labelled set,
and a draft counts as passed only on the verdict ``passed``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from posting.gate.core import PASSED
from posting.gate.evaluation import Article, Gate, gate_full

GENERAL_DATA_DIR = Path(__file__).resolve().parents[2] / "tests" / "data" / "gate_general"

# The writing features an honest draft is tagged with (README.md of the set says what each means).
HONEST_TAGS = (
    "reorder",
    "synonym",
    "possessive",
    "numwords",
    "opener",
    "cta",
    "emoji",
    "hashtag",
    "question",
    "signoff",
    "ownname",
)
# The one error a held-back draft carries.
REJECTED_KINDS = ("short", "swap", "detail", "number", "name", "date", "negation")
GENERAL_TARGETS = {
    "balanced_accuracy_min": 0.90,
    "honest_held_back_max": 0.10,
    "short_caught_min": 0.80,
    "swap_caught_min": 0.80,
}
DRAFTS_SECTION = "== drafts"
DRAFT_LINE = re.compile(r"^\s*(passed|rejected)\b[^|]*\|")


class GeneralSetError(ValueError):
    """A file of the generalisation set does not follow the format; the message names file and line."""


@dataclass(frozen=True)
class LabelledDraft:
    text: str
    honest: bool  # label "passed"; otherwise "rejected" with one kind
    tags: tuple[str, ...]  # the honest draft's writing features, or the rejected draft's one kind
    line: int

    @property
    def label(self) -> str:
        return ("passed " if self.honest else "rejected ") + " ".join(self.tags)


@dataclass
class GeneralArticle:
    name: str
    source: Article  # title, body and own names, exactly as the labelled set hands them to the gate
    drafts: list[LabelledDraft] = field(default_factory=list)


def general_set_load(*, data_dir: Path = GENERAL_DATA_DIR) -> list[GeneralArticle]:
    return [general_article_parse(path) for path in sorted(data_dir.glob("*.txt"))]


def general_article_parse(path: Path) -> GeneralArticle:
    lines = path.read_text(encoding="utf-8").splitlines()

    header: dict[str, str] = {}
    index = 0
    while index < len(lines) and lines[index].strip():
        key, separator, value = lines[index].partition(":")
        if not separator or key.strip().startswith("=="):
            raise _error(
                path, index + 1, f"expected a header line 'key: value' (title, own_names), got {lines[index][:60]!r}"
            )
        header[key.strip()] = value.strip()
        index += 1
    for key in ("title", "own_names"):
        if not header.get(key):
            raise _error(path, 1, f"no {key!r} header line (the file starts with 'title: …' and 'own_names: …')")

    body_start = index
    while index < len(lines) and lines[index].strip() != DRAFTS_SECTION:
        if lines[index].startswith("== "):
            raise _error(
                path, index + 1, f"unknown section {lines[index].strip()!r} (the only section is {DRAFTS_SECTION!r})"
            )
        if DRAFT_LINE.match(lines[index]):
            # Left here it would be read as part of the article, and so support itself.
            raise _error(path, index + 1, f"a draft line outside the {DRAFTS_SECTION!r} section")
        index += 1
    body = "\n".join(lines[body_start:index]).strip()
    if not body:
        raise _error(path, body_start + 1, "no article body between the header and the drafts")
    if index == len(lines):
        raise _error(path, len(lines), f"no {DRAFTS_SECTION!r} line: the drafts must follow the body in that section")

    article = GeneralArticle(
        name=path.stem,
        source=Article(
            name=path.stem,
            split="general",
            title=header["title"],
            body=body,
            own_names=[name.strip() for name in header["own_names"].split(";") if name.strip()],
        ),
    )
    for number, line in enumerate(lines[index + 1 :], start=index + 2):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("== "):
            raise _error(path, number, f"a second section {stripped!r}: every line after {DRAFTS_SECTION!r} is a draft")
        article.drafts.append(_draft_parse(stripped, path=path, line=number))
    if not article.drafts:
        raise _error(path, index + 1, "no drafts after the '== drafts' line")
    return article


def _draft_parse(stripped: str, *, path: Path, line: int) -> LabelledDraft:
    label, separator, text = stripped.partition("|")
    words = label.split()
    if not separator or not words:
        raise _error(path, line, f"a draft line is 'label | text', got {stripped[:60]!r}")
    if not text.strip():
        raise _error(path, line, "a draft line with a label but no text")
    verdict, tags = words[0], tuple(words[1:])
    if verdict == "passed":
        unknown = [tag for tag in tags if tag not in HONEST_TAGS]
        if not tags or unknown:
            raise _error(
                path,
                line,
                f"an honest draft needs one or more tags from {', '.join(HONEST_TAGS)}"
                + (f"; unknown: {', '.join(unknown)}" if unknown else ""),
            )
    elif verdict == "rejected":
        if len(tags) != 1 or tags[0] not in REJECTED_KINDS:
            raise _error(path, line, f"a rejected draft needs exactly one kind from {', '.join(REJECTED_KINDS)}")
    else:
        raise _error(path, line, f"unknown label {verdict!r}: a draft is 'passed <tags>' or 'rejected <kind>'")
    return LabelledDraft(text=text.strip(), honest=verdict == "passed", tags=tags, line=line)


def _error(path: Path, line: int, message: str) -> GeneralSetError:
    return GeneralSetError(f"{path}:{line}: {message}")


# --------------------------------------------------------------------------- scores


@dataclass
class GeneralScore:
    articles: int = 0
    honest: int = 0
    honest_held_back: int = 0
    negatives: int = 0
    negatives_caught: int = 0
    by_kind: dict[str, list[int]] = field(default_factory=dict)  # rejected kind -> [caught, total]
    by_tag: dict[str, list[int]] = field(default_factory=dict)  # honest tag -> [held back, total]
    verdicts: Counter[str] = field(default_factory=Counter)
    misses: list[dict[str, object]] = field(default_factory=list)

    @property
    def drafts(self) -> int:
        return self.honest + self.negatives

    @property
    def honest_held_back_rate(self) -> float:
        return _ratio(self.honest_held_back, self.honest)

    @property
    def catch_rate(self) -> float:
        return _ratio(self.negatives_caught, self.negatives)

    @property
    def balanced_accuracy(self) -> float:
        """The mean of the honest-pass rate and the negative-catch rate, so neither class can hide the other."""
        return ((1 - self.honest_held_back_rate) + self.catch_rate) / 2

    def as_dict(self, *, misses: bool = False) -> dict[str, object]:
        result: dict[str, object] = {
            "drafts": self.drafts,
            "articles": self.articles,
            "honest_drafts": self.honest,
            "rejected_drafts": self.negatives,
            "balanced_accuracy": round(self.balanced_accuracy, 4),
            "honest_held_back": self.honest_held_back,
            "honest_held_back_rate": round(self.honest_held_back_rate, 4),
            "negatives_caught": self.negatives_caught,
            "catch_rate": round(self.catch_rate, 4),
            "caught_by_kind": {
                kind: {"caught": caught, "total": total, "rate": round(_ratio(caught, total), 4)}
                for kind, (caught, total) in _ordered(self.by_kind, REJECTED_KINDS)
            },
            "held_back_by_tag": {
                tag: {"held_back": held, "total": total, "rate": round(_ratio(held, total), 4)}
                for tag, (held, total) in _ordered(self.by_tag, HONEST_TAGS)
            },
            "verdicts": dict(sorted(self.verdicts.items())),
            "targets": GENERAL_TARGETS,
            "failures": general_target_failures(self),
        }
        if misses:
            result["misses"] = self.misses
        return result


def general_set_score(articles: Iterable[GeneralArticle], *, gate: Gate = gate_full) -> GeneralScore:
    score = GeneralScore()
    for article in articles:
        score.articles += 1
        for draft in article.drafts:
            result = gate(draft.text, article.source)
            passed = result.verdict == PASSED
            score.verdicts[result.verdict] += 1
            if draft.honest:
                score.honest += 1
                score.honest_held_back += not passed
                for tag in draft.tags:
                    counts = score.by_tag.setdefault(tag, [0, 0])
                    counts[0] += not passed
                    counts[1] += 1
            else:
                score.negatives += 1
                score.negatives_caught += not passed
                counts = score.by_kind.setdefault(draft.tags[0], [0, 0])
                counts[0] += not passed
                counts[1] += 1
            if passed != draft.honest:
                score.misses.append(
                    {
                        "article": article.name,
                        "line": draft.line,
                        "label": draft.label,
                        "verdict": result.verdict,
                        "text": draft.text,
                        "reason": result.reason,
                    }
                )
    return score


def general_target_failures(score: GeneralScore) -> list[str]:
    failures: list[str] = []
    if score.balanced_accuracy < GENERAL_TARGETS["balanced_accuracy_min"]:
        failures.append(f"balanced accuracy {score.balanced_accuracy:.3f} < {GENERAL_TARGETS['balanced_accuracy_min']}")
    if score.honest_held_back_rate > GENERAL_TARGETS["honest_held_back_max"]:
        failures.append(
            f"honest drafts held back {score.honest_held_back}/{score.honest} "
            f"> {GENERAL_TARGETS['honest_held_back_max']:.0%}"
        )
    for kind in ("short", "swap"):
        caught, total = score.by_kind.get(kind, [0, 0])
        minimum = GENERAL_TARGETS[f"{kind}_caught_min"]
        if not total:
            failures.append(f"no rejected drafts of kind {kind!r}")
        elif caught / total < minimum:
            failures.append(f"{kind} caught {caught}/{total} < {minimum:.0%}")
    return failures


def general_report_lines(score: GeneralScore, *, misses: bool = False) -> list[str]:
    lines = [
        f"drafts: {score.drafts} ({score.honest} honest, {score.negatives} rejected) over {score.articles} articles",
        f"balanced accuracy: {score.balanced_accuracy:.3f}",
        f"honest drafts held back: {score.honest_held_back}/{score.honest} ({score.honest_held_back_rate:.1%})",
        f"rejected drafts caught: {score.negatives_caught}/{score.negatives} ({score.catch_rate:.1%})",
    ]
    lines.extend(
        f"  caught {kind:<10} {caught:>3}/{total:<3} {_ratio(caught, total):6.1%}"
        for kind, (caught, total) in _ordered(score.by_kind, REJECTED_KINDS)
    )
    lines.append("honest drafts held back, per tag:")
    lines.extend(
        f"  {tag:<17} {held:>3}/{total:<3} {_ratio(held, total):6.1%}"
        for tag, (held, total) in _ordered(score.by_tag, HONEST_TAGS)
    )
    lines.append("verdicts: " + ", ".join(f"{verdict} {count}" for verdict, count in sorted(score.verdicts.items())))
    if misses:
        for miss in score.misses:
            lines.append(f"  miss [{miss['label']}] {miss['article']}:{miss['line']} -> {miss['verdict']}")
            lines.append(f"    draft:  {miss['text']}")
            lines.append(f"    reason: {miss['reason']}")
    return lines


def _ordered(counts: dict[str, list[int]], order: tuple[str, ...]) -> list[tuple[str, list[int]]]:
    return [(key, counts[key]) for key in order if key in counts]


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0
