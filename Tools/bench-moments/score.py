#!/usr/bin/env python3
"""Scores an engine's suggestions against a generated life's truth.

    score.py --life DIR --suggestions FILE [--lists FILE] [--details] [--json-out FILE]

DIR holds truth.json (generate.py); FILE is the suggestions JSON documented in README.md (what
dump_store.py writes from a pickerd store). Prints a Markdown table per moment kind, a few lines on
routine, noise, orphaned media, duplicates and distances, and last a one-line JSON summary.

How a planted moment is matched, and how items are judged, is described in README.md ("Scoring").
"""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import argparse
import datetime as _dt
import json
import os
import re
from zoneinfo import ZoneInfo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import fold, haversine, names_any, parse_time  # noqa: E402

MIN = 60
TOLERANCE = {"workout": 15 * MIN, "outing": 15 * MIN, "timeAtHome": 15 * MIN, "trip": 2 * 3600, "weekly": 25 * 3600}
FAMILY = {"workout": "workout", "outing": "outing", "trip": "trip", "weeklySummary": "weekly", "weekly": "weekly",
          "timeAtHome": "timeAtHome"}
COMPATIBLE = {"workout": {"workout"}, "outing": {"outing", "photos", "contact"}, "trip": {"trip"},
              "timeAtHome": {"timeAtHome", "photos"}, "weekly": {"weekly"}}
KINDS = ["workout", "outing", "trip", "timeAtHome", "weekly"]
MEDIA = {"photo", "livePhoto", "video"}
NEUTRAL = {"song", "podcast", "genericMedia", "stateOfMind", "motionActivity", "reflection", "workoutGroup"}
LIMIT = 13
COORDINATES = re.compile(r"\d+(\.\d+)?\s*°\s*[NSEW]")
WORKOUT_START_SLACK = 120  # exports round a workout's start differently


def overlap(a0, a1, b0, b1):
    return max(0.0, min(a1, b1) - max(a0, b0))


def same_span(a0, a1, b0, b1):
    """Whether two spans overlap by at least half of the shorter one (an instant counts when inside)."""
    shorter = min(a1 - a0, b1 - b0)
    if shorter <= 0:
        return (b0 <= a0 <= b1) if a1 - a0 <= 0 else (a0 <= b0 <= a1)
    return overlap(a0, a1, b0, b1) >= 0.5 * shorter


class Truth:
    def __init__(self, path):
        with open(os.path.join(path, "truth.json"), encoding="utf-8") as f:
            self.data = json.load(f)
        self.dir = path
        d = self.data
        self.moments = d["moments"]
        for m in self.moments:
            m["t0"], m["t1"] = parse_time(m["start"]), parse_time(m["end"])
            if m.get("outer"):
                m["o0"], m["o1"] = parse_time(m["outer"][0]), parse_time(m["outer"][1])
            for it in m["items"]:
                for k in ("start", "end", "time"):
                    if k in it:
                        it["_" + k] = parse_time(it[k])
        self.by_id = {m["id"]: m for m in self.moments}
        self.noise = {n["file"]: n for n in d["noise"]}
        self.media = {r["file"]: r for r in d["media"]}
        # Other files of the same photo (issue 41): an album's copy, an "-edited" version, a second
        # backup's "NAME (1).jpg"; each is its photo.
        self.copies = {c["file"]: c["of"] for c in d.get("copies", [])}
        self.routine_places = d["routine_places"]
        for p in self.routine_places:
            p["_from"] = parse_time(p["valid_from"]) if p.get("valid_from") else float("-inf")
            p["_to"] = parse_time(p["valid_to"]) if p.get("valid_to") else float("inf")
        self.routine_segments = [(parse_time(s["start"]), parse_time(s["end"])) for s in d["routine_segments"]]
        self.routine_segments.sort()
        # the weeks' workouts: what a weekly summary is expected to hold
        for m in self.moments:
            if m["kind"] == "weekly":
                m["items"] = [dict(it) for w in self.moments if w["kind"] == "workout" and m["t0"] <= w["t0"] < m["t1"]
                              for it in w["items"] if it["kind"] == "workout" and it["role"] == "core"]

    def day(self, t):
        """The local date of instant t in the life's zone."""
        return _dt.datetime.fromtimestamp(t, ZoneInfo(self.data["timezone"])).date()

    def photo(self, it):
        """The truth's file name of a media item: its own, or the photo it is a copy of."""
        f = it.get("file") or os.path.basename(it.get("path", ""))
        return self.copies.get(f, f)

    def core(self, m):
        return [it for it in m["items"] if it["role"] == "core"]

    def home_at(self, t):
        """The life's home at time t (a person who moves house has two), or None."""
        for p in self.routine_places:
            if p.get("kind") != "home":
                continue
            a = parse_time(p["valid_from"]) if p.get("valid_from") else None
            b = parse_time(p["valid_to"]) if p.get("valid_to") else None
            if (a is None or a <= t) and (b is None or t < b):
                return p
        return None

    def routine_place(self, lat, lon, t):
        for p in self.routine_places:
            if p["_from"] <= t <= p["_to"] and haversine(lat, lon, p["lat"], p["lon"]) <= p["radius_m"]:
                return p
        return None

    def routine_segment(self, a, b):
        for s0, s1 in self.routine_segments:
            if s0 > b + 3600:
                break
            if same_span(a, b, s0, s1):
                return True
        return False

    # ------------------------------------------------------------------ what an item is

    def label(self, it):
        """(label, moment id or None, role): label is moment, routine, noise, stray, neutral or unknown."""
        kind = it.get("kind")
        start = parse_time(it.get("workout_start") or it.get("start"))
        end = parse_time(it.get("workout_end") or it.get("end")) or start
        if kind in MEDIA:
            f = self.photo(it)
            if f in self.noise:
                return ("noise", None, None)
            r = self.media.get(f)
            if r is None:
                return ("unknown", None, None)
            if r["role"] == "noise":
                return ("noise", None, None)
            if r["role"] == "stray" or not r["moment"]:
                return ("stray", None, None)
            return ("moment", r["moment"], "core")
        if kind == "workout" and start is not None:
            for m in self.moments:
                if m["kind"] == "weekly":
                    continue
                for ti in m["items"]:
                    if ti["kind"] == "workout" and abs(ti["_start"] - start) <= WORKOUT_START_SLACK:
                        return ("moment", m["id"], "core")
            for m in self.moments:
                if m["kind"] == "weekly":
                    continue
                for ti in m["items"]:
                    if ti["kind"] == "segment" and same_span(start, end, ti["_start"], ti["_end"]):
                        return ("moment", m["id"], "context")
            if self.routine_segment(start, end):
                return ("routine", None, None)
            return ("unknown", None, None)
        if kind == "location" and start is not None:
            lat, lon = it.get("lat"), it.get("lon")
            for role in ("core", "context"):
                for m in self.moments:
                    if m["kind"] == "weekly":
                        continue
                    for ti in m["items"]:
                        if ti["kind"] != "location" or ti["role"] != role:
                            continue
                        near = lat is None or haversine(lat, lon, ti["lat"], ti["lon"]) <= 300
                        if near and same_span(start, end, ti["_start"], ti["_end"]):
                            return ("moment", m["id"], role)
            if lat is not None and self.routine_place(lat, lon, start):
                return ("routine", None, None)
            return ("unknown", None, None)
        if kind == "locationGroup" and start is not None:
            for m in self.moments:
                if m["kind"] in ("trip", "outing", "workout") and m["t0"] - 900 <= start and end <= m["t1"] + 900:
                    return ("moment", m["id"], "context")
            places = it.get("places") or []
            if places and all(p.get("lat") is not None and self.routine_place(p["lat"], p["lon"], start) for p in places):
                return ("routine", None, None)
            return ("unknown", None, None)
        if kind == "contact":
            name = fold(it.get("name", ""))
            for m in self.moments:
                for ti in m["items"]:
                    if ti["kind"] == "contact" and fold(ti["name"]) == name:
                        return ("moment", m["id"], "core")
            return ("unknown", None, None)
        return ("neutral", None, None)

    def matches_core(self, it, core_item):
        """Whether a suggestion item is this core item of the truth."""
        kind = it.get("kind")
        if core_item["kind"] in ("photo", "video"):
            return kind in MEDIA and self.photo(it) == core_item["file"]
        if core_item["kind"] == "workout":
            s = parse_time(it.get("workout_start") or it.get("start"))
            return kind == "workout" and s is not None and abs(s - core_item["_start"]) <= WORKOUT_START_SLACK
        if core_item["kind"] == "location":
            if kind != "location":
                return False
            s = parse_time(it.get("start"))
            e = parse_time(it.get("end")) or s
            near = it.get("lat") is None or haversine(it["lat"], it["lon"], core_item["lat"], core_item["lon"]) <= 300
            return near and same_span(s, e, core_item["_start"], core_item["_end"])
        if core_item["kind"] == "contact":
            return kind == "contact" and fold(it.get("name", "")) == fold(core_item["name"])
        return False


# Which planted places a title can be asked to name (issue 42: "titles naming the planted place where
# the person's data or a populated place names it"; pickerd ships no map of parks and canals). A word
# of a moment counts when the person's data around the moment says it, or when it is a populated
# place of GeoNames lying near the moment's place. Both are read here from sources the engine's
# rules did not shape: the moment's own files and calendar events as the truth lists them, and
# GeoNames itself (Debian's libgeonames for places of 15,000 people or more, and the cities500
# places the repository's Data/ files hold, which are GeoNames' rows as published).
POPULATED_REACH_M = 1000


def _populated_places():
    places = []
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Data")
    try:
        with open(os.path.join(data, "neighbourhoods.tsv"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("#"):
                    continue
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 4:
                    places.append((parts[0], float(parts[1]), float(parts[2]), int(parts[3])))
        with open(os.path.join(data, "places.tsv"), encoding="utf-8") as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 6 and not line.startswith("#") and parts[0] not in ("area", "zone"):
                    places.append((parts[0], int(parts[1]) / 1e5, int(parts[2]) / 1e5, int(parts[3])))
    except OSError:
        pass
    try:
        import ctypes
        g = ctypes.CDLL("libgeonames.so.0")
        g.geonames_get_city.restype = ctypes.c_void_p
        g.geonames_get_city.argtypes = [ctypes.c_int]
        g.geonames_city_free.argtypes = [ctypes.c_void_p]
        g.geonames_city_get_name.restype, g.geonames_city_get_name.argtypes = ctypes.c_char_p, [ctypes.c_void_p]
        for field in ("latitude", "longitude"):
            getter = getattr(g, "geonames_city_get_" + field)
            getter.restype, getter.argtypes = ctypes.c_double, [ctypes.c_void_p]
        g.geonames_city_get_population.restype, g.geonames_city_get_population.argtypes = ctypes.c_uint, [ctypes.c_void_p]
        for index in range(g.geonames_get_n_cities()):
            city = g.geonames_get_city(index)
            places.append((g.geonames_city_get_name(city).decode(), g.geonames_city_get_latitude(city), g.geonames_city_get_longitude(city),
                           g.geonames_city_get_population(city)))
            g.geonames_city_free(city)
    except (OSError, AttributeError):
        pass
    return places


_POPULATED = None


def populated_near(lat, lon, reach_m):
    """The folded names of GeoNames' populated places near a point: within reach_m of their centre, or
    within what a place of their people covers (GeoNames gives a centre, not an extent: sqrt(people)
    × 10 m, 3.7 km for Brighton's 139,000, 1.7 km for Richmond's 28,600)."""
    global _POPULATED
    if _POPULATED is None:
        _POPULATED = _populated_places()
    near = set()
    for name, plat, plon, people in _POPULATED:
        if abs(plat - lat) < 0.5 and abs(plon - lon) < 0.5 and haversine(lat, lon, plat, plon) <= max(reach_m, 10 * people ** 0.5):
            near.add(fold(name))
    return near


def data_text(truth, m):
    """What the person's own data says around a planted moment: its calendar events' summaries and
    places, a workout's own name, the names the location history gives its stays (where the export
    holds names: Takeout's semantic history), and the bytes of its files (a photo's XMP/IPTC place)."""
    parts = [m.get("name") or ""]
    for e in m.get("events", []):
        parts += [e.get("summary", ""), e.get("location", "")]
    named_history = truth.data.get("location_source") == "takeout"
    for it in m["items"]:
        parts.append(it.get("name", "") if it["kind"] == "workout" else "")
        if it["kind"] == "location" and named_history:
            parts.append(it.get("place", ""))
        for rel in ([it["path"]] if it.get("path") else []) + list(it.get("files", [])):
            path = os.path.join(truth.dir, rel)
            try:
                with open(path, "rb") as f:
                    parts.append(f.read(1 << 20).decode("utf-8", "ignore"))
            except OSError:
                pass
    return fold(" ".join(p for p in parts if p))


def says_word(text, folded_word):
    """Whether folded `text` holds `folded_word` as a whole word ("lea" is not in "leather")."""
    return re.search(r"(?<![a-z0-9])" + re.escape(folded_word) + r"(?![a-z0-9])", text) is not None


def nameable(truth, m):
    """Whether the person's data or a populated place names the moment's place (any of its words)."""
    if not m["words"]:
        return False
    text = data_text(truth, m)
    for w in m["words"]:
        fw = fold(w).strip()
        if fw and fw != "home" and says_word(text, fw):
            return True
    place = m.get("place")
    if place:
        near = populated_near(place["lat"], place["lon"], max(POPULATED_REACH_M, place.get("radius_m") or 0))
        for w in m["words"]:
            fw = fold(w).strip()
            # "Camden" is named by Camden Town; a word of three letters ("Lea") only by itself.
            if fw in near or (len(fw) >= 4 and any(says_word(n, fw) for n in near)):
                return True
    return "home" in (fold(w) for w in m["words"]) and m["kind"] == "timeAtHome"


def window_fit(s, m):
    tol = TOLERANCE[m["kind"]]
    if abs(s["t0"] - m["t0"]) <= tol and abs(s["t1"] - m["t1"]) <= tol:
        return True
    if m["kind"] == "timeAtHome" and "o0" in m:
        return (m["o0"] - tol <= s["t0"] <= m["t0"] + tol) and (m["t1"] - tol <= s["t1"] <= m["o1"] + tol)
    return False


def judge(truth, s, m):
    """(correct items, items, core found, core expected (capped at 13), missing core items)."""
    correct = 0
    for it in s["items"]:
        lab, mid, _ = it["_label"]
        t = parse_time(it.get("start"))
        a, b = (m["o0"], m["o1"]) if "o0" in m else (m["t0"], m["t1"])
        inside = t is not None and a - TOLERANCE[m["kind"]] <= t <= b + TOLERANCE[m["kind"]]
        if m["kind"] == "weekly":
            ok = lab != "noise" and inside
        elif lab == "moment":
            ok = mid == m["id"]
        elif lab == "neutral" and it.get("kind") == "stateOfMind" and t is not None:
            # A mood belongs to its day's moment (issue 42: the evening's mood joins the day's
            # outing or run, as Apple bundles a State of Mind): right when on the moment's local day.
            ok = inside or truth.day(t) in (truth.day(a), truth.day(b))
        elif lab == "neutral" or (lab == "unknown" and it.get("kind") in ("location", "locationGroup")):
            ok = inside
        else:
            ok = False
        correct += ok
    core = truth.core(m)
    found = [c for c in core if any(truth.matches_core(it, c) for it in s["items"])]
    missing = [c for c in core if c not in found]
    return correct, len(s["items"]), len(found), min(LIMIT, len(core)), missing


def load_suggestions(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    suggestions = data["suggestions"] if isinstance(data, dict) else data
    for i, s in enumerate(suggestions):
        s.setdefault("id", str(i))
        s["t0"] = parse_time(s.get("start", s.get("start_ms")))
        s["t1"] = parse_time(s.get("end", s.get("end_ms")))
        s["family"] = FAMILY.get(s.get("kind", ""), "other")
        s.setdefault("items", [])
        s.setdefault("title", "")
    return suggestions


def pct(n, d):
    return None if not d else n / d


def fmt(x, n=None, d=None):
    if x is None:
        return "–"
    text = "%.0f %%" % (100 * x)
    return text + (" (%d/%d)" % (n, d) if n is not None else "")


def score(truth, suggestions):
    for s in suggestions:
        for it in s["items"]:
            it["_label"] = truth.label(it)
    moments = truth.moments
    for m in moments:
        m["_nameable"] = nameable(truth, m)
    # candidate pairs: compatible kind and a window that fits
    pairs = []
    for m in moments:
        for s in suggestions:
            if s["family"] in COMPATIBLE[m["kind"]] or (s.get("kind") in COMPATIBLE[m["kind"]]):
                if window_fit(s, m):
                    correct, n, found, expected, _ = judge(truth, s, m)
                    err = abs(s["t0"] - m["t0"]) + abs(s["t1"] - m["t1"])
                    f1 = (2 * found / (expected + n)) if (expected + n) else 0
                    pairs.append((-(f1 + (correct / n if n else 0)), err, m["id"], s["id"], s, m))
    pairs.sort(key=lambda p: (p[0], p[1]))
    match, used = {}, set()
    for _, _, mid, sid, s, m in pairs:
        if mid in match or sid in used:
            continue
        match[mid] = s
        used.add(sid)

    rows = {}
    details = []
    for kind in KINDS + ["all"]:
        rows[kind] = dict(planted=0, found=0, suggestions=0, matched_suggestions=0, titled=0, title_hit=0, place_hit=0,
                          nameable=0, nameable_hit=0,
                          item_correct=0, items=0, core_found=0, core_expected=0)
    for m in moments:
        for key in (m["kind"], "all"):
            r = rows[key]
            r["planted"] += 1
            s = match.get(m["id"])
            if s is None:
                continue
            r["found"] += 1
            correct, n, found, expected, missing = judge(truth, s, m)
            r["item_correct"] += correct
            r["items"] += n
            r["core_found"] += min(found, expected)
            r["core_expected"] += expected
            if m["words"]:
                r["titled"] += 1
                r["title_hit"] += names_any(s["title"], m["words"])
                if m["_nameable"]:
                    r["nameable"] += 1
                    r["nameable_hit"] += names_any(s["title"], m["words"])
                r["place_hit"] += any(names_any(" ".join([it.get("place", ""), it.get("city", "")]
                                                         + [p.get("place", "") + " " + p.get("city", "") for p in it.get("places", [])]),
                                                m["words"])
                                      for it in s["items"] if it.get("kind") in ("location", "locationGroup"))
    for s in suggestions:
        fam = s["family"] if s["family"] in rows else None
        for key in ([fam] if fam else []) + ["all"]:
            rows[key]["suggestions"] += 1
            rows[key]["matched_suggestions"] += s["id"] in used
    other = [s for s in suggestions if s["family"] not in rows]

    # per moment details
    for m in moments:
        s = match.get(m["id"])
        entry = dict(id=m["id"], kind=m["kind"], start=m["start"], end=m["end"], found=s is not None, nameable=m["_nameable"])
        if s is not None:
            correct, n, found, expected, missing = judge(truth, s, m)
            entry.update(title=s["title"], suggestion_kind=s.get("kind"), window=[s.get("start"), s.get("end")],
                         start_error_min=round((s["t0"] - m["t0"]) / 60, 1), end_error_min=round((s["t1"] - m["t1"]) / 60, 1),
                         items=n, correct=correct, core_found=found, core_expected=expected,
                         title_hit=bool(m["words"]) and names_any(s["title"], m["words"]),
                         missing=[c.get("file") or c.get("name") or c.get("place") or c["kind"] for c in missing][:8])
            if m["kind"] == "workout":
                own = [c for c in truth.core(m) if c["kind"] == "workout"][0]
                w = [it for it in s["items"] if truth.matches_core(it, own)]
                if w and w[0].get("distance_m"):
                    entry["distance_error"] = (w[0]["distance_m"] - m["distance_m"]) / m["distance_m"]
        else:
            # the nearest suggestion that holds one of its core items: why it was missed
            near = None
            for s2 in suggestions:
                hits = sum(1 for it in s2["items"] if it["_label"][1] == m["id"])
                if hits and (near is None or hits > near[0]):
                    near = (hits, s2)
            if near:
                s2 = near[1]
                entry.update(nearest=dict(title=s2["title"], kind=s2.get("kind"), window=[s2.get("start"), s2.get("end")],
                                          start_error_min=round((s2["t0"] - m["t0"]) / 60, 1),
                                          end_error_min=round((s2["t1"] - m["t1"]) / 60, 1), items_of_moment=near[0]))
        details.append(entry)

    # moments missed although a suggestion had their window: the kind was wrong
    wrong_kind = sorted(m["id"] for m in moments if m["id"] not in match
                        and any(window_fit(s, m) and s["id"] not in used for s in suggestions))

    # unmatched suggestions: routine, partial (holds a moment's items), noise-only, other
    unmatched = dict(routine=0, partial=0, other=0)
    routine_titles = []
    for s in suggestions:
        if s["id"] in used:
            continue
        labels = [it["_label"][0] for it in s["items"]]
        if any(l == "moment" for l in labels):
            unmatched["partial"] += 1
        elif labels and "routine" in labels and all(l in ("routine", "neutral") for l in labels):
            unmatched["routine"] += 1
            routine_titles.append(s["title"])
        else:
            unmatched["other"] += 1

    # noise files suggested, core media in no suggestion, items in several suggestions, duplicate windows
    in_suggestions = {}
    for s in suggestions:
        for it in s["items"]:
            key = it.get("id") or json.dumps({k: v for k, v in it.items() if not k.startswith("_")}, sort_keys=True)
            in_suggestions.setdefault(key, set()).add(s["id"])
    files_suggested = {truth.photo(it) for s in suggestions for it in s["items"] if it.get("kind") in MEDIA}
    # A photo kept in several files (copies, an edited version) is one item (issue 41): the photos
    # of the life that the suggestions hold as more than one item, anywhere.
    items_of_photo = {}
    for s in suggestions:
        for it in s["items"]:
            if it.get("kind") in MEDIA and truth.photo(it) in truth.media:
                items_of_photo.setdefault(truth.photo(it), set()).add(it.get("id") or it.get("path"))
    copies_twice = sorted(f for f, ids in items_of_photo.items() if len(ids) > 1)
    noise_suggested = sorted(f for f in files_suggested if f in truth.noise or truth.media.get(f, {}).get("role") == "noise")
    orphans = sorted(r["file"] for r in truth.data["media"] if r["moment"] and r["role"] == "core" and r["file"] not in files_suggested)
    summaries = {s["id"] for s in suggestions if s["family"] in ("weekly", "trip")}
    shared = sum(1 for ids in in_suggestions.values() if len(ids - summaries) > 1)
    windows = {}
    for s in suggestions:
        windows.setdefault((s["title"], s["t0"], s["t1"]), []).append(s["id"])
    duplicate_windows = sum(1 for v in windows.values() if len(v) > 1)
    distances = [d["distance_error"] for d in details if "distance_error" in d]
    # A workout the life keeps in two files (a watch's export and Strava's GPX of it; a TCX and a
    # GPX) must be one item: the distinct workout items starting within 2 minutes of it.
    merged, twice, counted = 0, 0, set()
    for m in truth.data["moments"]:
        for it in m["items"]:
            # (a Gadgetbridge track is its database's own part, not a second file)
            if it["kind"] != "workout" or len([f for f in it.get("files", []) if "gadgetbridge-track-" not in f]) < 2 \
                    or it["start"] in counted:
                continue
            counted.add(it["start"])  # (a week's summary lists its workouts again)
            twice += 1
            t0 = parse_time(it["start"])
            ids = {w.get("id") or (w.get("start"), w.get("format")) for s in suggestions for w in s["items"]
                   if w.get("kind") == "workout" and w.get("start") and abs(parse_time(w["start"]) - t0) <= 120}
            merged += len(ids) == 1
    # Issue 30's measure: moments away from home (an outing, trip or workout whose place lies more
    # than 1.5 km from the home of its time) whose title names a place or a city: the moment's own
    # words, the life's city, or a place or city its suggestion's location items give.
    away_named, away = 0, 0
    for m in moments:
        s = match.get(m["id"])
        place = m.get("place")
        if s is None or m["kind"] not in ("outing", "trip", "workout") or not place or place.get("lat") is None:
            continue
        home = truth.home_at(m["t0"])
        if home is None or haversine(home["lat"], home["lon"], place["lat"], place["lon"]) <= 1500:
            continue
        away += 1
        names = list(m["words"]) + [truth.data.get("city", "")]
        for it in s["items"]:
            if it.get("kind") in ("location", "locationGroup"):
                names += [it.get("place", ""), it.get("city", "")] + [p.get("place", "") for p in it.get("places", [])] + \
                    [p.get("city", "") for p in it.get("places", [])]
        away_named += names_any(s["title"], [n for n in names if n and n != "Home"])
    coordinate_titles = sorted({s["title"] for s in suggestions if COORDINATES.search(s["title"])})
    # A week's summary found is titled by its own Monday ("Your week from 2 February"), the local
    # date the planted week begins on.
    weeks = [(m, match[m["id"]]) for m in moments if m["kind"] == "weekly" and m["id"] in match]
    months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
              "November", "December"]
    weeks_dated = sum(1 for m, s in weeks if says_word(fold(s["title"]), fold("%d %s" % (truth.day(m["t0"]).day,
                                                                                       months[truth.day(m["t0"]).month - 1]))))
    return dict(weeks_dated=weeks_dated, weeks_found=len(weeks), rows=rows, details=details, unmatched=unmatched, wrong_kind=wrong_kind, routine_titles=routine_titles, other=other,
                noise_suggested=noise_suggested, orphans=orphans, shared=shared, duplicate_windows=duplicate_windows,
                distances=distances, total=len(suggestions), away=away, away_named=away_named, coordinate_titles=coordinate_titles,
                merged=merged, twice=twice, copies_twice=copies_twice, matched_ids={s["id"] for s in match.values()})


def repeats(truth, suggestions, result, lists):
    """Issue 42's measures of clutter: the planted routine workouts (commutes by bike and on foot,
    gym sessions) suggested as workouts; the share of Recommended that are planted moments, weekly
    summaries or reflection prompts; the share of Recent (every suggestion) with one item."""
    routine = [(parse_time(w["start"]), parse_time(w["end"]), w["what"]) for w in truth.data.get("routine_workouts", [])]
    suggested = {}
    for s in suggestions:
        if s.get("kind") != "workout":
            continue
        for it in s["items"]:
            if it.get("kind") != "workout":
                continue
            a = parse_time(it.get("workout_start") or it.get("start"))
            b = parse_time(it.get("workout_end") or it.get("end")) or a
            for r0, r1, what in routine:
                if abs(a - r0) <= WORKOUT_START_SLACK or same_span(a, b, r0, r1):
                    suggested[(r0, what)] = s["title"]
    by_what = {}
    for r0, _, what in routine:
        n = by_what.setdefault(what, [0, 0])
        n[1] += 1
        n[0] += (r0, what) in suggested
    out = dict(routine_workouts=len(routine), routine_workouts_suggested=len(suggested), routine_by_what=by_what,
               routine_suggested_titles=sorted(set(suggested.values())))
    one = sum(1 for s in suggestions if len(s["items"]) == 1)
    out["recent_one_item_share"] = one / len(suggestions) if suggestions else None
    out["recent_one_item"] = [one, len(suggestions)]
    if lists is not None:
        kinds = {s["id"]: s.get("kind") for s in suggestions}
        rec = lists.get("recommended", [])
        good = sum(1 for i in rec if i in result["matched_ids"] or kinds.get(i) in ("weeklySummary", "reflection"))
        out["recommended"] = [good, len(rec)]
        out["recommended_precision"] = good / len(rec) if rec else None
        titles = {s["id"]: "%s [%s]" % (s["title"], s.get("kind")) for s in suggestions}
        out["recommended_other"] = [titles.get(i, i) for i in rec
                                    if not (i in result["matched_ids"] or kinds.get(i) in ("weeklySummary", "reflection"))]
    return out


def report(truth, result, details=False):
    rows = result["rows"]
    life = truth.data["life"]
    out = []
    out.append("### %s (%s, %d weeks, %s)\n" % (life, truth.data["timezone"], truth.data["weeks"], truth.data["location_source"]))
    out.append("| kind | planted | found (recall) | suggestions | precision | title hit | place hit | item precision | item recall |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for kind in KINDS + ["all"]:
        r = rows[kind]
        out.append("| %s | %d | %s | %d | %s | %s | %s | %s | %s |" % (
            "**all**" if kind == "all" else kind, r["planted"], fmt(pct(r["found"], r["planted"]), r["found"], r["planted"]),
            r["suggestions"], fmt(pct(r["matched_suggestions"], r["suggestions"]), r["matched_suggestions"], r["suggestions"]),
            fmt(pct(r["title_hit"], r["titled"]), r["title_hit"], r["titled"]),
            fmt(pct(r["place_hit"], r["titled"]), r["place_hit"], r["titled"]),
            fmt(pct(r["item_correct"], r["items"]), r["item_correct"], r["items"]),
            fmt(pct(r["core_found"], r["core_expected"]), r["core_found"], r["core_expected"])))
    total = result["total"]
    u = result["unmatched"]
    other_kinds = {}
    for s in result["other"]:
        other_kinds[s.get("kind")] = other_kinds.get(s.get("kind"), 0) + 1
    out.append("")
    out.append("- suggestions: %d; matching a planted moment: %d; routine: %d (%s of all); holding a moment's items with the wrong window or kind: %d; other: %d%s"
               % (total, rows["all"]["matched_suggestions"], u["routine"], fmt(pct(u["routine"], total)), u["partial"], u["other"],
                  (" (kinds not planted: %s)" % ", ".join("%s %d" % kv for kv in sorted(other_kinds.items(), key=str))) if other_kinds else ""))
    if result["wrong_kind"]:
        out.append("- missed moments that a suggestion of another kind had the window of: %d (%s)"
                   % (len(result["wrong_kind"]), ", ".join(result["wrong_kind"])))
    out.append("- noise files suggested: %d of %d%s" % (len(result["noise_suggested"]), len(truth.noise),
                                                       (" (" + ", ".join(result["noise_suggested"]) + ")") if result["noise_suggested"] else ""))
    core_media = sum(1 for r in truth.data["media"] if r["moment"] and r["role"] == "core")
    out.append("- photos and videos of a moment in no suggestion: %d of %d" % (len(result["orphans"]), core_media))
    out.append("- items in more than one suggestion (weekly summaries and trips aside): %d; suggestions sharing title and window: %d"
               % (result["shared"], result["duplicate_windows"]))
    a = rows["all"]
    out.append("- titles naming the planted place where the person's data or a populated place names it: %s"
               % fmt(pct(a["nameable_hit"], a["nameable"]), a["nameable_hit"], a["nameable"]))
    out.append("- moments away from home titled with a place or city: %s; titles with coordinates: %d"
               % (fmt(pct(result["away_named"], result["away"]), result["away_named"], result["away"]), len(result["coordinate_titles"])))
    if truth.copies:
        out.append("- photos kept in more than one file (%d copies) suggested as more than one item: %d%s"
                   % (len(truth.copies), len(result["copies_twice"]),
                      (" (" + ", ".join(result["copies_twice"]) + ")") if result["copies_twice"] else ""))
    if result.get("listening"):
        li = result["listening"]
        out.append("- listens imported: %s songs for %d listens in the life; podcast episodes: %s for %d"
                   % (li["songs"], li["listens"], li["podcasts"], li["episodes"]))
    if result["twice"]:
        out.append("- workouts kept in two files (a watch's export and Strava's GPX, a TCX and a GPX) imported as one item: %d of %d"
                   % (result["merged"], result["twice"]))
    rp = result.get("repeats")
    if rp:
        out.append("- routine workouts (planted repeats) suggested as workouts: %d of %d%s" % (
            rp["routine_workouts_suggested"], rp["routine_workouts"],
            (" (" + ", ".join("%s %d/%d" % (w, n[0], n[1]) for w, n in sorted(rp["routine_by_what"].items())) + ")") if rp["routine_by_what"] else ""))
        if "recommended" in rp:
            out.append("- Recommended: %s planted moments, weekly summaries or prompts" % fmt(rp["recommended_precision"], *rp["recommended"]))
        out.append("- Recent: %s of suggestions hold one item" % fmt(rp["recent_one_item_share"], *rp["recent_one_item"]))
    if result["weeks_found"]:
        out.append("- weekly summaries titled by their own week's Monday: %d of %d" % (result["weeks_dated"], result["weeks_found"]))
    if result["distances"]:
        d = result["distances"]
        out.append("- workout distances: %d of %d within 2 %% of the truth (worst %+.1f %%)"
                   % (sum(1 for x in d if abs(x) <= 0.02), len(d), 100 * max(d, key=abs)))
    if details:
        out.append("")
        out.append("#### moments")
        for e in result["details"]:
            if e["found"]:
                out.append("- %s: **%s** [%s] %+.0f/%+.0f min, items %d/%d right, core %d/%d%s%s" % (
                    e["id"], e["title"], e["suggestion_kind"], e["start_error_min"], e["end_error_min"], e["correct"], e["items"],
                    e["core_found"], e["core_expected"], "" if e["title_hit"] or e["kind"] == "weekly" else
                    " (title misses the place)" if e["nameable"] else " (title misses the place, which neither the data nor a populated place names)",
                    ("; distance %+.1f %%" % (100 * e["distance_error"])) if "distance_error" in e else ""))
            else:
                n = e.get("nearest")
                out.append("- %s: NOT FOUND%s" % (e["id"], (" (nearest: \"%s\" [%s] %+.0f/%+.0f min, %d of its items)" % (
                    n["title"], n["kind"], n["start_error_min"], n["end_error_min"], n["items_of_moment"])) if n else ""))
        if rp and rp.get("recommended_other"):
            out.append("")
            out.append("#### Recommended, neither planted nor a summary")
            for t in rp["recommended_other"]:
                out.append("- %s" % t)
        if rp and rp["routine_suggested_titles"]:
            out.append("")
            out.append("#### routine workouts suggested")
            for t in rp["routine_suggested_titles"]:
                out.append("- %s" % t)
        if result["routine_titles"]:
            seen = {}
            for t in result["routine_titles"]:
                seen[t] = seen.get(t, 0) + 1
            out.append("")
            out.append("#### routine suggested (most frequent titles)")
            for t, n in sorted(seen.items(), key=lambda kv: -kv[1])[:10]:
                out.append("- %d × %s" % (n, t))
    a = rows["all"]
    summary = dict(
        life=life, weeks=truth.data["weeks"], suggestions=total,
        found=a["found"], planted=a["planted"], recall=pct(a["found"], a["planted"]),
        precision=pct(a["matched_suggestions"], total),
        title_hit=pct(a["title_hit"], a["titled"]), place_hit=pct(a["place_hit"], a["titled"]),
        title_hit_nameable=pct(a["nameable_hit"], a["nameable"]), nameable=[a["nameable_hit"], a["nameable"]],
        item_precision=pct(a["item_correct"], a["items"]), item_recall=pct(a["core_found"], a["core_expected"]),
        routine_share=pct(u["routine"], total), noise_suggested=len(result["noise_suggested"]),
        away_named=pct(result["away_named"], result["away"]), weeks_dated=[result["weeks_dated"], result["weeks_found"]], coordinate_titles=len(result["coordinate_titles"]),
        wrong_kind=len(result["wrong_kind"]), orphaned_media=len(result["orphans"]), shared_items=result["shared"], duplicate_windows=result["duplicate_windows"],
        merged_workouts=[result["merged"], result["twice"]], copies_twice=len(result["copies_twice"]),
        routine_workouts_suggested=rp["routine_workouts_suggested"] if rp else None,
        routine_workouts=rp["routine_workouts"] if rp else None,
        recommended_precision=rp.get("recommended_precision") if rp else None,
        recommended=rp.get("recommended") if rp else None,
        recent_one_item_share=rp["recent_one_item_share"] if rp else None,
        per_kind={k: dict(planted=rows[k]["planted"], found=rows[k]["found"], suggestions=rows[k]["suggestions"],
                          precision=pct(rows[k]["matched_suggestions"], rows[k]["suggestions"]),
                          title_hit=pct(rows[k]["title_hit"], rows[k]["titled"]), place_hit=pct(rows[k]["place_hit"], rows[k]["titled"]),
                          item_precision=pct(rows[k]["item_correct"], rows[k]["items"]),
                          item_recall=pct(rows[k]["core_found"], rows[k]["core_expected"])) for k in KINDS},
    )
    for k, v in list(summary.items()):
        if isinstance(v, float):
            summary[k] = round(v, 4)
    for k in summary["per_kind"].values():
        for kk, v in list(k.items()):
            if isinstance(v, float):
                k[kk] = round(v, 4)
    return "\n".join(out), summary


def main():
    parser = argparse.ArgumentParser(description="Score suggestions against a labelled life.")
    parser.add_argument("--life", required=True, help="the folder generate.py wrote (with truth.json)")
    parser.add_argument("--suggestions", required=True, help="the suggestions JSON (README.md, 'The suggestions file')")
    parser.add_argument("--lists", help="Recommended and Recent's first page as pickerd-bench-lists writes them (JSON)")
    parser.add_argument("--details", action="store_true", help="also list every planted moment and what matched it")
    parser.add_argument("--json-out", help="write the full result (per-moment details) here")
    args = parser.parse_args()
    truth = Truth(args.life)
    suggestions = load_suggestions(args.suggestions)
    result = score(truth, suggestions)
    lists = None
    if args.lists:
        with open(args.lists, encoding="utf-8") as f:
            lists = json.load(f)
    result["repeats"] = repeats(truth, suggestions, result, lists)
    # What the store holds of the life's music (dump_store.py's item counts): every listen once,
    # whichever services it came from, none of a private session or a skip.
    with open(args.suggestions, encoding="utf-8") as f:
        data = json.load(f)
    counts = data.get("item_counts") if isinstance(data, dict) else None
    if isinstance(counts, dict):
        result["listening"] = dict(songs=counts.get("song", 0), listens=truth.data["counts"]["listens"],
                                   podcasts=counts.get("podcast", 0), episodes=truth.data["counts"].get("podcasts", 0))
    text, summary = report(truth, result, args.details)
    if result.get("listening"):
        summary["listening"] = result["listening"]
    print(text)
    print()
    print(json.dumps(summary, ensure_ascii=False, separators=(",", ":")))
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(dict(summary=summary, moments=result["details"], noise_suggested=result["noise_suggested"],
                           orphaned_media=result["orphans"], routine_titles=result["routine_titles"]), f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
