#!/usr/bin/env python3
"""Checks a real-files run file by file (Tools/real-files runs it; standard library plus the references).

    check.py CORPUS IMPORT_LOG STORE_SQLITE

CORPUS/exports was imported with `pickerctl import` (IMPORT_LOG is its output); CORPUS/photos was added
with `pickerctl sources add` (what it did is in the store's source_file table). Every file needs an
outcome: imported, or named with its reason. Then what a reference reader reads is compared with what
pickerd stored:

- photos: the capture date (EXIF DateTimeOriginal with its sub-seconds and OffsetTimeOriginal, else
  CreateDate, else ModifyDate, else the file's mtime: pickerd's order), the UTC offset and the GPS
  position, as `exiftool -j -n` reads them, against the item's start_ms, utc_offset_s, latitude and
  longitude;
- FIT: each session's start, duration and distance as fitdecode reads them (a session without a start
  time is dated by its records, as pickerd does), against the stored FIT workouts; a file fitdecode
  refuses must be refused;
- GPX: each timed track's first and last time as gpxpy reads them, against the stored GPX workouts;
- calendars: a calendar whose events icalendar reads must be imported.

A difference is allowed only when ALLOWED names the file with the reason (a reference's quirk, or a
pickerd limitation that is known and listed); any other fails the run. Prints counts per format.
"""

import collections
import datetime
import json
import os
import re
import sqlite3
import subprocess
import sys
import warnings

sys.dont_write_bytecode = True
warnings.simplefilter("ignore")

# Known differences: the file (relative to the corpus), what differs, and why it is allowed.
ALLOWED = {
    # A reference's quirk: exiftool stops at IFD0's ExifOffset written as a string ("Wrong format
    # (string) for IFD0 0x8769 ExifOffset") and falls back to ModifyDate; libexif follows it and finds
    # DateTimeOriginal 2010:07:11 13:53:00, the local time the file's XMP DateTimeOriginal also states.
    "photos/pillow/exif_typeerror.jpg": "exiftool does not follow an ExifOffset of the wrong type; pickerd's date is the XMP's",
    # libexif (which pickerd reads EXIF with) stops reading IFD0 of piexif's synthetic file at an
    # entry whose data it finds past the end of the block ("Tag data past end of buffer"), before the
    # ExifOffset and GPSInfo written out of sequence after it, so the ExifIFD is lost; exiftool
    # reads its DateTimeOriginal 2099:09:29 10:10:10 (values are 0xFFFFFFFF throughout). No camera wrote it and the date is not a real
    # one; pickerd dates it by its mtime. Listed as a pickerd (libexif) limitation, not fixed.
    "photos/piexif/01.jpg": "libexif drops the ExifIFD of this synthetic file (DateTimeOriginal 2099); dated by mtime",
    "photos/pillow/exif_gps.jpg": "the same file as piexif's 01.jpg: libexif drops its ExifIFD (DateTimeOriginal 2099); dated by mtime",
    # icalendar's leniency: it reads past what pickerd refuses with its line. A typo'd END:VCALENDARD
    # is a broken file: its components cannot be told apart, so it is refused, line 23 named.
    "exports/icalendar/calendars/timezone_same_start_and_offset.ics": "END:VCALENDARD at line 23: a broken file, refused with its line; icalendar reads past it",
    # A reference's quirk: Pillow's flower.webp has JPEG's "Exif\0\0" before the TIFF in its EXIF chunk
    # (Google's container spec has none); exiftool reads its DateTimeOriginal 2003:12:14 12:01:44 with a
    # minor warning ("Improper EXIF header"), but with -m, as this check runs it, it drops the chunk.
    "photos/pillow/flower.webp": "exiftool -m drops an EXIF chunk with a JPEG-style Exif header; without -m it reads pickerd's date",
    # A reference's limit: cjxl keeps a recompressed JPEG's EXIF in a brotli-compressed brob box, which
    # exiftool reads only with Perl's IO::Compress::Brotli (not in Debian 12), so it dates the file by
    # its mtime; pickerd (libjxl decompresses the box) reads its ModifyDate 2021:10:27 18:59:15, the
    # date exiftool reads from the uncompressed Exif box of its twin 1x1_exif_xmp.png.jxl.
    "photos/pillow-jxl-plugin/metadata/1x1_exif_xmp.jpg.jxl": "exiftool cannot read the brob-compressed Exif box; pickerd's date is its ModifyDate",
}

PHOTO_EXTENSIONS = {"jpg", "jpeg", "mpo", "tif", "tiff", "png", "webp", "heic", "heif", "avif", "jxl", "dng"}
COMPARED = collections.Counter()  # FIT sessions and GPX tracks compared
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def ms(moment):
    if moment.tzinfo is None:  # gpxpy's time without a zone: UTC, as pickerd reads it
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return int(round((moment - EPOCH).total_seconds() * 1000))


def main():
    corpus, log, store = sys.argv[1:4]
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(corpus) for f in fs if not f.startswith("."))
    rel = lambda path: os.path.relpath(path, corpus)  # noqa: E731
    db = sqlite3.connect("file:%s?mode=ro" % store, uri=True)
    db.row_factory = sqlite3.Row

    # Outcomes. Exports: the import's line for the file. Photos: the source's row for it.
    outcome, imported = {}, {}
    for line in open(log, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        path = line.split(": ", 1)[0].split(" (", 1)[0]
        if path in outcome or not path.startswith(corpus + "/"):
            continue
        said = line[len(path):].lstrip(": ")
        outcome[path] = said
        # As pickerctl counts it: a file is imported when one of its counts is not of what was left out.
        counts = re.split(r", (?=\d+ )", said.split(": ", 1)[1]) if said.startswith("(") and ": " in said else []
        imported[path] = "not imported" not in said and any(re.match(r"\d+ ", c) and "left out" not in c for c in counts)
    rows = {r["path"]: r for r in db.execute("SELECT path, item_id, problem FROM source_file")}
    items = {r["id"]: r for r in db.execute("SELECT * FROM item")}
    for path in files:
        if path in rows:
            r = rows[path]
            if r["item_id"]:
                outcome[path], imported[path] = "indexed", True
            elif r["problem"]:
                outcome[path], imported[path] = r["problem"], False

    differences = collections.defaultdict(list)  # path -> ["what differs", …]
    unavailable = set()
    compared = collections.Counter()  # readings compared with a reference, by kind
    explained = {}  # path -> pickerd's reason, where a reference reads what pickerd left out and says why

    # Photos: exiftool, one run for them all.
    photos = [p for p in files if rel(p).startswith("photos/")]
    tags = ["EXIF:DateTimeOriginal", "EXIF:SubSecTimeOriginal", "EXIF:OffsetTimeOriginal", "EXIF:CreateDate",
            "EXIF:OffsetTimeDigitized", "EXIF:ModifyDate", "EXIF:OffsetTime",
            "EXIF:GPSLatitude", "EXIF:GPSLatitudeRef", "EXIF:GPSLongitude", "EXIF:GPSLongitudeRef"]
    exif = {}
    if photos:
        run = subprocess.run(["exiftool", "-j", "-n", "-G0", "-m", "-q", "-q"] + ["-" + t for t in tags] + ["-r", os.path.join(corpus, "photos")],
                             env=dict(os.environ, TZ="UTC"), capture_output=True, text=True, timeout=300)
        for entry in json.loads(run.stdout or "[]"):
            exif[entry["SourceFile"]] = entry
    for path in photos:
        if not imported.get(path):
            continue
        r = rows[path]
        item = items.get(r["item_id"])
        if item is None:
            differences[path].append("indexed, but its item is not in the store")
            continue
        expected = expected_photo(exif.get(path, {}), path)
        compared["photo dates"] += 1
        compared["of them from EXIF"] += expected["from"] != "the file's mtime"
        compared["offsets"] += expected["offset"] is not None
        compared["places"] += expected["position"] is not None
        if abs(item["start_ms"] - expected["ms"]) > expected["tolerance"]:
            differences[path].append(f"date: exiftool {iso(expected['ms'])} ({expected['from']}), pickerd {iso(item['start_ms'])}")
        if expected["offset"] is not None and item["utc_offset_s"] != expected["offset"]:
            differences[path].append(f"offset: exiftool {expected['offset']} s, pickerd {item['utc_offset_s']}")
        position = expected["position"]
        stored = (item["latitude"], item["longitude"]) if item["latitude"] is not None else None
        if (position is None) != (stored is None) or (position and max(abs(position[0] - stored[0]), abs(position[1] - stored[1])) > 1e-5):
            differences[path].append(f"place: exiftool {fmt(position)}, pickerd {fmt(stored)}")

    # Exports: the references, file by file, against the workouts stored.
    workouts = collections.defaultdict(list)
    for w in db.execute("SELECT i.external_id AS format, w.start_ms, w.end_ms, w.distance_value, w.distance_unit "
                        "FROM workout w JOIN item i ON i.id = w.item_id"):
        workouts[w["format"]].append(w)
    for path in files:
        if rel(path).startswith("photos/"):
            continue
        ext = extension(path)
        try:
            if ext == "fit":
                check_fit(path, imported.get(path), workouts["fit"], differences)
            elif ext == "gpx":
                check_gpx(path, imported.get(path), workouts["gpx"], differences)
            elif ext == "ics":
                check_ics(path, imported.get(path), outcome.get(path, ""), differences, explained)
        except ImportError as e:
            unavailable.add(f"{ext}: {e}")

    # Counts, then what was named, what differs, what has no outcome.
    counts = collections.defaultdict(collections.Counter)
    failing, allowed_used = [], set()
    for path in files:
        ext = extension(path)
        if path not in outcome:
            counts[ext]["NO OUTCOME"] += 1
            continue
        if not imported[path] and outcome[path].endswith("nothing to import"):
            counts[ext]["'nothing to import', no reason"] += 1
        else:
            counts[ext]["imported" if imported[path] else "named with a reason"] += 1
        if path in explained:
            counts[ext]["differing, pickerd says why"] += 1
        if differences.get(path):
            if rel(path) in ALLOWED:
                counts[ext]["differing, allowed"] += 1
                allowed_used.add(rel(path))
            else:
                counts[ext]["differing"] += 1
                failing.append(path)
    print(f"{len(files)} real files, {sum(1 for p in files if imported.get(p))} imported:")
    for ext in sorted(counts):
        print(f"  .{ext}: " + ", ".join(f"{n} {k}" for k, n in sorted(counts[ext].items())))
    compared.update(COMPARED)
    print("compared with a reference: " + ", ".join(f"{n} {k}" for k, n in compared.items()))
    print("named with a reason:")
    for path in files:
        if path in outcome and not imported[path]:
            print(f"  {rel(path)}: {outcome[path][:200]}")
    for path in files:
        if rel(path) in allowed_used:
            print(f"  allowed: {rel(path)}: {'; '.join(differences[path])} ({ALLOWED[rel(path)]})")
    for path in files:
        if path in explained:
            print(f"  the reference reads what pickerd left out, and pickerd says why: {rel(path)}: {explained[path][:200]}")
    for name in sorted(set(ALLOWED) - allowed_used):
        print(f"  allowed but no longer differs (remove it from ALLOWED): {name}")
    for reason in sorted(unavailable):
        print(f"  no reference reader for .{reason}")
    missing = [p for p in files if p not in outcome]
    for path in missing:
        print(f"  NO OUTCOME: {rel(path)}")
    for path in failing:
        print(f"  DIFFERS from the reference: {rel(path)}: {'; '.join(differences[path])}")
    return 1 if missing or failing else 0


def extension(path):
    name = os.path.basename(path)
    return name.rsplit(".", 1)[-1].lower() if "." in name else "(none)"


def iso(value):
    return (EPOCH + datetime.timedelta(milliseconds=value)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z" if value is not None else None


def fmt(position):
    return f"{position[0]:.6f},{position[1]:.6f}" if position else "none"


def exif_date(text, subsec=None, offset=None):
    """An EXIF date as pickerd reads it (in UTC where it has no offset: TZ=UTC), or None."""
    if not isinstance(text, str) or len(text) < 19:
        return None
    # The digits at their places, whatever separates them (as pickerd's MediaDates reads them: an
    # Apple spatial HEIC's IFD0 writes "2024-04-22T14:38:09GMT+2"); anything after the seconds is not
    # an EXIF offset (OffsetTime* are).
    try:
        fields = [int(text[a:b]) for a, b in ((0, 4), (5, 7), (8, 10), (11, 13), (14, 16), (17, 19)) if text[a:b].isdigit()]
        moment = datetime.datetime(*fields, tzinfo=datetime.timezone.utc) if len(fields) == 6 else None
    except ValueError:
        return None
    if moment is None:
        return None
    value = ms(moment)
    digits = "".join(c for c in str(subsec or "") if c.isdigit())[:3]
    if digits:
        value += int(digits.ljust(3, "0"))
    seconds = offset_seconds(offset)
    if seconds is not None:
        value -= seconds * 1000
    return value


def offset_seconds(text):
    if not isinstance(text, str) or len(text) < 6 or text[0] not in "+-" or text[3] != ":":
        return None
    try:
        value = int(text[1:3]) * 3600 + int(text[4:6]) * 60
    except ValueError:
        return None
    return -value if text[0] == "-" else value


def expected_photo(tags, path):
    """What exiftool reads, in pickerd's order: taken, else digitized, else modified, else mtime."""
    get = lambda name: tags.get("EXIF:" + name)  # noqa: E731
    original = get("OffsetTimeOriginal")
    result = {"offset": None, "tolerance": 1000}
    taken = exif_date(get("DateTimeOriginal"), get("SubSecTimeOriginal"), original)
    if taken is not None:
        result.update(ms=taken, **{"from": "DateTimeOriginal"})
        result["offset"] = offset_seconds(original)
    elif exif_date(get("CreateDate")) is not None:
        result.update(ms=exif_date(get("CreateDate"), None, get("OffsetTimeDigitized") or original), **{"from": "CreateDate"})
    elif exif_date(get("ModifyDate")) is not None:
        result.update(ms=exif_date(get("ModifyDate"), None, get("OffsetTime") or original), **{"from": "ModifyDate"})
    else:
        result.update(ms=int(os.stat(path).st_mtime_ns // 1_000_000), tolerance=1000, **{"from": "the file's mtime"})
    result["position"] = None
    lat, lon = get("GPSLatitude"), get("GPSLongitude")
    if isinstance(lat, (int, float)) and isinstance(lon, (int, float)):
        lat = -lat if get("GPSLatitudeRef") == "S" else lat
        lon = -lon if get("GPSLongitudeRef") == "W" else lon
        if -90 <= lat <= 90 and -180 <= lon <= 180 and (lat, lon) != (0, 0):
            result["position"] = (lat, lon)
    return result


def check_fit(path, imported, stored, differences):
    import fitdecode
    sessions, records, refused = [], [], None
    try:
        with fitdecode.FitReader(path, check_crc=fitdecode.CrcCheck.RAISE) as reader:
            for frame in reader:
                if not isinstance(frame, fitdecode.FitDataMessage):
                    continue
                if frame.name == "session":
                    sessions.append({f.name: f.value for f in frame.fields})
                elif frame.name == "record":
                    stamp = frame.get_value("timestamp", fallback=None)
                    if isinstance(stamp, datetime.datetime):
                        records.append(stamp)
    except Exception as e:  # fitdecode refuses it
        refused = f"{type(e).__name__}: {e}"
    if refused:
        if imported:
            differences[path].append(f"fitdecode refuses it ({refused[:120]}), pickerd imported it")
        return
    readings = []
    for s in sessions:
        start = s.get("start_time") if isinstance(s.get("start_time"), datetime.datetime) else (records[0] if records else None)
        if start is None:
            continue
        elapsed = s.get("total_elapsed_time")
        end = start + datetime.timedelta(seconds=elapsed) if isinstance(elapsed, (int, float)) else (records[-1] if records else start)
        readings.append((ms(start), ms(end), s.get("total_distance")))
    if not sessions and records:
        readings.append((ms(records[0]), ms(records[-1]), None))
    if readings and not imported:
        differences[path].append(f"fitdecode reads {len(readings)} dated session(s), pickerd imported none")
    if not readings and imported:
        differences[path].append("fitdecode reads no dated session or record, pickerd imported a workout")
    for start, end, distance in readings if imported else []:
        COMPARED["FIT sessions"] += 1
        match = [w for w in stored if abs(w["start_ms"] - start) <= 1000]
        if not match:
            differences[path].append(f"no FIT workout starts at {iso(start)} (fitdecode's start)")
            continue
        w = match[0]
        if abs(w["end_ms"] - end) > 1000:
            differences[path].append(f"duration: fitdecode {(end - start) / 1000:.0f} s, pickerd {(w['end_ms'] - w['start_ms']) / 1000:.0f} s")
        if isinstance(distance, (int, float)):
            meters = (w["distance_value"] or 0) * (1000 if w["distance_unit"] == "km" else 1)
            if abs(meters - distance) > 1:
                differences[path].append(f"distance: fitdecode {distance:.0f} m, pickerd {meters:.0f} m")


def check_gpx(path, imported, stored, differences):
    import gpxpy
    try:
        gpx = gpxpy.parse(open(path, encoding="utf-8", errors="replace"))
    except Exception:
        return  # gpxpy refuses it: pickerd may read it or name why not
    tracks = []
    for track in gpx.tracks:
        times = [p.time for s in track.segments for p in s.points if p.time]
        if times:
            tracks.append((ms(min(times)), ms(max(times))))
    if tracks and not imported:
        differences[path].append(f"gpxpy reads {len(tracks)} timed track(s), pickerd imported none")
    for start, end in tracks if imported else []:
        COMPARED["GPX tracks"] += 1
        if not any(abs(w["start_ms"] - start) <= 1000 for w in stored):
            differences[path].append(f"no GPX workout starts at {iso(start)} (gpxpy's first time of a track)")


def check_ics(path, imported, said, differences, explained):
    import icalendar
    try:
        calendar = icalendar.Calendar.from_ical(open(path, "rb").read())
    except Exception:
        return  # icalendar refuses it: pickerd may read it or name why not
    # icalendar reads any component as a calendar; a file that is a bare VEVENT (a fragment from its
    # tests, not an iCalendar object: RFC 5545 wraps it in VCALENDAR) is not one pickerd should import.
    if calendar.name != "VCALENDAR":
        return
    if any(c.get("DTSTART") for c in calendar.walk("VEVENT")) and not imported:
        # Every event left out with its line and reason (issue 29's "keep the rest, skip what cannot
        # be read with a per-event reason"): the difference is pickerd's to explain, and it does.
        if re.fullmatch(r"\(ics\): \d+ events left out \(the event at line \d+: .*\)", said):
            explained[path] = said.split(": ", 1)[1]
            return
        differences[path].append(f"icalendar reads events with a start, pickerd: {said[:120]}")


if __name__ == "__main__":
    sys.exit(main())
