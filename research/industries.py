"""Industries with preset source lists: what a new account subscribes to on day one."""

from __future__ import annotations

import re
from collections.abc import Iterable
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


# What each trade's articles talk about: words (lower case, singular where it matters) a
# relevant article is likely to use. Relevance (posting/composer/relevance.py) reads them
# next to the business's own past posts, names and chosen topics, so a trade missing here
# still ranks well from what the business itself writes about. Keys are matched against
# the account's free-text industry by ``industry_vocabulary``; ``aliases`` are the other
# ways a customer may name the same trade.
@dataclass(frozen=True)
class Vocabulary:
    aliases: tuple[str, ...]
    terms: tuple[str, ...]


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


VOCABULARIES: dict[str, Vocabulary] = {
    "hifi": Vocabulary(
        _words("hi-fi hifi audio stereo sound audiophile record vinyl speaker headphone"),
        _words(
            "hifi audio audiophile stereo speaker loudspeaker amplifier amp preamp preamplifier turntable vinyl "
            "record cartridge stylus tonearm headphone earphone dac streamer streaming cd receiver subwoofer "
            "woofer tweeter driver hi-res lossless sound listening listen acoustic acoustics cable integrated "
            "phono valve tube soundstage bass treble album pressing reissue bluetooth dolby atmos hdmi tidal qobuz"
        ),
    ),
    "cycling": Vocabulary(
        _words("bike bicycle cycle cycling cyclist bikes"),
        _words(
            "bike bicycle cycling cyclist rider riding ride road gravel mountain mtb saddle frame wheel wheelset "
            "tyre tire derailleur groupset shimano sram campagnolo helmet lane commute commuter ebike e-bike "
            "peloton velodrome tour stage sprint crank pedal chain cassette brake carbon trail"
        ),
    ),
    "bakery": Vocabulary(
        _words("bakery baker baking bread pastry patisserie cake"),
        _words(
            "bakery baker baking bread loaf sourdough pastry croissant cake flour dough yeast oven wheat rye "
            "crust bake baked patisserie viennoiserie brioche bun biscuit cookie muffin gluten butter sugar grain "
            "milling mill confectionery doughnut scone"
        ),
    ),
    "software": Vocabulary(
        _words("software web design agency developer development digital it tech technology website"),
        _words(
            "software web website design designer developer development code coding programming app application "
            "browser javascript css html python django framework api cloud server hosting domain accessibility "
            "ux ui interface frontend backend open-source release version security update plugin wordpress "
            "seo responsive mobile performance github database"
        ),
    ),
    "science": Vocabulary(
        _words("science research lab laboratory"),
        _words(
            "research researcher scientist study species fossil telescope astronomer physics chemistry biology "
            "experiment laboratory lab genome cell molecule journal published nature discovery"
        ),
    ),
    "fashion": Vocabulary(
        _words("fashion clothing apparel boutique clothes style"),
        _words(
            "fashion clothing apparel boutique collection designer runway catwalk dress denim fabric textile "
            "garment wardrobe couture brand retail knitwear menswear womenswear footwear sneaker trend season"
        ),
    ),
    "restaurants": Vocabulary(
        _words("restaurant restaurants dining cafe café bistro food kitchen chef"),
        _words(
            "restaurant dining diner chef menu dish kitchen cuisine food table reservation takeaway delivery "
            "waiter hospitality tasting bistro brunch dinner lunch ingredient seasonal cook cooking"
        ),
    ),
    "coffee": Vocabulary(
        _words("coffee roaster roastery espresso barista cafe café"),
        _words(
            "coffee espresso barista roast roaster roastery bean arabica robusta brew brewing latte cappuccino "
            "filter grinder origin harvest crop cafe café cup milk decaf caffeine specialty"
        ),
    ),
    "florist": Vocabulary(
        _words("florist flower flowers floral"),
        _words(
            "flower floral florist bouquet bloom blossom rose tulip peony stem wedding arrangement petal wreath "
            "garden grower seasonal valentine"
        ),
    ),
    "garden": Vocabulary(
        _words("garden gardening nursery landscaping horticulture plants"),
        _words(
            "garden gardening gardener plant planting seed seedling compost soil lawn shrub tree perennial "
            "nursery horticulture greenhouse pruning weed bulb allotment watering"
        ),
    ),
    "fitness": Vocabulary(
        _words("fitness gym personal trainer training yoga pilates"),
        _words(
            "fitness gym workout exercise training trainer strength cardio muscle yoga pilates class stretching "
            "running weight endurance mobility health"
        ),
    ),
    # Yoga, pilates, meditation and massage studios: a gym's words (workout, strength, cardio)
    # miss what their customers read about: breath, calm, stress, sleep, posture.
    "wellbeing": Vocabulary(
        _words("yoga pilates meditation mindfulness wellbeing wellness holistic massage reiki retreat"),
        _words(
            "yoga pilates meditation mindfulness breath breathing breathwork relaxation relax calm stress "
            "anxiety wellbeing wellness mental sleep posture flexibility balance stretch stretching pose mat "
            "retreat class teacher studio session therapy therapist holistic massage spine"
        ),
    ),
    "real_estate": Vocabulary(
        _words("real estate property estate agent letting realtor housing"),
        _words(
            "property housing house home mortgage rent rental landlord tenant buyer seller estate agent listing "
            "price market sale letting realtor"
        ),
    ),
    "beer": Vocabulary(
        _words("brewery beer brewer pub craft taproom"),
        _words("beer brewery brewer brewing ale lager stout ipa hop hops malt pub taproom cask keg pint craft"),
    ),
    "wine": Vocabulary(
        _words("wine winery vineyard wine-merchant sommelier"),
        _words(
            "wine winery vineyard vintage grape harvest sommelier bottle red white rosé champagne merchant cellar "
            "vine winemaker"
        ),
    ),
    "books": Vocabulary(
        _words("bookshop bookstore books publisher library"),
        _words(
            "book bookshop bookstore author novel reader reading publisher publishing fiction prize literary "
            "library poetry paperback edition"
        ),
    ),
    "pets": Vocabulary(
        _words("pet pets vet veterinary dog cat grooming"),
        _words("pet dog cat puppy kitten vet veterinary animal grooming breed owner adoption rescue"),
    ),
    "beauty": Vocabulary(
        _words("hair hairdresser salon barber beauty skincare"),
        _words("hair hairdresser salon barber haircut colour color stylist beauty skincare skin makeup nail spa"),
    ),
    "automotive": Vocabulary(
        _words("garage car cars mechanic automotive motor"),
        _words(
            "car vehicle engine garage mechanic repair service tyre mot electric battery charging driver "
            "motorist fuel dealership"
        ),
    ),
    "dental": Vocabulary(
        _words("dental dentist dentistry orthodontist orthodontics hygienist teeth"),
        _words(
            "dental dentist dentistry tooth teeth oral mouth gum gums decay cavity filling crown crowns implant "
            "hygienist hygiene orthodontist orthodontic brace braces aligner whitening fluoride varnish enamel "
            "toothbrush toothpaste floss interdental plaque extraction denture dentures check-up examination "
            "periodontal root canal"
        ),
    ),
    "optician": Vocabulary(
        _words("optician optometrist eyewear glasses spectacles"),
        _words(
            "eye eyes sight vision optician optometrist glasses spectacles lens lenses contact frame frames "
            "eyewear test glaucoma cataract retina myopia sunglasses"
        ),
    ),
    "pharmacy": Vocabulary(
        _words("pharmacy pharmacist chemist"),
        _words("pharmacy pharmacist chemist prescription medicine medicines vaccine vaccination flu jab dose drug"),
    ),
    "physio": Vocabulary(
        _words("physio physiotherapy physiotherapist osteopath chiropractor massage sports-therapy"),
        _words(
            "physio physiotherapy physiotherapist injury injuries rehab rehabilitation back pain joint muscle "
            "tendon knee shoulder posture massage osteopath chiropractor mobility stretching"
        ),
    ),
    "trades": Vocabulary(
        _words("plumber plumbing electrician builder building builders roofer joiner carpenter decorator heating"),
        _words(
            "plumbing plumber boiler heating radiator pipe leak electrician wiring electrical builder building "
            "roof roofing extension renovation kitchen bathroom insulation damp joinery carpenter plaster "
            "decorating paint tiles heat pump planning"
        ),
    ),
    "accounting": Vocabulary(
        _words("accountant accountancy bookkeeping bookkeeper tax finance financial adviser"),
        _words(
            "tax taxes vat return self-assessment hmrc accountant accountancy bookkeeping payroll invoice "
            "deadline allowance pension income expenses audit budget"
        ),
    ),
    "photography": Vocabulary(
        _words("photographer photography photo studio"),
        _words("photography photographer photo photos camera lens portrait wedding shoot studio print prints"),
    ),
    "music": Vocabulary(
        _words("music musical instrument instruments guitar piano lessons"),
        _words(
            "music musician guitar piano drum drums violin instrument instruments lesson lessons concert gig "
            "band song album strings amp pedal"
        ),
    ),
    "butcher": Vocabulary(
        _words("butcher butchers deli delicatessen farm-shop cheesemonger greengrocer grocer"),
        _words(
            "meat beef lamb pork chicken sausage sausages butcher cut cuts farm farmer free-range organic "
            "cheese deli produce vegetables fruit seasonal grocer"
        ),
    ),
    "hotel": Vocabulary(
        _words("hotel b&b guesthouse inn hospitality accommodation holiday travel tourism"),
        _words(
            "hotel guest guests room rooms booking stay visitor visitors tourism tourist holiday travel "
            "accommodation breakfast inn"
        ),
    ),
    "toys": Vocabulary(
        _words("toy toys games gaming board-games hobby hobbies comics"),
        _words("toy toys game games board puzzle lego play children kids hobby model figure comic comics console"),
    ),
    "jewellery": Vocabulary(
        _words("jeweller jewellery jewelry watch watches"),
        _words("jewellery jewelry ring rings necklace gold silver diamond gemstone watch watches engagement"),
    ),
    "childcare": Vocabulary(
        _words("nursery childcare preschool tutoring tutor school education"),
        _words("nursery childcare preschool early years toddler tutor tutoring pupil pupils exam exams learning"),
    ),
}


def industry_vocabulary(industry: str) -> tuple[str, ...]:
    """The trade vocabulary that best fits a free-text industry ("Hi-fi dealer" -> hifi).

    A trade matches when the industry names its key or one of its aliases; an industry that
    matches none gets no vocabulary (its past posts and topics still describe it).
    """
    terms = [term for vocabulary in industry_vocabularies(industry).values() for term in vocabulary]
    return tuple(dict.fromkeys(terms))


def industry_vocabularies(industry: str) -> dict[str, tuple[str, ...]]:
    """Each trade vocabulary a free-text industry names, by trade: "children's swimming lessons"
    names music by its word "lessons", so a caller can check each against the business's own
    posts."""
    words = set(_industry_words(industry))
    return {
        key: vocabulary.terms
        for key, vocabulary in VOCABULARIES.items()
        if words & {key, *vocabulary.aliases} or industry.strip().lower() in {key, *vocabulary.aliases}
    }


def vocabularies_used_in(
    texts: Iterable[str], *, min_terms: int, min_share: float, ignored: frozenset[str] = frozenset()
) -> tuple[str, ...]:
    """The terms of the trade vocabularies a business's own posts keep using.

    For a business whose free-text industry names none of our trades ("Artisan loaf maker",
    or no industry at all) its own posts still say what it is: a vocabulary counts when at
    least ``min_terms`` of its distinct terms, and at least ``min_share`` of them, occur in
    the posts (a plural "s" folded). A hi-fi dealer's posts that mention a "price" and a
    "home" do not make it an estate agent; eleven dental words make a dental clinic. Terms in
    ``ignored`` (words any business writes, such as "home" and "price") are never a hit: a
    locksmith's "home", "house", "landlord" and "prices" are not four words of real estate."""
    seen: set[str] = set()
    for text in texts:
        # Letters of any script: a coffee shop's "café" is its word, not "caf".
        for word in re.findall(r"[^\W\d_][^\W\d_'&-]*(?:['&-][^\W\d_]+)*", text.lower()):
            seen.update({word, word.removesuffix("s")})
    terms: list[str] = []
    for vocabulary in VOCABULARIES.values():
        hits = {term for term in vocabulary.terms if term in seen and term not in ignored}
        if len(hits) >= min_terms and len(hits) / len(vocabulary.terms) >= min_share:
            terms.extend(vocabulary.terms)
    return tuple(dict.fromkeys(terms))


def _industry_words(industry: str) -> list[str]:
    lowered = industry.lower()
    return [*lowered.replace("-", " ").replace("/", " ").split(), *lowered.replace("/", " ").split()]
