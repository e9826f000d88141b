"""Draw the demo's article lead images (demo/audio/images/*.jpg) once; the JPEGs are committed.

    .venv/bin/python scripts/demo_images.py

A dev-only tool: each picture is a small SVG scene that headless Chromium (the one the
browser test drives, through Playwright from the dev dependencies) renders and saves as
a JPEG of a few KB. Nothing at run time needs this script, Chromium or Playwright.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from playwright.sync_api import sync_playwright

OUT = Path(__file__).resolve().parent.parent / "demo" / "audio" / "images"
WIDTH, HEIGHT = 640, 336
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def _turntable() -> str:
    return """
<rect width="640" height="336" fill="#e9dfcf"/>
<rect x="120" y="40" width="400" height="260" rx="14" fill="#8a5a34"/>
<rect x="120" y="280" width="400" height="20" fill="#6d4527"/>
<circle cx="270" cy="165" r="112" fill="#222"/>
<circle cx="270" cy="165" r="100" fill="#111" stroke="#2c2c2c" stroke-width="10"/>
<circle cx="270" cy="165" r="36" fill="#c8402e"/>
<circle cx="270" cy="165" r="5" fill="#ddd"/>
<circle cx="455" cy="80" r="20" fill="#bbb"/>
<path d="M455 80 L440 230 L395 262" stroke="#d8d8d8" stroke-width="7" fill="none" stroke-linecap="round"/>
<rect x="378" y="252" width="26" height="16" rx="3" fill="#333"/>
<circle cx="160" cy="270" r="9" fill="#ccc"/>"""


def _amplifier() -> str:
    knobs = "".join(
        f'<circle cx="{x}" cy="190" r="{r}" fill="#c9c9c9" stroke="#888" stroke-width="3"/>'
        for x, r in ((160, 30), (480, 44), (260, 14), (310, 14), (360, 14))
    )
    return f"""
<rect width="640" height="336" fill="#1d2b3a"/>
<rect x="60" y="110" width="520" height="150" rx="8" fill="#b9b9b9"/>
<rect x="60" y="110" width="520" height="18" fill="#d6d6d6"/>
<rect x="60" y="250" width="520" height="10" fill="#8e8e8e"/>
{knobs}
<rect x="228" y="225" width="150" height="8" rx="4" fill="#ff9d2e"/>
<text x="320" y="160" font-family="Georgia, serif" font-size="20" fill="#333" text-anchor="middle">A40</text>"""


def _speakers() -> str:
    def speaker(x: int) -> str:
        return (
            f'<rect x="{x}" y="50" width="150" height="230" rx="6" fill="#6b4124"/>'
            f'<circle cx="{x + 75}" cy="100" r="22" fill="#222"/><circle cx="{x + 75}" cy="100" r="9" fill="#555"/>'
            f'<circle cx="{x + 75}" cy="195" r="55" fill="#222"/><circle cx="{x + 75}" cy="195" r="20" fill="#3a3a3a"/>'
            f'<rect x="{x + 20}" y="280" width="110" height="56" fill="#333"/>'
        )

    room = '<rect width="640" height="336" fill="#d7e3e8"/><rect y="300" width="640" height="36" fill="#9a8a74"/>'
    return room + speaker(120) + speaker(370)


def _vinyl_sales() -> str:
    bars = "".join(
        f'<rect x="{330 + i * 50}" y="{280 - h}" width="34" height="{h}" fill="#2e7d5b"/>'
        for i, h in enumerate((70, 95, 120, 150, 185))
    )
    records = "".join(
        f'<circle cx="{150 + dx}" cy="170" r="105" fill="#111" stroke="#333" stroke-width="6"/>'
        f'<circle cx="{150 + dx}" cy="170" r="32" fill="{color}"/>'
        for dx, color in ((-20, "#e0b531"), (20, "#d4563c"))
    )
    axis = '<rect x="320" y="280" width="270" height="4" fill="#333"/>'
    return f'<rect width="640" height="336" fill="#f4efe6"/>{records}{bars}{axis}'


def _record_store_day() -> str:
    queue = "".join(
        f'<circle cx="{60 + i * 48}" cy="232" r="14" fill="{c}"/>'
        f'<rect x="{48 + i * 48}" y="248" width="24" height="52" rx="8" fill="{c}"/>'
        for i, c in enumerate(("#394b59", "#a33", "#2f6f8f", "#6a5", "#444", "#b7792e", "#735", "#2f6f8f", "#a33"))
    )
    return f"""
<rect width="640" height="336" fill="#9fc3d9"/>
<rect y="300" width="640" height="36" fill="#6f6a64"/>
<rect x="360" y="40" width="260" height="260" fill="#1f5c7a"/>
<rect x="380" y="60" width="220" height="40" fill="#f2e6c9"/>
<text x="490" y="88" font-family="Georgia, serif" font-size="22" fill="#1f5c7a" text-anchor="middle">
SPINDLE RECORDS</text>
<rect x="385" y="120" width="90" height="120" fill="#cfe3ee"/>
<circle cx="430" cy="180" r="34" fill="#111"/><circle cx="430" cy="180" r="10" fill="#e0b531"/>
<rect x="500" y="120" width="95" height="180" fill="#123c52"/>
{queue}"""


def _headphones() -> str:
    pairs = "".join(
        f'<path d="M{x - 55} 190 A 55 70 0 0 1 {x + 55} 190" stroke="{c}" stroke-width="12" fill="none"/>'
        f'<rect x="{x - 72}" y="175" width="34" height="62" rx="14" fill="{c}"/>'
        f'<rect x="{x + 38}" y="175" width="34" height="62" rx="14" fill="{c}"/>'
        for x, c in ((120, "#222"), (320, "#b08d57"), (520, "#3b5f8a"))
    )
    shelf = '<rect y="262" width="640" height="74" fill="#d9d2c5"/>'
    return f'<rect width="640" height="336" fill="#efece6"/>{shelf}{pairs}'


def _show() -> str:
    banners = "".join(
        f'<rect x="{40 + i * 150}" y="40" width="110" height="150" fill="{c}"/>'
        f'<rect x="{55 + i * 150}" y="60" width="80" height="10" fill="#fff"/>'
        for i, c in enumerate(("#7a2e3b", "#2e5e7a", "#3b7a2e", "#7a6a2e"))
    )
    crowd = "".join(
        f'<circle cx="{30 + i * 42}" cy="{250 + (i % 2) * 10}" r="15" fill="{c}"/>'
        for i, c in enumerate(("#333", "#654", "#456", "#345", "#533", "#444", "#365") * 2)
    )
    floor = '<rect y="200" width="640" height="136" fill="#4a4a55"/>'
    return f'<rect width="640" height="336" fill="#2b2b33"/>{floor}{banners}{crowd}'


def _factory() -> str:
    panels = "".join(
        f'<rect x="{110 + i * 46}" y="92" width="40" height="22" fill="#24466e" stroke="#9bb" stroke-width="1"/>'
        for i in range(9)
    )
    return f"""
<rect width="640" height="336" fill="#bcd8e6"/>
<path d="M0 250 Q 160 170 320 230 T 640 200 L640 336 L0 336Z" fill="#6e8f5a"/>
<rect x="90" y="120" width="460" height="170" fill="#d9d4cc"/>
<polygon points="90,120 320,80 550,120" fill="#8d8d8d"/>
{panels}
<rect x="280" y="200" width="80" height="90" fill="#5c4a3a"/>
<rect x="130" y="160" width="100" height="40" fill="#8fb3c9"/>
<rect x="410" y="160" width="100" height="40" fill="#8fb3c9"/>
<text x="320" y="150" font-family="Helvetica, Arial, sans-serif" font-size="22" fill="#333" text-anchor="middle">
HALDEN</text>"""


IMAGES = {
    "kestrel-glide-3.jpg": _turntable,
    "aldwyn-a40.jpg": _amplifier,
    "tarn-ls5.jpg": _speakers,
    "vinyl-sales.jpg": _vinyl_sales,
    "record-store-day.jpg": _record_store_day,
    "headphones-roundup.jpg": _headphones,
    "north-sound-show.jpg": _show,
    "halden-factory.jpg": _factory,
}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        for name, scene in IMAGES.items():
            svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}">{scene()}</svg>'
            page.set_content(f'<html><body style="margin:0">{svg}</body></html>')
            path = OUT / name
            page.screenshot(path=str(path), type="jpeg", quality=60)
            print(f"{path.relative_to(OUT.parent.parent.parent)}: {path.stat().st_size} bytes")
        browser.close()


if __name__ == "__main__":
    main()
