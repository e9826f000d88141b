"""The factual gate: every claim in a draft checked against the article's full text.

``core`` is pure (no Django) so the operator commands, the evaluation and the benchmark
run it without a database; ``services`` stores its verdicts on drafts.
"""
