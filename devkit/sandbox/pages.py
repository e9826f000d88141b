"""The few HTML pages the sandbox serves to people: consent dialog, permalinks, errors."""

from __future__ import annotations

import html


def html_page(title: str, body: str) -> str:
    """A minimal mobile-friendly page; ``body`` must already be escaped HTML."""
    return (
        "<!doctype html><html><head><meta charset='utf-8'><meta name='viewport' content='width=device-width'>"
        f"<title>{html.escape(title)}</title><style>body{{font-family:system-ui;max-width:36rem;margin:2rem auto;"
        f"padding:0 1rem}}.who{{color:#555}}button{{font-size:1rem;margin:.3rem}}</style></head><body>{body}"
        "<p style='color:#999;font-size:.8rem'>Landed Graph sandbox</p></body></html>"
    )
