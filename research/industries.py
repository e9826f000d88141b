"""Industries with preset source lists: what a new account subscribes to on day one."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Preset:
    title: str
    url: str


PRESETS: dict[str, list[Preset]] = {
    "cycling": [
        Preset("BikeRadar", "https://www.bikeradar.com/feed"),
        Preset("Cycling Weekly", "https://www.cyclingweekly.com/feeds/all"),
        Preset("road.cc", "https://road.cc/rss"),
        Preset("BikeBiz", "https://bikebiz.com/feed/"),
    ],
    "bakery": [
        Preset("Bake Magazine", "https://www.bakemag.com/rss/articles"),
        Preset("Baking Business", "https://www.bakingbusiness.com/rss/articles"),
        Preset("British Baker", "https://bakeryinfo.co.uk/feed"),
    ],
    "software": [
        Preset("Python Insider", "https://blog.python.org/feeds/posts/default"),
        Preset("Django News", "https://www.djangoproject.com/rss/weblog/"),
        Preset("The GitHub Blog", "https://github.blog/feed/"),
        Preset("Hacker News front page", "https://hnrss.org/frontpage"),
    ],
    "science": [
        Preset("Nature News", "https://www.nature.com/nature.rss"),
        Preset("Phys.org", "https://phys.org/rss-feed/"),
        Preset("ScienceDaily", "https://www.sciencedaily.com/rss/all.xml"),
    ],
    "fashion": [
        Preset("Business of Fashion", "https://www.businessoffashion.com/arc/outboundfeeds/rss/"),
        Preset("Fashionista", "https://fashionista.com/.rss/full/"),
    ],
    "restaurants": [
        Preset("Eater", "https://www.eater.com/rss/index.xml"),
        Preset("Restaurant Business", "https://www.restaurantbusinessonline.com/rss.xml"),
    ],
}


def industry_names() -> list[str]:
    return sorted(PRESETS)


def presets_for(industry: str) -> list[Preset]:
    return list(PRESETS.get(industry.strip().lower(), []))
