"""Demo feeds over the twelve real article pages bundled in ``demo/articles/``.

``demo_feed_site(base_url)`` returns the routes for a ``StaticSiteServer``: an RSS 2.0 feed
with all twelve stories, an Atom feed with six of them (the overlap shows one story stored
once for two feeds), and the pages themselves under ``/articles/<file>``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from xml.sax.saxutils import escape

from research.devserver import StaticSiteServer

ARTICLES_DIR = Path(__file__).resolve().parent.parent / "demo" / "articles"
RSS_PATH = "/feeds/industry.rss"
ATOM_PATH = "/feeds/science.atom"

# (file, title, author, summary): what each page's own publisher would put in its feed.
STORIES = [
    (
        "nature.com.telescope.html",
        "Gigantic Chinese telescope opens to astronomers worldwide",
        "Elizabeth Gibney",
        "FAST, the world's largest single-dish radio telescope, invites international proposals.",
    ),
    (
        "phys.org.tool.html",
        "Flint flake tool partially covered by birch tar adds to evidence of Neanderthal complex thinking",
        "Bob Yirka",
        "A find on the Dutch coast suggests Neanderthals made birch tar on purpose.",
    ),
    (
        "nationalgeographic.co.uk.goats.html",
        "Ravenous wild goats ruled this island for over a century. Now, it's being reborn.",
        "Michael Hingston",
        "After the goats of Mexico's Guadalupe Island were removed, the forest is returning.",
    ),
    (
        "salon.com.emissions.html",
        "Despite everything, U.S. emissions dipped in 2019",
        "Nathanael Johnson",
        "Coal's decline pushed US greenhouse gas emissions down last year.",
    ),
    (
        "theverge.com.ios13.html",
        "iOS 13 will fix the FaceTime eye contact problem",
        "Jon Porter",
        "A new beta setting adjusts your gaze so you appear to look at the camera.",
    ),
    (
        "github.blog.spiceland.html",
        "Leader spotlight: Erin Spiceland",
        "Jessica Rudder",
        "A conversation about engineering leadership, learning and building teams.",
    ),
    (
        "blog.python.org.html",
        "Python 3.6.0 is now available!",
        "Ned Deily",
        "The new major release brings f-strings, async generators and more.",
    ),
    (
        "caktusgroup.com.django.html",
        "Testing Client-Side Applications with Django Post Mortem",
        "Mark Lavin",
        "What we learned running a workshop on testing JavaScript front ends with Django.",
    ),
    (
        "gregoryszorc.com.python3.html",
        "Mercurial's Journey to and Reflections on Python 3",
        "Gregory Szorc",
        "A long look back at porting a large Python 2 code base to Python 3.",
    ),
    (
        "lemire.me.json.html",
        "JSON parsing: simdjson vs. JSON for Modern C++",
        "Daniel Lemire",
        "How much faster is a SIMD JSON parser than a popular C++ library?",
    ),
    (
        "boingboing.net.millenials.html",
        "Hating Millennials - the prejudice you're allowed to boast about",
        "Cory Doctorow",
        "On the generational blame game and who it serves.",
    ),
    (
        "iloveponysmag.com.barbour.html",
        "Outdoor lovers: the Barbour jacket, reconsidered",
        "I Love Ponys",
        "A wax jacket for the city and the countryside alike.",
    ),
]
ATOM_STORIES = STORIES[:6]


def demo_feed_site(base_url: str) -> dict[str, tuple[bytes, str]]:
    """Routes for a StaticSiteServer serving the demo feeds and article pages at ``base_url``."""
    base_url = base_url.rstrip("/")
    now = datetime.now(tz=UTC).replace(minute=0, second=0, microsecond=0)
    dated = [(story, now - timedelta(hours=3 * index + 1)) for index, story in enumerate(STORIES)]
    routes: dict[str, tuple[bytes, str]] = {
        RSS_PATH: (_rss(base_url, dated), "application/rss+xml; charset=utf-8"),
        ATOM_PATH: (_atom(base_url, dated[: len(ATOM_STORIES)]), "application/atom+xml; charset=utf-8"),
    }
    for file_name, *_rest in STORIES:
        routes[f"/articles/{file_name}"] = ((ARTICLES_DIR / file_name).read_bytes(), "text/html; charset=utf-8")
    return routes


def demo_site_server(*, port: int = 0) -> StaticSiteServer:
    """A started server with the demo routes (its base URL is only known once it is bound)."""
    server = StaticSiteServer({}, port=port)
    server.update(demo_feed_site(server.base_url))
    return server.start()


def _rss(base_url: str, dated: list[tuple[tuple[str, str, str, str], datetime]]) -> bytes:
    items = "".join(
        f"""
    <item>
      <title>{escape(title)}</title>
      <link>{base_url}/articles/{file_name}</link>
      <guid isPermaLink="false">landed-demo:{file_name}</guid>
      <pubDate>{format_datetime(published)}</pubDate>
      <dc:creator>{escape(author)}</dc:creator>
      <description>{escape(summary)}</description>
    </item>"""
        for (file_name, title, author, summary), published in dated
    )
    newest = format_datetime(dated[0][1])
    return f"""<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel>
    <title>Landed demo: industry news</title>
    <link>{base_url}/</link>
    <description>Stories from around the web, served locally for the Landed demo.</description>
    <language>en</language>
    <lastBuildDate>{newest}</lastBuildDate>{items}
  </channel>
</rss>
""".encode()


def _atom(base_url: str, dated: list[tuple[tuple[str, str, str, str], datetime]]) -> bytes:
    entries = "".join(
        f"""
  <entry>
    <title>{escape(title)}</title>
    <link rel="alternate" type="text/html" href="{base_url}/articles/{file_name}?utm_source=atom&amp;utm_medium=feed"/>
    <id>tag:landed.example,2026:{file_name}</id>
    <updated>{published.isoformat()}</updated>
    <author><name>{escape(author)}</name></author>
    <summary>{escape(summary)}</summary>
  </entry>"""
        for (file_name, title, author, summary), published in dated
    )
    return f"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Landed demo: science and technology</title>
  <link rel="self" href="{base_url}{ATOM_PATH}"/>
  <id>tag:landed.example,2026:science</id>
  <updated>{dated[0][1].isoformat()}</updated>{entries}
</feed>
""".encode()
