"""What a phone user trips over, found in the page itself by Chromium: the customer's pages
(tests/test_browser_demo.py) and the operator's (tests/cron/test_console_phone.py) share it."""

# Small fields (phones zoom into them), tap targets under 44 px high, and a page wider than
# the screen (it scrolls sideways). Returns one line per problem; [] when there is none.
PHONE_PROBLEMS_JS = """() => {
    const out = [];
    const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
    const fields = "input:not([type=hidden]):not([type=checkbox]), select, textarea";
    for (const el of document.querySelectorAll(fields)) {
        if (shown(el) && parseFloat(getComputedStyle(el).fontSize) < 16) out.push("small field " + el.name);
    }
    const targets = "button, a.button, nav a, input:not([type=hidden]):not([type=checkbox]), select";
    for (const el of document.querySelectorAll(targets)) {
        if (shown(el) && el.getBoundingClientRect().height < 44) {
            out.push("short target " + el.textContent.trim().slice(0, 30));
        }
    }
    const width = document.scrollingElement.scrollWidth;
    if (width > window.innerWidth + 1) out.push("scrolls sideways: " + width);
    return out;
}"""
