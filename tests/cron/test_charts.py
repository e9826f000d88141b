"""The console's SVG charts, pinned to the letter for fixed data.

The strings below were produced by the charts before their shared frame was factored out
(``cron.charts._chart_frame``); any change to the markup, the scale or the escaping shows here.
"""

from __future__ import annotations

from datetime import date

from cron.charts import bar_chart, line_chart

FRAME = '<svg class="chart" viewBox="0 0 300 80" role="img" preserveAspectRatio="none">'
BASELINE = '<line x1="4" y1="76" x2="296" y2="76" stroke="#e3e6ec"/>'


def test_a_line_chart_draws_each_series_on_one_scale_and_escapes_labels() -> None:
    svg = line_chart(
        series=[("drafts <new>", "#1a56db", [0, 3, 5]), ("landed", "#137333", [0, 1, 2])],
        title="Harbour & Bikes: funnel",
    )
    assert str(svg) == (
        f"{FRAME}<title>Harbour &amp; Bikes: funnel (max 5 a day)</title>{BASELINE}"
        '<polyline fill="none" stroke="#1a56db" stroke-width="1.6" points="4.0,76.0 150.0,32.8 296.0,4.0">'
        "<title>drafts &lt;new&gt;: 8</title></polyline>"
        '<polyline fill="none" stroke="#137333" stroke-width="1.6" points="4.0,76.0 150.0,61.6 296.0,47.2">'
        "<title>landed: 3</title></polyline></svg>"
    )


def test_a_bar_chart_stacks_its_series_bottom_up_and_skips_zeros() -> None:
    svg = bar_chart(
        days=[date(2026, 11, 29), date(2026, 11, 30), date(2026, 12, 1)],
        stacks=[("landed", "#137333", [1, 0, 2]), ("failed", "#b45309", [0, 0, 1])],
        title="Landed per day",
    )
    assert str(svg) == (
        f"{FRAME}<title>Landed per day (max 3 a day)</title>{BASELINE}"
        '<rect x="4.5" y="52.0" width="96.3" height="24.0" fill="#137333"><title>2026-11-29 landed: 1</title></rect>'
        '<rect x="199.2" y="28.0" width="96.3" height="48.0" fill="#137333"><title>2026-12-01 landed: 2</title></rect>'
        '<rect x="199.2" y="4.0" width="96.3" height="24.0" fill="#b45309"><title>2026-12-01 failed: 1</title></rect>'
        "</svg>"
    )


def test_empty_charts_are_a_frame_and_a_baseline() -> None:
    assert str(line_chart(series=[], title="empty")) == f"{FRAME}<title>empty (max 0 a day)</title>{BASELINE}</svg>"
    empty_bars = bar_chart(days=[], stacks=[], title="none")
    assert str(empty_bars) == f"{FRAME}<title>none (max 0 a day)</title>{BASELINE}</svg>"
