"""The demo feed site: the feeds ``make run``'s hi-fi dealer reads, and the fixtures tests use.

``demo_feed_site(base_url)`` returns the routes for a ``StaticSiteServer``:

- ``AUDIO_FEED_PATH``, an RSS feed of the eight audio-trade stories in ``demo/audio/``
  (written for the demo: launches, a sales report, a local record-store day, reviews, a
  show report, a factory), each page with its own lead image under ``/audio/images/``;
- ``DIGEST_FEED_PATH``, an Atom "news digest" that mixes four off-topic real pages with
  two of the audio stories (tracking-tagged links: one story, stored once for two feeds),
  so an account's relevance ranking has something to turn down;
- ``RSS_PATH`` and ``ATOM_PATH``, the twelve real pages of ``demo/articles/`` (all twelve,
  and six of them), which the research tests and ``scripts/bench_research.py`` rely on.

The audio pages are templates: ``{{site}}`` becomes the server's base URL (their
og:image, canonical link and images point at this server) and ``{{published}}`` the
story's date in the feeds, so page and feed agree however long ago the demo started.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from xml.sax.saxutils import escape

from devkit.devserver import StaticSiteServer

DEMO_DIR = Path(__file__).resolve().parent.parent / "demo"
ARTICLES_DIR = DEMO_DIR / "articles"
AUDIO_DIR = DEMO_DIR / "audio"
# The real pages' feeds: fixtures for the research tests and benchmark (no account reads them).
RSS_PATH = "/feeds/industry.rss"
ATOM_PATH = "/feeds/science.atom"
# The demo business's feeds.
AUDIO_FEED_PATH = "/feeds/audio-trade.rss"
DIGEST_FEED_PATH = "/feeds/news-digest.atom"
SITE_PLACEHOLDER = "{{site}}"
PUBLISHED_PLACEHOLDER = "{{published}}"

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


@dataclass(frozen=True)
class DemoStory:
    """One story of the demo business's feeds: where it is served and what its feed says."""

    path: str
    title: str
    author: str
    summary: str
    # Hours before the demo site started; the feeds list their stories newest first.
    hours_ago: int
    image: str = ""


def _audio(file_name: str, title: str, author: str, summary: str, hours_ago: int, image: str) -> DemoStory:
    return DemoStory(f"/audio/{file_name}", title, author, summary, hours_ago, image)


def _real(file_name: str, hours_ago: int) -> DemoStory:
    _file, title, author, summary = next(story for story in STORIES if story[0] == file_name)
    return DemoStory(f"/articles/{file_name}", title, author, summary, hours_ago)


# The audio trade's week, newest first; the digest's off-topic stories fall in between
# (hours 2, 9, 15 and 23): the second-newest article is off-topic, so a composer that took
# the newest articles within the day's cadence (two) would draft it, and relevance must not.
AUDIO_STORIES = [
    _audio(
        "kestrel-glide-3-turntable.html",
        "Kestrel Audio launches Glide 3 turntable at \u00a31,299 with a floating subchassis",
        "Priya Nandra",
        "The third-generation belt-drive deck goes on sale through independent dealers next month.",
        1,
        "kestrel-glide-3.jpg",
    ),
    _audio(
        "record-store-day-quay-street.html",
        "Queues on Quay Street as Record Store Day brings 2,000 visitors to the harbour",
        "Beth Carrow",
        "Spindle Records sold 640 records; traders say footfall was three times a normal Saturday.",
        3,
        "record-store-day.jpg",
    ),
    _audio(
        "wireless-headphones-roundup.html",
        "Best wireless headphones: six noise-cancelling pairs tested, from \u00a3149 to \u00a3549",
        "Lena Voss",
        "Four weeks on trains, in offices and on a long-haul flight with six pairs of headphones.",
        6,
        "headphones-roundup.jpg",
    ),
    _audio(
        "aldwyn-a40-amplifier.html",
        "Aldwyn Acoustics\u2019 A40 integrated amplifier promises 40 watts of Class A from a Cardiff workshop",
        "Owen Pryce",
        "The company\u2019s first integrated amplifier has a built-in phono stage and a 15-year spares promise.",
        8,
        "aldwyn-a40.jpg",
    ),
    _audio(
        "vinyl-sales-report.html",
        "Vinyl LP sales rise for a nineteenth year as independent shops take a bigger share",
        "Sam Okafor",
        "6.4 million LPs sold in twelve months; independents now sell one in three.",
        11,
        "vinyl-sales.jpg",
    ),
    _audio(
        "north-sound-show-report.html",
        "North Sound Show: record attendance as turntables and small speakers steal the show",
        "Priya Nandra",
        "9,300 visitors, 126 brands and 61 turntables playing in the show rooms.",
        13,
        "north-sound-show.jpg",
    ),
    _audio(
        "tarn-ls5-anniversary-speakers.html",
        "Tarn Audio brings back the LS-5 bookshelf speaker for its 25th anniversary",
        "Felix Marr",
        "A limited run of 500 numbered pairs of the compact speaker that made Tarn\u2019s name.",
        17,
        "tarn-ls5.jpg",
    ),
    _audio(
        "halden-kendal-factory.html",
        "Halden Loudspeakers opens \u00a38.5m factory in Kendal, creating 70 jobs",
        "Owen Pryce",
        "Cabinet making, driver assembly and measurement move under one roof; output to double by 2028.",
        20,
        "halden-factory.jpg",
    ),
]
_AUDIO_BY_FILE = {story.path.rsplit("/", 1)[1]: story for story in AUDIO_STORIES}
# A general news digest: mostly other trades' news, with two audio stories in it.
DIGEST_STORIES = sorted(
    [
        _AUDIO_BY_FILE["record-store-day-quay-street.html"],
        _real("nature.com.telescope.html", 2),
        _real("nationalgeographic.co.uk.goats.html", 9),
        _AUDIO_BY_FILE["vinyl-sales-report.html"],
        _real("theverge.com.ios13.html", 15),
        _real("salon.com.emissions.html", 23),
    ],
    key=lambda story: story.hours_ago,
)


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
    routes[AUDIO_FEED_PATH] = (_audio_rss(base_url, now), "application/rss+xml; charset=utf-8")
    routes[DIGEST_FEED_PATH] = (_digest_atom(base_url, now), "application/atom+xml; charset=utf-8")
    for story in AUDIO_STORIES:
        page = (AUDIO_DIR / story.path.removeprefix("/audio/")).read_text(encoding="utf-8")
        published = (now - timedelta(hours=story.hours_ago)).isoformat()
        page = page.replace(SITE_PLACEHOLDER, base_url).replace(PUBLISHED_PLACEHOLDER, published)
        routes[story.path] = (page.encode(), "text/html; charset=utf-8")
        routes[f"/audio/images/{story.image}"] = ((AUDIO_DIR / "images" / story.image).read_bytes(), "image/jpeg")
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


def _audio_rss(base_url: str, now: datetime) -> bytes:
    items = []
    for story in AUDIO_STORIES:
        image_bytes = (AUDIO_DIR / "images" / story.image).stat().st_size
        items.append(f"""
    <item>
      <title>{escape(story.title)}</title>
      <link>{base_url}{story.path}</link>
      <guid isPermaLink="true">{base_url}{story.path}</guid>
      <pubDate>{format_datetime(now - timedelta(hours=story.hours_ago))}</pubDate>
      <dc:creator>{escape(story.author)}</dc:creator>
      <description>{escape(story.summary)}</description>
      <enclosure url="{base_url}/audio/images/{story.image}" type="image/jpeg" length="{image_bytes}"/>
    </item>""")
    newest = format_datetime(now - timedelta(hours=AUDIO_STORIES[0].hours_ago))
    return f"""<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel>
    <title>Audio trade news</title>
    <link>{base_url}/</link>
    <description>Launches, shows and shop-floor news from the hi-fi and record trade (Landed demo).</description>
    <language>en-gb</language>
    <lastBuildDate>{newest}</lastBuildDate>{"".join(items)}
  </channel>
</rss>
""".encode()


def _digest_atom(base_url: str, now: datetime) -> bytes:
    entries = "".join(
        f"""
  <entry>
    <title>{escape(story.title)}</title>
    <link rel="alternate" type="text/html" href="{base_url}{story.path}?utm_source=digest&amp;utm_medium=feed"/>
    <id>tag:landed.example,2026:digest:{story.path}</id>
    <updated>{(now - timedelta(hours=story.hours_ago)).isoformat()}</updated>
    <author><name>{escape(story.author)}</name></author>
    <summary>{escape(story.summary)}</summary>
  </entry>"""
        for story in DIGEST_STORIES
    )
    return f"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>News digest</title>
  <link rel="self" href="{base_url}{DIGEST_FEED_PATH}"/>
  <id>tag:landed.example,2026:digest</id>
  <updated>{(now - timedelta(hours=DIGEST_STORIES[0].hours_ago)).isoformat()}</updated>{entries}
</feed>
""".encode()
