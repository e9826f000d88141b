"""Server-rendered SVG charts for the console: no build step, no script, no CDN.

Each chart is a small inline ``<svg>`` with a ``viewBox``, so it scales to a phone's width.
Only numbers and our own labels go into the markup, and labels are escaped anyway.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

WIDTH = 300
HEIGHT = 80
PAD = 4
# One colour per funnel stage, researched → landed, dark enough to read on white.
STAGE_COLOURS = ("#9aa3b5", "#6b7a99", "#1a56db", "#7e3af2", "#b45309", "#137333")


def _y(value: float, top: float) -> float:
    usable = HEIGHT - 2 * PAD
    return round(HEIGHT - PAD - (value / top) * usable, 1) if top else HEIGHT - PAD


def _chart_frame(*, title: str, top: int, marks: Sequence[SafeString]) -> SafeString:
    """The ``<svg>`` every chart shares: its title (with the scale's top) and the baseline,
    then the chart's own marks, each already built by ``format_html``."""
    return format_html(
        '<svg class="chart" viewBox="0 0 {} {}" role="img" preserveAspectRatio="none"><title>{} (max {} a day)</title>'
        '<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#e3e6ec"/>{}</svg>',
        WIDTH,
        HEIGHT,
        title,
        top,
        PAD,
        HEIGHT - PAD,
        WIDTH - PAD,
        HEIGHT - PAD,
        mark_safe("".join(marks)),  # noqa: S308 (each mark was built by format_html)
    )


def line_chart(*, series: Sequence[tuple[str, str, Sequence[int]]], title: str) -> SafeString:
    """Several daily series on one scale: (label, colour, values). The tooltip of each line
    names its series and its total; the chart's <title> says what it shows."""
    top = max((max(values, default=0) for _, _, values in series), default=0)
    days = max((len(values) for _, _, values in series), default=0)
    step = (WIDTH - 2 * PAD) / max(days - 1, 1)
    lines = []
    for label, colour, values in series:
        points = " ".join(f"{round(PAD + i * step, 1)},{_y(v, top)}" for i, v in enumerate(values))
        lines.append(
            format_html(
                '<polyline fill="none" stroke="{}" stroke-width="1.6" points="{}"><title>{}: {}</title></polyline>',
                colour,
                points,
                label,
                sum(values),
            )
        )
    return _chart_frame(title=title, top=top, marks=lines)


def bar_chart(*, days: Sequence[date], stacks: Sequence[tuple[str, str, Sequence[int]]], title: str) -> SafeString:
    """Daily bars, the given series stacked bottom-up: (label, colour, values)."""
    totals = [sum(values[i] for _, _, values in stacks) for i in range(len(days))]
    top = max(totals, default=0)
    slot = (WIDTH - 2 * PAD) / max(len(days), 1)
    bars = []
    for i, day in enumerate(days):
        base = 0
        for label, colour, values in stacks:
            value = values[i]
            if value:
                y_top, y_base = _y(base + value, top), _y(base, top)
                bars.append(
                    format_html(
                        '<rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{} {}: {}</title></rect>',
                        round(PAD + i * slot + 0.5, 1),
                        y_top,
                        round(max(slot - 1, 0.5), 1),
                        round(y_base - y_top, 1),
                        colour,
                        day.isoformat(),
                        label,
                        value,
                    )
                )
            base += value
    return _chart_frame(title=title, top=top, marks=bars)


def legend(items: Sequence[tuple[str, str, int]]) -> SafeString:
    """(label, colour, total) as a line of coloured keys under a chart."""
    return mark_safe(  # noqa: S308 (every part is escaped by format_html)
        " ".join(
            format_html(
                # A swatch drawn in SVG (a fill, not a style attribute: the CSP refuses inline styles).
                '<span class="key"><svg class="swatch" viewBox="0 0 10 10" aria-hidden="true">'
                '<rect width="10" height="10" rx="2" fill="{}"/></svg>{} {}</span>',
                colour,
                label,
                total,
            )
            for label, colour, total in items
        )
    )
