"""Measure the factual gate on the labelled set in ``tests/data/gate`` (format: its README.md).

Every labelled claim is gated on its own as a one-sentence draft, and every labelled post
as a whole draft. The gate is compared with two baselines: always-pass, and the same gate
fed only the headline (the failure docs/ARCHITECTURE.md lesson 5 exists for).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from posting.gate.core import NO_SUBSTANCE, PASSED, GateResult, gate_evaluate

DATA_DIR = Path(__file__).resolve().parents[2] / "tests" / "data" / "gate"
SPLITS = ("dev", "holdout", "fresh", "blind")
# Customer-style drafts written for issue 9 (tests/data/gate/style): scored on their own
# targets, outside "all", so the older sets keep the targets they were built with.
STYLE_SPLIT = "style"
SPLIT_CHOICES = (*SPLITS, STYLE_SPLIT)
ERROR_KINDS = {
    "number": "number change",
    "entity": "entity swap",
    "negation": "negation",
    "superlative": "invented superlative",
    "not_in_article": "fact not in the article",
    "date": "date shift",
    "role": "role swap",
    "business": "fact about the posting business",
}
TARGETS = {
    "balanced_accuracy_min": 0.90,
    "false_rejection_rate_max": 0.05,
    "error_kind_catch_min": 0.80,
    "no_substance_passed_max": 0,
}
# Issue 9, on the style split: honest posts held back, short invented sentences (tag
# "short") and single-word swaps (tag "swap") caught.
STYLE_TARGETS = {
    "balanced_accuracy_min": 0.90,
    "honest_posts_held_back_max": 0.10,
    "short_invented_caught_min": 0.80,
    "single_word_swaps_caught_min": 0.80,
}

Gate = Callable[[str, "Article"], GateResult]


class LabelledSetError(ValueError):
    """A file of the labelled set does not follow the format."""


@dataclass(frozen=True)
class LabelledClaim:
    text: str
    kind: str  # "ok" or one of ERROR_KINDS
    tags: frozenset[str]

    @property
    def supported(self) -> bool:
        return self.kind == "ok"


@dataclass(frozen=True)
class LabelledPost:
    text: str
    expected: str
    tags: frozenset[str] = frozenset()


@dataclass
class Article:
    name: str
    split: str
    title: str
    body: str
    own_names: list[str]
    claims: list[LabelledClaim] = field(default_factory=list)
    posts: list[LabelledPost] = field(default_factory=list)


def labelled_set_load(*, data_dir: Path = DATA_DIR, split: str = "all") -> list[Article]:
    splits = SPLITS if split == "all" else (split,)
    if split not in (*SPLIT_CHOICES, "all"):
        raise LabelledSetError(f"unknown split {split!r}")
    articles: list[Article] = []
    for name in splits:
        for path in sorted((data_dir / name).glob("*.txt")):
            articles.append(_article_parse(path, split=name))
    return articles


def _article_parse(path: Path, *, split: str) -> Article:
    lines = path.read_text(encoding="utf-8").splitlines()
    header: dict[str, str] = {}
    index = 0
    while index < len(lines) and lines[index].strip():
        key, _, value = lines[index].partition(":")
        header[key.strip()] = value.strip()
        index += 1
    if "title" not in header:
        raise LabelledSetError(f"{path.name}: no title line")
    body_lines: list[str] = []
    while index < len(lines) and lines[index].strip() != "== claims":
        body_lines.append(lines[index])
        index += 1
    article = Article(
        name=f"{split}/{path.stem}",
        split=split,
        title=header["title"],
        body="\n".join(body_lines).strip(),
        own_names=[name.strip() for name in header.get("own_names", "").split(";") if name.strip()],
    )
    section = ""
    for line in lines[index:]:
        stripped = line.strip()
        if stripped.startswith("== "):
            section = stripped[3:]
            continue
        if not stripped:
            continue
        label, separator, text = stripped.partition("|")
        if not separator:
            raise LabelledSetError(f"{path.name}: line without a label: {stripped[:60]}")
        words = label.split()
        if section == "claims":
            if words[0] != "ok" and words[0] not in ERROR_KINDS:
                raise LabelledSetError(f"{path.name}: unknown claim label {words[0]!r}")
            article.claims.append(LabelledClaim(text=text.strip(), kind=words[0], tags=frozenset(words[1:])))
        elif section == "posts":
            if words[0] not in {"passed", "rejected", NO_SUBSTANCE}:
                raise LabelledSetError(f"{path.name}: unknown post verdict {words[0]!r}")
            article.posts.append(LabelledPost(text=text.strip(), expected=words[0], tags=frozenset(words[1:])))
        else:
            raise LabelledSetError(f"{path.name}: line outside a section")
    return article


# --------------------------------------------------------------------------- the gates compared


def gate_full(text: str, article: Article) -> GateResult:
    return gate_evaluate(text=text, title=article.title, body=article.body, own_names=article.own_names)


def gate_headline_only(text: str, article: Article) -> GateResult:
    """The incident: the same gate, but grading the draft against the headline as its whole source."""
    return gate_evaluate(text=text, title="", body=article.title, own_names=article.own_names)


def gate_always_pass(text: str, article: Article) -> GateResult:
    return GateResult(verdict=PASSED, claims=[], reason="baseline")


GATES: dict[str, Gate] = {"gate": gate_full, "headline_only": gate_headline_only, "always_pass": gate_always_pass}


# --------------------------------------------------------------------------- scores


@dataclass
class Score:
    supported: int = 0
    supported_passed: int = 0
    unsupported: int = 0
    unsupported_caught: int = 0
    by_kind: dict[str, list[int]] = field(default_factory=dict)  # kind -> [caught, total]
    by_tag: dict[str, list[int]] = field(default_factory=dict)  # tag of a supported claim -> [passed, total]
    caught_by_tag: dict[str, list[int]] = field(default_factory=dict)  # tag of an unsupported claim -> [caught, total]
    posts_by_tag: dict[str, list[int]] = field(default_factory=dict)  # tag of a post -> [verdict right, total]
    posts: int = 0
    posts_right: int = 0
    no_substance_posts: int = 0
    no_substance_passed: int = 0
    misses: list[dict[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        rejected = self.unsupported_caught + (self.supported - self.supported_passed)
        return {
            "claims": self.supported + self.unsupported,
            "supported_claims": self.supported,
            "unsupported_claims": self.unsupported,
            "balanced_accuracy": round(self.balanced_accuracy, 4),
            "precision_of_rejections": round(self.unsupported_caught / rejected, 4) if rejected else None,
            "false_rejection_rate": round(self.false_rejection_rate, 4),
            "catch_rate": round(_ratio(self.unsupported_caught, self.unsupported), 4),
            "by_error_kind": {kind: round(_ratio(*counts), 4) for kind, counts in sorted(self.by_kind.items())},
            "supported_by_tag": {tag: round(_ratio(*counts), 4) for tag, counts in sorted(self.by_tag.items())},
            "caught_by_tag": {tag: round(_ratio(*counts), 4) for tag, counts in sorted(self.caught_by_tag.items())},
            "posts_right_by_tag": {tag: round(_ratio(*counts), 4) for tag, counts in sorted(self.posts_by_tag.items())},
            "honest_posts_held_back": round(self.honest_posts_held_back, 4),
            "post_verdict_accuracy": round(_ratio(self.posts_right, self.posts), 4),
            "no_substance_posts": self.no_substance_posts,
            "no_substance_passed": self.no_substance_passed,
        }

    @property
    def balanced_accuracy(self) -> float:
        return (_ratio(self.supported_passed, self.supported) + _ratio(self.unsupported_caught, self.unsupported)) / 2

    @property
    def false_rejection_rate(self) -> float:
        return 1 - _ratio(self.supported_passed, self.supported)

    @property
    def honest_posts_held_back(self) -> float:
        """Share of whole posts labelled ``passed`` that the gate did not pass."""
        right, total = self.posts_by_tag.get("expected_passed", [0, 0])
        return 1 - _ratio(right, total) if total else 0.0

    def tag_catch(self, tag: str) -> float:
        """Unsupported claims and posts with ``tag`` that the gate held back."""
        caught, total = self.caught_by_tag.get(tag, [0, 0])
        right, posts = self.posts_by_tag.get(tag, [0, 0])
        return _ratio(caught + right, total + posts)


def score_articles(articles: list[Article], gate: Gate) -> Score:
    score = Score()
    for article in articles:
        for claim in article.claims:
            passed = gate(claim.text, article).verdict == PASSED
            if claim.supported:
                score.supported += 1
                score.supported_passed += passed
                for tag in claim.tags | {"all"}:
                    counts = score.by_tag.setdefault(tag, [0, 0])
                    counts[0] += passed
                    counts[1] += 1
            else:
                score.unsupported += 1
                score.unsupported_caught += not passed
                counts = score.by_kind.setdefault(claim.kind, [0, 0])
                counts[0] += not passed
                counts[1] += 1
                for tag in claim.tags:
                    counts = score.caught_by_tag.setdefault(tag, [0, 0])
                    counts[0] += not passed
                    counts[1] += 1
            if passed != claim.supported:
                score.misses.append({"article": article.name, "label": claim.kind, "claim": claim.text})
        for post in article.posts:
            verdict = gate(post.text, article).verdict
            score.posts += 1
            score.posts_right += verdict == post.expected
            if post.expected == NO_SUBSTANCE:
                score.no_substance_posts += 1
                score.no_substance_passed += verdict == PASSED
            for tag in post.tags | {f"expected_{post.expected}"}:
                counts = score.posts_by_tag.setdefault(tag, [0, 0])
                counts[0] += verdict == post.expected
                counts[1] += 1
            if verdict != post.expected:
                score.misses.append({"article": article.name, "label": f"post:{post.expected}", "claim": post.text})
    return score


def target_failures(score: Score) -> list[str]:
    failures: list[str] = []
    if score.balanced_accuracy < TARGETS["balanced_accuracy_min"]:
        failures.append(f"balanced accuracy {score.balanced_accuracy:.3f} < {TARGETS['balanced_accuracy_min']}")
    if score.false_rejection_rate > TARGETS["false_rejection_rate_max"]:
        failures.append(
            f"false rejection rate {score.false_rejection_rate:.3f} > {TARGETS['false_rejection_rate_max']}"
        )
    for kind in ERROR_KINDS:
        caught, total = score.by_kind.get(kind, [0, 0])
        if not total:
            failures.append(f"no labelled claims of kind {kind!r}")
        elif caught / total < TARGETS["error_kind_catch_min"]:
            failures.append(f"{ERROR_KINDS[kind]} caught {caught}/{total} < {TARGETS['error_kind_catch_min']:.0%}")
    if score.no_substance_passed > TARGETS["no_substance_passed_max"]:
        failures.append(f"{score.no_substance_passed} no-substance posts passed")
    return failures


def style_target_failures(score: Score) -> list[str]:
    """Issue 9's targets on the style split (no LLM)."""
    failures: list[str] = []
    if score.balanced_accuracy < STYLE_TARGETS["balanced_accuracy_min"]:
        failures.append(f"balanced accuracy {score.balanced_accuracy:.3f} < {STYLE_TARGETS['balanced_accuracy_min']}")
    if score.honest_posts_held_back > STYLE_TARGETS["honest_posts_held_back_max"]:
        failures.append(
            f"honest posts held back {score.honest_posts_held_back:.3f} > {STYLE_TARGETS['honest_posts_held_back_max']}"
        )
    for tag, key, label in (
        ("short", "short_invented_caught_min", "short invented sentences"),
        ("swap", "single_word_swaps_caught_min", "single-word swaps"),
    ):
        if score.tag_catch(tag) < STYLE_TARGETS[key]:
            failures.append(f"{label} caught {score.tag_catch(tag):.3f} < {STYLE_TARGETS[key]}")
    return failures


def report_lines(scores: dict[str, Score]) -> list[str]:
    """A plain-text table: one column per gate."""
    names = list(scores)
    rows: list[tuple[str, list[str]]] = []

    def add(label: str, values: list[str]) -> None:
        rows.append((label, values))

    dicts = {name: scores[name].as_dict() for name in names}
    add(
        "claims (supported / unsupported)",
        [f"{d['supported_claims']} / {d['unsupported_claims']}" for d in dicts.values()],
    )
    add("balanced accuracy", [_fmt(d["balanced_accuracy"]) for d in dicts.values()])
    add("precision of rejections", [_fmt(d["precision_of_rejections"]) for d in dicts.values()])
    add("false rejection rate", [_fmt(d["false_rejection_rate"]) for d in dicts.values()])
    add("unsupported caught", [_fmt(d["catch_rate"]) for d in dicts.values()])
    for kind, label in ERROR_KINDS.items():
        add(f"  caught: {label}", [_kind_cell(scores[name], kind) for name in names])
    add("supported body-only claims passed", [_tag_cell(scores[name], "body") for name in names])
    add("supported paraphrases passed", [_tag_cell(scores[name], "para") for name in names])
    add("post verdicts right", [f"{scores[name].posts_right}/{scores[name].posts}" for name in names])
    add("honest posts held back", [_fmt(scores[name].honest_posts_held_back) for name in names])
    add("  caught: short invented (tag)", [_fmt(scores[name].tag_catch("short")) for name in names])
    add("  caught: single-word swap (tag)", [_fmt(scores[name].tag_catch("swap")) for name in names])
    add(
        "no-substance posts passed",
        [f"{scores[name].no_substance_passed}/{scores[name].no_substance_posts}" for name in names],
    )
    width = max(len(label) for label, _ in rows) + 2
    lines = [" " * width + "".join(f"{name:>16}" for name in names)]
    lines.extend(f"{label:<{width}}" + "".join(f"{value:>16}" for value in values) for label, values in rows)
    return lines


def _kind_cell(score: Score, kind: str) -> str:
    caught, total = score.by_kind.get(kind, [0, 0])
    return f"{caught}/{total} {_fmt(_ratio(caught, total))}"


def _tag_cell(score: Score, tag: str) -> str:
    passed, total = score.by_tag.get(tag, [0, 0])
    return f"{passed}/{total}"


def _fmt(value: object) -> str:
    """A rate from Score.as_dict (a float, or None where it is undefined) to three places."""
    if value is None:
        return "n/a"
    if not isinstance(value, int | float):
        raise TypeError(f"not a rate: {value!r}")
    return f"{value:.3f}"


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0
