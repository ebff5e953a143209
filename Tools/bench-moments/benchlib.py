"""Helpers shared by generate.py, score.py and dump_store.py: times, distances, text folding.

Standard library only (Python 3.9+: zoneinfo).
"""

import datetime as _dt
import math
import unicodedata

EARTH_RADIUS_M = 6_371_008.8
UTC = _dt.timezone.utc


# ---------------------------------------------------------------- times

def iso(t):
    """UTC ISO 8601 with a Z, to the second (t: epoch seconds, float or int)."""
    return _dt.datetime.fromtimestamp(round(t), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_ms(t):
    """UTC ISO 8601 with milliseconds and a Z (as Google Takeout writes times)."""
    ms = int(round(t * 1000))
    d = _dt.datetime.fromtimestamp(ms // 1000, UTC)
    return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (ms % 1000)


def parse_time(value):
    """Epoch seconds from an ISO 8601 string (a zone required: Z or ±HH:MM) or from a number of
    milliseconds (ints/floats above 1e11 are read as ms, below as seconds)."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return value / 1000.0 if abs(value) > 1e11 else float(value)
    text = str(value).strip()
    if text.endswith("Z") or text.endswith("z"):
        text = text[:-1] + "+00:00"
    d = _dt.datetime.fromisoformat(text)
    if d.tzinfo is None:
        raise ValueError("a time without a zone: %r" % value)
    return d.timestamp()


# ---------------------------------------------------------------- geometry

def haversine(lat1, lon1, lat2, lon2):
    """Great-circle distance in metres."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(a)))


def offset(lat, lon, north_m, east_m):
    """The point north_m metres north and east_m metres east of (lat, lon) (small distances)."""
    dlat = north_m / EARTH_RADIUS_M
    dlon = east_m / (EARTH_RADIUS_M * math.cos(math.radians(lat)))
    return lat + math.degrees(dlat), lon + math.degrees(dlon)


def path_length(points):
    """Length in metres of a polyline of (lat, lon, ...) tuples."""
    return sum(haversine(a[0], a[1], b[0], b[1]) for a, b in zip(points, points[1:]))


def along(points, distance):
    """The (lat, lon) at `distance` metres along a polyline (clamped to its ends)."""
    if distance <= 0:
        return points[0][0], points[0][1]
    walked = 0.0
    for a, b in zip(points, points[1:]):
        leg = haversine(a[0], a[1], b[0], b[1])
        if walked + leg >= distance and leg > 0:
            f = (distance - walked) / leg
            return a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f
        walked += leg
    return points[-1][0], points[-1][1]


# ---------------------------------------------------------------- text

def fold(text):
    """Lower case without accents, ß as ss, for matching words in titles ("Märkische" ~ "markische")."""
    text = (text or "").replace("ß", "ss").replace("ẞ", "ss")
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def names_any(text, words):
    """Whether `text` contains any of `words` (folded, as whole-word-ish substrings)."""
    folded = " " + fold(text) + " "
    for w in words:
        fw = fold(w).strip()
        if fw and fw in folded:
            return True
    return False
