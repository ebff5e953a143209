#!/usr/bin/env python3
"""Dumps every suggestion a pickerd store holds, with its items, as the JSON score.py reads.

    dump_store.py STORE_DIR_OR_SQLITE [--out FILE]

A stopgap: no pickerctl command lists suggestions with their items' identities (see README.md,
"Getting suggestions out of pickerd"), so this reads pickerd's SQLite file directly, read-only
(stop pickerd first, or it may read a moment mid-rebuild). It knows the store's schema as of
Store.swift migration v9; when the schema changes, this is the file to change. Standard library only.

The shape written (documented in README.md):
{"source": "...", "suggestions": [{"id", "kind", "title", "start", "end", "items": [{...}]}]}
"""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import argparse
import json
import os
import sqlite3

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import iso  # noqa: E402

# SuggestionKind in Protocol/pickerd/v1/assets.proto
KINDS = {0: "unspecified", 1: "outing", 2: "workout", 3: "trip", 4: "weeklySummary", 5: "timeAtHome", 6: "reflection",
         7: "stateOfMind", 8: "media", 9: "contact", 10: "photos", 11: "motion"}


def t(ms):
    return iso(ms / 1000.0) if ms is not None else None


def dump(path):
    if os.path.isdir(path):
        path = os.path.join(path, "pickerd.sqlite")
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    db.row_factory = sqlite3.Row
    q = lambda sql, *a: db.execute(sql, a).fetchall()  # noqa: E731

    files = {}
    # The file an item shows first (issue 41: a photo's copies and an edit's original are further
    # files of its item, `role` 'copy' or 'original'), then any.
    for r in q("SELECT item_id, path FROM source_file WHERE item_id IS NOT NULL ORDER BY role IN ('copy', 'original')"):
        files.setdefault(r["item_id"], r["path"])
    for r in q("SELECT item_id, relative_path, filename FROM media ORDER BY slot"):
        files.setdefault(r["item_id"], r["relative_path"] if r["relative_path"].startswith("/") else r["filename"])

    def item(row):
        iid, kind = row["id"], row["kind"]
        out = {"id": iid, "kind": kind, "start": t(row["start_ms"]), "end": t(row["end_ms"]), "source": row["source"]}
        if row["latitude"] is not None:
            out["lat"], out["lon"] = row["latitude"], row["longitude"]
        if row["not_memory"]:
            out["not_memory"] = row["not_memory"]
        if row["excluded"]:
            out["excluded"] = True
        if kind in ("photo", "livePhoto", "video"):
            f = files.get(iid)
            if f:
                out["path"] = f
                out["file"] = os.path.basename(f)
        elif kind in ("workout", "workoutGroup"):
            out["format"] = row["external_id"]
            ws = q("SELECT * FROM workout WHERE item_id = ? ORDER BY position", iid)
            if ws:
                w = ws[0]
                out["activity"] = w["activity_type"]
                out["name"] = w["localized_name"]
                if w["distance_value"] is not None:
                    out["distance_m"] = w["distance_value"] * (1000 if (w["distance_unit"] or "m") == "km" else 1)
                if w["start_ms"] is not None:
                    out["workout_start"], out["workout_end"] = t(w["start_ms"]), t(w["end_ms"])
                first = q("SELECT latitude, longitude FROM route_point WHERE item_id = ? AND position = 0 ORDER BY seq LIMIT 1", iid)
                if first and "lat" not in out:
                    out["lat"], out["lon"] = first[0]["latitude"], first[0]["longitude"]
            if kind == "workoutGroup":
                out["workouts"] = len(ws)
        elif kind in ("location", "locationGroup"):
            places = [dict(place=l["place"], city=l["city"], lat=l["latitude"], lon=l["longitude"])
                      for l in q("SELECT * FROM location WHERE item_id = ? ORDER BY position", iid)]
            if kind == "location" and places:
                out.update(places[0])
            else:
                out["places"] = places
        elif kind == "song":
            for s in q("SELECT song, artist, album FROM song WHERE item_id = ?", iid):
                out["title"], out["artist"] = s["song"], s["artist"]
        elif kind == "podcast":
            for s in q("SELECT episode, show FROM podcast WHERE item_id = ?", iid):
                out["title"], out["artist"] = s["episode"], s["show"]
        elif kind == "genericMedia":
            for s in q("SELECT title, artist FROM generic_media WHERE item_id = ?", iid):
                out["title"], out["artist"] = s["title"], s["artist"]
        elif kind == "contact":
            for s in q("SELECT name FROM contact WHERE item_id = ?", iid):
                out["name"] = s["name"]
        elif kind == "motionActivity":
            for s in q("SELECT steps FROM motion_activity WHERE item_id = ?", iid):
                out["steps"] = s["steps"]
        elif kind == "stateOfMind":
            for s in q("SELECT valence, labels, associations FROM state_of_mind WHERE item_id = ?", iid):
                out["valence"] = s["valence"]
        elif kind == "reflection":
            for s in q("SELECT prompt FROM reflection WHERE item_id = ?", iid):
                out["title"] = s["prompt"]
        return out

    suggestions = []
    for s in q("SELECT id, title, kind, start_ms, end_ms, score FROM suggestion ORDER BY start_ms, id"):
        items = []
        for r in q("SELECT i.* FROM suggestion_item si JOIN item i ON i.id = si.item_id WHERE si.suggestion_id = ? ORDER BY si.position",
                   s["id"]):
            items.append(item(r))
        suggestions.append(dict(id=s["id"], kind=KINDS.get(s["kind"], str(s["kind"])), title=s["title"],
                                start=t(s["start_ms"]), end=t(s["end_ms"]), score=s["score"], items=items))
    counts = {r["kind"]: r["n"] for r in q("SELECT kind, COUNT(*) AS n FROM item GROUP BY kind")}
    not_memory = {r["not_memory"]: r["n"] for r in q("SELECT not_memory, COUNT(*) AS n FROM item WHERE not_memory IS NOT NULL GROUP BY not_memory")}
    return dict(source="pickerd store %s (dump_store.py)" % path, item_counts=counts, not_memory=not_memory, suggestions=suggestions)


def main():
    parser = argparse.ArgumentParser(description="Dump a pickerd store's suggestions with their items as JSON.")
    parser.add_argument("store", help="pickerd's data directory (or its pickerd.sqlite)")
    parser.add_argument("--out", help="file to write (default: stdout)")
    args = parser.parse_args()
    data = dump(args.store)
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
