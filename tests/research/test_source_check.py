"""``manage.py source_check``: the operator's one-command answer to "why is this source empty?"."""

from __future__ import annotations

import json
import time
from io import StringIO

from django.core.management import call_command

from devkit.demo_feeds import RSS_PATH
from tests.research import servers


def source_check(*args: str) -> str:
    out = StringIO()
    call_command("source_check", *args, stdout=out)
    return out.getvalue()


def test_it_reports_a_healthy_feed_and_its_newest_article_as_json(demo_site) -> None:
    report = json.loads(source_check(f"{demo_site.base_url}{RSS_PATH}", "--json"))

    assert report["ok"] is True
    assert (report["status"], report["error_kind"], report["entries"]) == (200, "", 12)
    assert report["elapsed_s"] >= 0 and report["bytes_read"] > 0
    assert report["article"]["extraction_status"] == "ok"
    assert report["article"]["url"].endswith("/articles/nature.com.telescope.html")
    assert report["article"]["text_chars"] > 500


def test_it_says_why_a_source_is_empty(hostile) -> None:
    hostile.behaviours["/blocked"] = servers.static(403, servers.BLOCK_PAGE, "text/html")

    report = json.loads(source_check(f"{hostile.base_url}/blocked", "--json"))

    assert (report["ok"], report["error_kind"], report["status"], report["entries"]) == (False, "blocked", 403, 0)


def test_it_refuses_private_addresses_like_the_research_stage() -> None:
    report = json.loads(source_check("http://169.254.169.254/latest/meta-data/", "--json"))

    assert (report["ok"], report["error_kind"]) == (False, "refused_address")


def test_it_never_hangs_past_the_fetch_deadline(hostile, settings) -> None:
    settings.RESEARCH_TIMEOUT_S = 1.0
    hostile.behaviours["/drip"] = servers.drip()
    started = time.monotonic()

    report = json.loads(source_check(f"{hostile.base_url}/drip", "--json"))

    assert report["error_kind"] == "timeout"
    assert time.monotonic() - started < 6


def test_the_human_readable_report_names_the_problem(hostile) -> None:
    hostile.behaviours["/feed"] = servers.static(200, servers.rss([("a", f"{hostile.base_url}/denied")]), "text/xml")
    hostile.behaviours["/denied"] = servers.static(200, servers.CONSENT_WALL, "text/html")

    output = source_check(f"{hostile.base_url}/feed")

    assert "NOT OK: blocked" in output
    assert "entries: 1" in output
    assert "extraction: blocked" in output
