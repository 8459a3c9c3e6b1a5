"""A time zone as its reader names it (issue 26 item 5): ``Asia/Tokyo`` is 日本時間 to a
Japanese reader and "Japan Time" to an English one, ``Europe/London`` イギリス時間 and
"United Kingdom Time" (CLDR's generic names through Babel); never the IANA id in prose.
Templates use it as the ``zone`` filter: ``{{ timezone|zone("ja") }}``.
"""

from __future__ import annotations

from functools import lru_cache

from babel.dates import get_timezone, get_timezone_location, get_timezone_name

# zones CLDR has no place for ("Unknown Region (UTC) Time")
_UNIVERSAL = {"ja": "協定世界時（UTC）", "en": "UTC"}


@lru_cache(maxsize=64)
def zone_name(zone: str, lang: str = "en") -> str:
    """``zone`` (an IANA name) as a reader of ``lang`` says it; the id itself for a zone
    Babel does not know."""
    lang = "ja" if lang == "ja" else "en"
    if zone.upper() in ("UTC", "ETC/UTC", "GMT", "ETC/GMT", "Z"):
        return _UNIVERSAL[lang]
    try:
        tz = get_timezone(zone)
        name = str(get_timezone_name(tz, "long", zone_variant="generic", locale=lang))
    except (LookupError, ValueError):
        return zone
    if "UTC" in name or "GMT" in name:  # no generic name: where it is
        name = str(get_timezone_location(tz, locale=lang))
    if "Unknown Region" in name or "不明な地域" in name:  # Etc/GMT+9: no place to name
        return zone
    return name
