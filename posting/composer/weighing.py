"""The last word on relevance: every signal the ranker has, weighed together (issue 10).

The rules of ``relevance.py`` each look at one thing (the words' share against a bar, the words'
evidence, closeness in meaning, the trade contrast) and each was tuned a split at a time. On
articles none of them was tuned on, an article near the bar was as likely off-topic as on it:
eight fresh splits at first contact pooled at precision 0.858 (docs/BENCHMARKS.md). What told the
two apart was not any one signal but how they stack up: an off-topic article let in near the bar
tends to carry one or two words of the trade where a relevant one carries four, and to sit closer
to another trade of the taxonomy.

So the decision, when the sentence model is there, is a logistic weighing of those signals
(``Signals``), fitted by ``scripts/relevance_fit.py`` on the labelled splits of
``tests/data/compose`` that are not held out, and stored in ``data/relevance_weighing.json``: the
features' names, their mean and spread on the data, a weight each, the intercept and the
likelihood an article needs. The fit is chosen by leaving one split out at a time, and the
script prints that table; docs/BENCHMARKS.md ("Session 16") has the numbers. Without the sentence
model, relevance stays the words' rules alone.

Pure: no Django, numbers in, numbers out. The file is read once per process.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

WEIGHING_FILE = Path(__file__).resolve().parent / "data" / "relevance_weighing.json"
# The fewest posts of its own a business must have for its signals to be weighed: the fewest of any
# business the fit saw (blind20's bookkeeper, 3). A customer who has imported one or two posts is
# outside what the fit knows (on the dev split's articles, a hi-fi dealer of one post had a vinyl
# sales record weighed out that the rules let in), so the rules decide for it.
MIN_POSTS = 3


@dataclass(frozen=True)
class Signals:
    """What the ranker knows of one article for one business, as the weighing reads it."""

    # The combined score (the words' share and closeness in meaning, averaged) and how far it is
    # above (or below) the business's bar.
    score: float
    margin: float
    # The words' share of the article's key terms.
    share: float
    # Closeness in meaning to the posts, and with the industry line and names read as posts too.
    meaning: float
    described: float
    # The article's closeness to the business's own trade minus the nearest other trade's
    # (None: the taxonomy does not place the business).
    contrast: float | None
    no_industry: bool
    # The words: the share from its places and from its trade's words; a trade word in the
    # headline; the headline's words of ours (places aside); how many trade words, and how many
    # words of ours (places aside), weigh as evidence; whether the heaviest word is a trade word.
    place_share: float
    trade_share: float
    trade_in_headline: bool
    headline_words: int
    trade_words: int
    evidence_words: int
    top_is_trade: bool
    # The rules' own verdicts: the words' evidence, and whether the rules let it in.
    evidence: bool
    admitted: bool

    def values(self) -> dict[str, float]:
        return {
            "score": self.score,
            "share": self.share,
            "meaning": self.meaning,
            "described": self.described,
            "contrast": self.contrast if self.contrast is not None else 0.0,
            "no_contrast": float(self.contrast is None),
            "no_industry": float(self.no_industry),
            "place_share": self.place_share,
            "trade_share": self.trade_share,
            "trade_head": float(self.trade_in_headline),
            "n_head": float(self.headline_words),
            "n_trade": float(self.trade_words),
            "n_ev": float(self.evidence_words),
            "top_trade": float(self.top_is_trade),
            "cur": float(self.admitted),
            "evidence": float(self.evidence),
            "margin": self.margin,
        }


FEATURES: tuple[str, ...] = tuple(
    Signals(0, 0, 0, 0, 0, None, False, 0, 0, False, 0, 0, 0, False, False, False).values()
)


@dataclass(frozen=True)
class Weighing:
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    intercept: float
    # The likelihood an article needs to be drafted.
    likelihood_min: float

    def likelihood(self, signals: Signals) -> float:
        """The fitted likelihood that the business's owner would share the article, in (0, 1)."""
        return 1.0 / (1.0 + math.exp(-self.logit(signals)))

    def logit(self, signals: Signals) -> float:
        return self.intercept + sum(self.contributions(signals).values())

    def contributions(self, signals: Signals) -> dict[str, float]:
        values = signals.values()
        return {
            name: weight * (values[name] - mean) / scale
            for name, mean, scale, weight in zip(self.features, self.mean, self.scale, self.weights, strict=True)
        }


class WeighingFileError(ValueError):
    pass


def weighing_parse(data: dict[str, object]) -> Weighing:
    """A weighing from the file's JSON, checked against the features ``Signals`` gives: a file
    fitted on other features is refused rather than read wrongly."""
    try:
        features = tuple(str(name) for name in data["features"])  # type: ignore[attr-defined]
        columns = [tuple(float(x) for x in data[key]) for key in ("mean", "scale", "weights")]  # type: ignore[attr-defined]
        intercept = float(data["intercept"])  # type: ignore[arg-type]
        likelihood_min = float(data["likelihood_min"])  # type: ignore[arg-type]
    except (KeyError, TypeError, ValueError) as error:
        raise WeighingFileError(f"relevance weighing file is malformed: {error}") from error
    if set(features) != set(FEATURES) or len(features) != len(FEATURES):
        raise WeighingFileError(f"relevance weighing file has features {features}, expected {FEATURES}")
    if any(len(column) != len(features) for column in columns) or any(s <= 0 for s in columns[1]):
        raise WeighingFileError("relevance weighing file: mean, scale and weights must match the features")
    if not 0.0 < likelihood_min < 1.0:
        raise WeighingFileError("relevance weighing file: likelihood_min must be in (0, 1)")
    return Weighing(features, columns[0], columns[1], columns[2], intercept, likelihood_min)


@lru_cache(maxsize=1)
def weighing() -> Weighing | None:
    """The fitted weighing (None: no file, and relevance keeps its rules' verdict). A malformed
    file raises: it ships with the code, so a broken one is a bug to see, not a night to lose."""
    if not WEIGHING_FILE.exists():
        return None
    return weighing_parse(json.loads(WEIGHING_FILE.read_text()))


# What the reader is told weighed most against an article, by feature. Only signals whose
# direction a reader can follow are named; the rest still count.
AGAINST = {
    "margin": "its relevance score is near the bar",
    "contrast": "it is closer to another trade",
    "n_trade": "few words of our trade weigh in it",
    "n_ev": "few of our words weigh in it",
    "meaning": "it is not close in meaning to our posts",
    "described": "it is not close in meaning to our posts",
}


def weighed_against(found: Weighing, signals: Signals, *, most: int = 2) -> list[str]:
    """The plain reasons that pulled the likelihood down most, strongest first."""
    reasons: list[str] = []
    for name, contribution in sorted(found.contributions(signals).items(), key=lambda item: item[1]):
        reason = AGAINST.get(name)
        if contribution >= 0 or reason is None or reason in reasons:
            continue
        reasons.append(reason)
        if len(reasons) == most:
            break
    return reasons
