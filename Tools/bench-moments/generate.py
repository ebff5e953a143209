#!/usr/bin/env python3
"""Generates one labelled life in real export formats, and its truth.

    generate.py --life berlin|tokyo|melbourne|london|berlin-google --out DIR [--weeks N] [--seed S]

DIR/photos/   the phone's pictures folder (give it to `pickerctl sources add`)
DIR/exports/  Takeout, Strava, Garmin, komoot, OwnTracks, Apple Health, Gadgetbridge, ListenBrainz, Daylio,
              calendar, contacts
              (give it to `pickerctl import`)
DIR/truth.json the planted moments, routine places and segments, noise files (see README.md)

The life is simulated as one continuous timeline of stays and moves in the person's local time
(so a daylight-saving change moves every UTC time after it); every file is then written from that
timeline the way its app writes it. Written from scratch for the benchmark: it shares nothing with
pickerd's demo or scale libraries or its engine. Deterministic for a given life, weeks and seed.
"""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import argparse
import datetime as dt
import json
import math
import os
import random
import uuid
import zlib
from zoneinfo import ZoneInfo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import formats  # noqa: E402
from benchlib import along, haversine, iso, iso_ms, offset, path_length  # noqa: E402
from lives import CATALOGUE, LIVES, Place  # noqa: E402

SPEEDS = {"WALKING": 1.35, "CYCLING": 4.5, "IN_SUBWAY": 8.0, "IN_TRAM": 5.0, "IN_BUS": 6.0, "IN_TRAIN": 14.0,
          "IN_PASSENGER_VEHICLE": 13.0, "HIKING": 1.15}
GOOGLE_TYPE = {"HIKING": "WALKING"}
WATCH_DEVICE = ("<<HKDevice: 0x30a1c4f20>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch7,3, "
                "software:11.0.1, creation date:2026-09-21 18:02:11 +0000>")
STRAVA_NAMES = [(5, "Morning"), (11, "Lunch"), (14, "Afternoon"), (18, "Evening"), (21, "Night")]


def wiggle(path, factor, wavelength=320.0):
    """The path made `factor` times longer by winding it (a trail's bends): densified every 40 m and
    offset sideways by a sine whose amplitude is found by bisection; the ends stay where they are."""
    if factor <= 1.0:
        return list(path)
    dense = []
    for a, b in zip(path, path[1:]):
        n = max(1, int(haversine(a[0], a[1], b[0], b[1]) / 40))
        for i in range(n):
            f = i / n
            dense.append((a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f))
    dense.append(path[-1])
    total = path_length(dense)

    def bent(amplitude):
        out, walked = [dense[0]], 0.0
        for i in range(1, len(dense) - 1):
            a, b = dense[i - 1], dense[i + 1]
            walked += haversine(dense[i - 1][0], dense[i - 1][1], dense[i][0], dense[i][1])
            north = (b[0] - a[0]) * 111_320
            east = (b[1] - a[1]) * 111_320 * math.cos(math.radians(a[0]))
            norm = math.hypot(north, east) or 1
            side = amplitude * math.sin(2 * math.pi * walked / wavelength) * math.sin(math.pi * walked / total)
            out.append(offset(dense[i][0], dense[i][1], -east / norm * side, north / norm * side))
        out.append(dense[-1])
        return out

    low, high = 0.0, wavelength
    for _ in range(30):
        mid = (low + high) / 2
        if path_length(bent(mid)) < factor * total:
            low = mid
        else:
            high = mid
    return bent(low)


class Move:
    def __init__(self, mode, start, end, path, tag=None, routine=False, start_place=None, end_place=None):
        self.type = "move"
        self.mode, self.start, self.end, self.path = mode, start, end, path
        self.tag, self.routine = tag, routine
        self.start_place, self.end_place = start_place, end_place
        self.length = path_length(path)

    def position(self, t):
        if self.end <= self.start:
            return self.path[-1][0], self.path[-1][1]
        f = min(1.0, max(0.0, (t - self.start) / (self.end - self.start)))
        return along(self.path, f * self.length)


class Stay:
    def __init__(self, place, start, end, tag=None):
        self.type = "stay"
        self.place, self.start, self.end, self.tag = place, start, end, tag


class Sim:
    """The person's timeline: stays at places and moves between them, appended in time order."""

    def __init__(self, life, rng, place, t):
        self.life, self.rng = life, rng
        self.segs = []
        self.place, self.since, self.t, self.stay_tag = place, t, t, None
        self.pos = (place.lat, place.lon)

    def wait_until(self, t):
        self.t = max(self.t, t)

    def wait(self, seconds):
        self.t += seconds

    def _close_stay(self):
        if self.place is not None and self.t > self.since:
            self.segs.append(Stay(self.place, self.since, self.t, self.stay_tag))
        self.place = None
        self.stay_tag = None

    def street_path(self, a, b):
        d = haversine(a[0], a[1], b[0], b[1])
        if d < 150:
            return [a, b]
        n = self.rng.uniform(-0.12, 0.12) * d
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        # perpendicular offset: rotate the direction by 90 degrees in metres
        north = (b[0] - a[0]) * 111_320
        east = (b[1] - a[1]) * 111_320 * math.cos(math.radians(a[0]))
        norm = math.hypot(north, east) or 1
        m = offset(mid[0], mid[1], -east / norm * n, north / norm * n)
        return [a, m, b]

    def go(self, dest, mode, path=None, speed=None, tag=None, routine=False, extra=0.0, stay_tag=None):
        """Moves from where the person is to `dest` (a Place, or a (lat, lon) point where no stay begins)."""
        start_place = self.place
        self._close_stay()
        target = (dest.lat, dest.lon) if isinstance(dest, Place) else dest
        if path is None:
            path = self.street_path(self.pos, target) if mode not in ("IN_TRAIN", "IN_SUBWAY") else [self.pos, target]
        else:
            path = [self.pos] + list(path) + [target]
        speed = speed or SPEEDS[mode] * self.rng.uniform(0.9, 1.1)
        duration = path_length(path) / speed + extra
        move = Move(mode, self.t, self.t + duration, path, tag, routine, start_place, dest if isinstance(dest, Place) else None)
        self.segs.append(move)
        self.t = move.end
        self.pos = target
        if isinstance(dest, Place):
            self.place, self.since, self.stay_tag = dest, self.t, stay_tag
        return move

    def transit(self, dest, mode, st_from=None, st_to=None, tag=None, routine=False, stay_tag=None, speed=None):
        """Walk to a stop, ride, walk on; a stop is a point (or a station Place passed through)."""
        st_from = st_from or self.near(self.pos, (dest.lat, dest.lon), 350)
        st_to = st_to or self.near((dest.lat, dest.lon), self.pos, 300)
        a = (st_from.lat, st_from.lon) if isinstance(st_from, Place) else st_from
        b = (st_to.lat, st_to.lon) if isinstance(st_to, Place) else st_to
        moves = []
        if haversine(self.pos[0], self.pos[1], a[0], a[1]) > 60:
            moves.append(self.go(a, "WALKING", tag=tag, routine=routine))
        wait = self.rng.uniform(60, 300)
        moves.append(self.go(b, mode, tag=tag, routine=routine, extra=wait, speed=speed))
        moves.append(self.go(dest, "WALKING", tag=tag, routine=routine, stay_tag=stay_tag))
        return moves

    @staticmethod
    def near(a, b, metres):
        d = haversine(a[0], a[1], b[0], b[1])
        f = min(0.5, metres / d) if d else 0
        return (a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f)

    def finish(self, t):
        self.wait_until(t)
        self._close_stay()


# ====================================================================== the generator

class Life:
    def __init__(self, spec, weeks, seed):
        self.spec = spec
        self.name = spec["name"]
        self.zone = ZoneInfo(spec["tz"])
        self.weeks = weeks
        self.seed = seed
        self.rng = random.Random("%s:%d:%d" % (self.name, weeks, seed))
        self.places = spec["places"]
        self.start_date = spec["start"]
        self.days = [self.start_date + dt.timedelta(days=i) for i in range(7 * weeks)]
        self.period = (self.loc(self.days[0], 0, 0), self.loc(self.days[-1] + dt.timedelta(days=1), 0, 0))
        self.moments = []
        self.media = []        # photo/video requests
        self.workouts = []     # workout files
        self.events = []
        self.noise = []
        self.stray = []
        self.repeats = []      # planted routine workouts (issue 42): ("ride", move) / ("walk", move) / ("gym", stay)

    # ---------------------------------------------------------------- time

    def loc(self, date, h, m=0, s=0):
        return dt.datetime(date.year, date.month, date.day, h, m, int(s), tzinfo=self.zone).timestamp()

    def local(self, t):
        return dt.datetime.fromtimestamp(t, self.zone)

    def mins(self, a, b):
        return self.rng.uniform(a, b) * 60

    # ---------------------------------------------------------------- plan

    def home_key(self, date):
        key = self.spec["homes"][0][1]
        for since, k in self.spec["homes"]:
            if since is None or date >= since:
                key = k
        return key

    def home(self, date):
        return self.places[self.home_key(date)]

    def station_home(self, date):
        return self.places.get("st_" + self.home_key(date))

    def moment(self, kind, mid, words, place=None, radius=300, **extra):
        m = dict(id=mid, kind=kind, words=words, place=place, radius=radius, segs=[], items=[], events=[])
        m.update(extra)
        self.moments.append(m)
        return m

    def simulate(self):
        spec, rng = self.spec, self.rng
        plan = {}
        for week, day, what, params in spec["plan"]:
            if week < self.weeks:
                plan[self.start_date + dt.timedelta(days=7 * week + day)] = (what, params)
        self.sim = sim = Sim(spec, rng, self.home(self.days[0]), self.period[0])
        skip = set()
        for date in self.days:
            if date in skip:
                continue
            what, params = plan.get(date, (None, {}))
            if what == "trip":
                # Friday to Sunday; only when the whole weekend is inside the period
                if date + dt.timedelta(days=2) <= self.days[-1]:
                    self.trip(date)
                    skip |= {date + dt.timedelta(days=1), date + dt.timedelta(days=2)}
                    continue
                what = None
            weekend = date.weekday() >= 5 or date in spec["holidays"]
            if weekend:
                self.weekend_day(date, what, params)
            else:
                self.work_day(date, what, params)
        sim.finish(self.period[1])
        self.segs = sim.segs

    # ---------------------------------------------------------------- days

    def work_day(self, date, what, params):
        sim, rng, pl = self.sim, self.rng, self.places
        home = self.home(date)
        run = params if what == "run" else None
        leave = self.loc(date, 7, 40) + self.mins(0, 20)
        if run and run["when"] == "morning":
            sim.wait_until(self.loc(date, 6, 20) + self.mins(0, 15))
            self.run(date, home, run)
            leave = max(leave, sim.t + self.mins(25, 35))
        sim.wait_until(leave)
        st_home = self.station_home(date)
        st_work = pl.get("st_work")
        self.to_work(date)
        sim.wait_until(self.loc(date, 12, 5) + self.mins(0, 25))
        if run and run["when"] == "lunch":
            self.run(date, pl["work"], run)
            sim.wait(self.mins(15, 20))
        elif rng.random() < 0.6:
            sim.go(pl["lunch"], "WALKING", routine=True)
            sim.wait(self.mins(28, 42))
            sim.go(pl["work"], "WALKING", routine=True)
        sim.wait_until(self.loc(date, 17, 10) + self.mins(0, 40))
        if what == "bar":
            sim.wait_until(self.loc(date, 18, 0) + self.mins(0, 10))
            m = self.moment("outing", "%s-bar" % self.name, pl["bar"].words, pl["bar"])
            sim.transit(pl["bar"], self.spec["local_transit"], st_work, None, stay_tag=m["id"])
            sim.wait_until(self.loc(date, 21, 35) + self.mins(0, 20))
            m["stay"] = sim.place, sim.since, sim.t
            self.home_from(date, sim.pos)
        elif what == "coffee":
            cafe = pl["cafe"]
            m = self.moment("outing", "%s-coffee" % self.name, cafe.words, cafe, friend=self.spec["coffee"]["friend"])
            if self.spec["cafe_time"] == "morning_home":
                sim.transit(home, self.spec["commute"], st_work, st_home, routine=True)
                sim.wait(self.mins(3, 8))
                sim.go(cafe, "WALKING", stay_tag=m["id"])
            else:
                sim.wait_until(self.loc(date, 17, 45))
                sim.go(cafe, "WALKING", stay_tag=m["id"])
            sim.wait_until(self.loc(date, 19, 15) + self.mins(0, 10))
            m["stay"] = sim.place, sim.since, sim.t
            self.home_from(date, sim.pos, routine=True)
        else:
            if self.repeat_day(date, "ride_days"):
                self.ride(date, home)
            elif self.repeat_day(date, "walk_home_days") and not run:
                # The long way home on foot, by the canal: the location history records it.
                move = sim.go(home, "WALKING", path=self.spec["repeats"]["walk_via"], routine=True)
                self.repeats.append(("walk", move))
            else:
                sim.transit(home, self.spec["commute"], st_work, st_home, routine=True)
            gym_today = self.repeat_day(date, "gym_days") and not run
            if gym_today:
                self.gym(date)
            elif rng.random() < 0.35:
                shop = pl[self.spec["shops"][self.home_key(date)]]
                sim.go(shop, "WALKING", routine=True)
                sim.wait(self.mins(8, 18))
                sim.go(home, "WALKING", routine=True)
            if run and run["when"] == "evening":
                sim.wait_until(self.loc(date, 18, 35) + self.mins(0, 20))
                self.run(date, home, run)
            elif not gym_today and rng.random() < 0.4:
                sim.wait_until(self.loc(date, 19, 30) + self.mins(0, 30))
                park = pl[self.spec["parks"][self.home_key(date)]]
                sim.go(park, "WALKING", routine=True)
                sim.wait(self.mins(18, 30))
                sim.go(home, "WALKING", routine=True)

    def home_from(self, date, pos, routine=False):
        """Back home from wherever the person is: a walk when close, else transit."""
        sim, home = self.sim, self.home(date)
        if haversine(pos[0], pos[1], home.lat, home.lon) < 1500:
            sim.go(home, "WALKING", routine=routine)
        else:
            st_work = self.places.get("st_work") if routine else None
            sim.transit(home, self.spec["local_transit"], st_work, self.station_home(date), routine=routine)

    def weekend_day(self, date, what, params):
        sim, rng, pl = self.sim, self.rng, self.places
        home = self.home(date)
        saturday = date.weekday() == 5
        if what == "run":
            sim.wait_until(self.loc(date, 8, 45) + self.mins(0, 30))
            self.run(date, home, params)
        if what == "hike":
            self.hike(date)
            return
        if what == "move":
            self.move_house(date)
            return
        if what == "lake":
            self.lake(date)
            return
        if what == "market":
            sim.wait_until(self.loc(date, 10, 10) + self.mins(0, 15))
            self.outing(date, "market", self.loc(date, 12, 30), photos=4)
        if saturday:
            sim.wait_until(self.loc(date, 10, 15) + self.mins(0, 45))
            shop = pl[self.spec["shops"][self.home_key(date)]]
            sim.go(shop, "WALKING", routine=True)
            sim.wait(self.mins(18, 35))
            sim.go(home, "WALKING", routine=True)
        if what == "dinner":
            sim.wait_until(self.loc(date, 18, 55) + self.mins(0, 10))
            self.outing(date, "restaurant", self.loc(date, 22, 35) + self.mins(0, 15), photos=4, dinner=True)
            return
        if what == "museum":
            sim.wait_until(self.loc(date, 12, 40) + self.mins(0, 15))
            self.outing(date, "museum", self.loc(date, 15, 30) + self.mins(0, 20), photos=5)
            return
        if what == "home":
            self.time_at_home(date)
            return
        if not saturday:
            sim.wait_until(self.loc(date, 15, 0) + self.mins(0, 50))
            park = pl[self.spec["parks"][self.home_key(date)]]
            sim.go(park, "WALKING", routine=True)
            sim.wait(self.mins(35, 60))
            sim.go(home, "WALKING", routine=True)

    # ---------------------------------------------------------------- planted moments

    def outing(self, date, key, until, photos=0, dinner=False):
        sim, pl = self.sim, self.places
        place = pl[key]
        mid = "%s-%s" % (self.name, key)
        m = self.moment("outing", mid, place.words, place, photos=photos, dinner=dinner)
        sim.transit(place, self.spec["local_transit"], self.station_home(date), None, stay_tag=mid)
        sim.wait_until(until)
        m["stay"] = place, sim.since, sim.t
        self.home_from(date, sim.pos)
        return m

    def lake(self, date):
        sim, pl = self.sim, self.places
        place = pl["lake"]
        sim.wait_until(self.loc(date, 10, 20) + self.mins(0, 20))
        mid = "%s-lake" % self.name
        m = self.moment("outing", mid, place.words, place, radius=500, photos=5, video=True)
        far = haversine(sim.pos[0], sim.pos[1], place.lat, place.lon) > 15000
        mode = "IN_TRAIN" if far else self.spec["local_transit"]
        st = self.station_home(date)
        sim.transit(place, mode, st, None, stay_tag=mid, speed=(12.0 if far else None))
        sim.wait_until(self.loc(date, 15, 40) + self.mins(0, 30))
        m["stay"] = place, sim.since, sim.t
        sim.transit(self.home(date), mode, None, st, speed=(12.0 if far else None))

    def time_at_home(self, date):
        sim = self.sim
        home = self.home(date)
        m = self.moment("timeAtHome", "%s-home" % self.name, home.words, home, photos=5)
        start = self.loc(date, 14, 5) + self.mins(0, 10)
        m["core"] = (start, start + self.mins(180, 200))
        sim.wait_until(self.loc(date, 20, 0))

    def move_house(self, date):
        """Moving day: a van between the old home and the new one, the evening in the new one."""
        sim, pl = self.sim, self.places
        old = pl[self.spec["homes"][0][1]]
        new = self.home(date)
        sim.wait_until(self.loc(date, 8, 50) + self.mins(0, 15))
        sim.go(new, "IN_PASSENGER_VEHICLE")
        sim.wait(self.mins(60, 80))
        sim.go(old, "IN_PASSENGER_VEHICLE")
        sim.wait(self.mins(80, 100))
        sim.go(new, "IN_PASSENGER_VEHICLE")
        m = self.moment("timeAtHome", "%s-newhome" % self.name, new.words, new, photos=4)
        start = self.loc(date, 17, 20) + self.mins(0, 10)
        m["core"] = (start, start + self.mins(80, 95))
        sim.wait_until(self.loc(date, 21, 0))

    def run(self, date, base, params):
        sim, rng = self.sim, self.rng
        route = self.spec["routes"][params["route"]]
        mid = "%s-run-%s" % (self.name, self.local(sim.t).strftime("%m%d"))
        pace = rng.uniform(2.75, 3.15)
        loop = path_length([(base.lat, base.lon)] + route["via"] + [(base.lat, base.lon)])
        target = rng.uniform(11500, 14500) if params["when"] == "sunday" else rng.uniform(5500, 9000)
        laps = max(1, int(round(target / loop)))
        path = route["via"] * laps
        move = sim.go(base, "RUNNING", path=path, speed=pace, tag=mid)
        hour = self.local(move.start).hour
        default = [n for h, n in STRAVA_NAMES if hour >= h][-1] + " Run"
        custom = self.spec["run_names"].get(params["route"]) if (params.get("tcx") or params["when"] == "sunday") else None
        name = custom or default
        words = list(route["words"]) + ([custom] if custom else [])
        m = self.moment("workout", mid, words, None, radius=400, activity="running", move=move, name=name,
                        tcx=bool(params.get("tcx")), selfie=bool(params.get("selfie")), base=base)
        m["segs"] = [move]
        return m

    def hike(self, date):
        sim, pl, spec = self.sim, self.places, self.spec["hike"]
        home = self.home(date)
        sim.wait_until(self.loc(date, 8, 10) + self.mins(0, 15))
        mid = "%s-hike" % self.name
        trailhead, inn = pl["trailhead"], pl["inn"]
        if spec["travel"] == "IN_TRAIN":
            sim.transit(trailhead, "IN_TRAIN", self.station_home(date), None, speed=15.0)
        else:
            sim.go(trailhead, "IN_PASSENGER_VEHICLE", path=spec["via"], speed=16.0)
        sim.wait(self.mins(3, 8))
        # the trails wind: about 12 km in all
        straight1 = path_length([(trailhead.lat, trailhead.lon)] + spec["part1"] + [(inn.lat, inn.lon)])
        straight2 = path_length([(inn.lat, inn.lon)] + spec["part2"] + [(trailhead.lat, trailhead.lon)])
        factor = self.rng.uniform(11000, 13000) / (straight1 + straight2)
        way1 = wiggle([(trailhead.lat, trailhead.lon)] + spec["part1"] + [(inn.lat, inn.lon)], factor)[1:-1]
        way2 = wiggle([(inn.lat, inn.lon)] + spec["part2"] + [(trailhead.lat, trailhead.lon)], factor)[1:-1]
        part1 = sim.go(inn, "HIKING", path=way1, speed=1.15, tag=mid, stay_tag=mid)
        sim.wait(self.mins(35, 45))
        stop = Stay(inn, part1.end, sim.t, mid)
        part2 = sim.go(trailhead, "HIKING", path=way2, speed=1.1, tag=mid)
        m = self.moment("workout", mid, spec["words"], None, radius=600, activity="hiking", move=part1, part2=part2,
                        stop=stop, name=spec["name"], photos=8)
        m["segs"] = [part1, part2]
        sim.wait(self.mins(10, 25))
        if spec["travel"] == "IN_TRAIN":
            sim.transit(home, "IN_TRAIN", None, self.station_home(date), speed=15.0)
        else:
            sim.go(home, "IN_PASSENGER_VEHICLE", path=list(reversed(spec["via"])), speed=16.0)

    def trip(self, friday):
        sim, pl, rng, spec = self.sim, self.places, self.rng, self.spec["trip"]
        mid = "%s-trip" % self.name
        m = self.moment("trip", mid, spec["words"], pl["st_dest"], radius=15000)
        # Friday: the morning as usual, then from work to the station
        self.work_day_morning(friday)
        sim.wait_until(self.loc(friday, 16, 0) + self.mins(0, 10))
        first = sim.transit(pl["st_origin"], self.spec["local_transit"], pl.get("st_work"), None, tag=mid, stay_tag=mid)
        sim.wait(self.mins(14, 22))
        train_out = sim.go(pl["st_dest"], "IN_TRAIN", path=spec["train_via"], speed=spec["train_speed"], tag=mid, stay_tag=mid)
        sim.wait(self.mins(3, 6))

        def to(key, stay_minutes=None, until=None):
            place = pl[key]
            d = haversine(sim.pos[0], sim.pos[1], place.lat, place.lon)
            if d > 1800:
                sim.transit(place, spec["local"], None, None, tag=mid, stay_tag=mid)
            else:
                sim.go(place, "WALKING", tag=mid, stay_tag=mid)
            if stay_minutes:
                sim.wait(self.mins(*stay_minutes))
            if until:
                sim.wait_until(until)

        to("hotel", (20, 35))
        to("dinner1", (85, 110))
        to("hotel")
        saturday = friday + dt.timedelta(days=1)
        sunday = friday + dt.timedelta(days=2)
        sim.wait_until(self.loc(saturday, 9, 20) + self.mins(0, 20))
        to("sight1", (70, 90))
        to("sight2", (80, 100))
        to("lunch2", (40, 50))
        to("sight3", (90, 110))
        to("hotel", until=self.loc(saturday, 18, 50) + self.mins(0, 15))
        to("dinner2", (110, 130))
        to("hotel")
        sim.wait_until(self.loc(sunday, 9, 10) + self.mins(0, 15))
        to("sight4", (70, 80))
        to("st_dest", (12, 20))
        train_back = sim.go(pl["st_origin"], "IN_TRAIN", path=list(reversed(spec["train_via"])), speed=spec["train_speed"],
                            tag=mid, stay_tag=mid)
        sim.wait(self.mins(2, 5))
        last = sim.transit(self.home(sunday), self.spec["local_transit"], None, self.station_home(sunday), tag=mid)
        m["start"], m["end"] = first[0].start, last[-1].end
        m["trains"] = (train_out, train_back)
        sim.wait_until(self.loc(sunday, 19, 0))

    def repeat_day(self, date, key):
        """Whether `date` is one of the life's planted repeat days of `key` (issue 42)."""
        r = self.spec.get("repeats")
        return bool(r) and date.weekday() in r.get(key, ()) and date not in self.spec["holidays"]

    def ride(self, date, dest):
        """By bike between home and work, the way a commuter's Strava records it."""
        move = self.sim.go(dest, "CYCLING", routine=True)
        self.repeats.append(("ride", move))
        return move

    def gym(self, date):
        """An evening at the gym (a routine place), its session recorded by the watch indoors."""
        sim = self.sim
        gym = self.places[self.spec["repeats"]["gym"]]
        sim.wait_until(self.loc(date, 19, 0) + self.mins(0, 15))
        sim.go(gym, "WALKING", routine=True)
        sim.wait(self.mins(65, 80))
        stay = (sim.since, sim.t)
        self.repeats.append(("gym", stay))
        sim.go(self.home(date), "WALKING", routine=True)

    def work_day_morning(self, date):
        self.sim.wait_until(self.loc(date, 7, 40) + self.mins(0, 20))
        self.to_work(date)

    def to_work(self, date):
        """The routine way to work: by the usual café, before or after the commute."""
        sim, pl = self.sim, self.places
        st_home, st_work = self.station_home(date), pl.get("st_work")
        if self.repeat_day(date, "ride_days"):
            self.ride(date, pl["work"])
        elif self.spec["cafe_time"] == "morning_home":
            sim.go(pl["cafe"], "WALKING", routine=True)
            sim.wait(self.mins(14, 24))
            sim.transit(pl["work"], self.spec["commute"], st_home, st_work, routine=True)
        else:
            sim.transit(pl["cafe"], self.spec["commute"], st_home, st_work, routine=True)
            sim.wait(self.mins(12, 20))
            sim.go(pl["work"], "WALKING", routine=True)

    # ================================================================== derived data

    def find_stay(self, tag=None, place=None, start=None, end=None):
        for s in self.segs:
            if s.type != "stay":
                continue
            if tag is not None and s.tag != tag:
                continue
            if place is not None and s.place is not place:
                continue
            if start is not None and s.end < start:
                continue
            if end is not None and s.start > end:
                continue
            return s
        return None

    def where(self, t):
        """(lat, lon, segment) where the person is at t."""
        for s in self.segs:
            if s.start <= t <= s.end:
                if s.type == "stay":
                    return s.place.lat, s.place.lon, s
                lat, lon = s.position(t)
                return lat, lon, s
        last = self.segs[-1]
        return (last.place.lat, last.place.lon, last) if last.type == "stay" else (last.path[-1][0], last.path[-1][1], last)

    def finish_moments(self):
        """Windows from the timeline, and what each moment holds."""
        rng = self.rng
        for m in self.moments:
            if m["kind"] == "outing":
                s = self.find_stay(tag=m["id"])
                m["start"], m["end"] = s.start, s.end
                m["visit"] = s
                n = m.get("photos", 0)
                times = sorted(rng.uniform(s.start + 600, s.end - 600) for _ in range(n)) if n else []
                for t in times:
                    self.photo(t, m, place=s.place)
                if m.get("video"):
                    self.photo(rng.uniform(s.start + 900, s.end - 900), m, place=s.place, video=True)
                if m.get("dinner"):
                    t = rng.uniform(s.start + 2400, s.start + 3600)
                    self.burst(t, m, s.place)
                    self.photo(rng.uniform(s.start + 3800, s.end - 1200), m, place=s.place, video=True)
                    self.noise_whatsapp(rng.uniform(s.start + 1200, s.end - 1200))
                if m["id"].endswith("coffee"):
                    for t in sorted(rng.uniform(s.start + 300, s.end - 300) for _ in range(2)):
                        self.photo(t, m, place=s.place)
            elif m["kind"] == "workout":
                move = m["move"]
                if m["activity"] == "running":
                    m["start"], m["end"] = move.start, move.end
                    self.write_run(m)
                    if rng.random() < 0.6:
                        t = move.start + (move.end - move.start) * rng.uniform(0.3, 0.7)
                        self.photo(t, m)
                    if m.get("selfie"):
                        self.photo(move.end + rng.uniform(150, 300), m, place=m["base"])
                else:
                    m["start"], m["end"] = move.start, m["part2"].end
                    self.write_hike(m)
                    stop = m["stop"]
                    self.photo(move.start + rng.uniform(60, 200), m)
                    for f in (0.25, 0.55, 0.85):
                        self.photo(move.start + (move.end - move.start) * f, m)
                    for f in (0.3, 0.7):
                        self.photo(stop.start + (stop.end - stop.start) * f, m, place=stop.place)
                    for f in (0.4, 0.8):
                        self.photo(m["part2"].start + (m["part2"].end - m["part2"].start) * f, m)
                    self.noise_screenshot(stop.start + (stop.end - stop.start) * 0.5)
                    m["visit"] = stop
            elif m["kind"] == "trip":
                counts = {"dinner1": 2, "sight1": 5, "sight2": 4, "lunch2": 1, "sight3": 6, "dinner2": 2, "sight4": 4}
                videos = {"sight1", "sight3"}
                for s in self.segs:
                    if s.type == "stay" and s.tag == m["id"] and s.place.key in counts:
                        n = counts[s.place.key]
                        for t in sorted(rng.uniform(s.start + 300, s.end - 300) for _ in range(n)):
                            self.photo(t, m, place=s.place)
                        if s.place.key in videos:
                            self.photo(rng.uniform(s.start + 600, s.end - 600), m, place=s.place, video=True)
                        if s.place.key == "sight2":
                            self.noise_truncated(rng.uniform(s.start + 300, s.end - 300), s.place)
                out = m["trains"][0]
                self.photo(out.start + (out.end - out.start) * 0.45, m)
            elif m["kind"] == "timeAtHome":
                a, b = m["core"]
                n = m["photos"]
                times = [a] + sorted(rng.uniform(a + 300, b - 300) for _ in range(n - 2)) + [b]
                for i, t in enumerate(times):
                    self.photo(t, m, place=m["place"], gps=(i % 3 != 1))
                s = self.find_stay(place=m["place"], start=a, end=b)
                m["start"], m["end"] = a, b
                # at most the day it happened: a two-day "weekend at home" is not this afternoon
                day = self.local(a).date()
                m["outer"] = (max(s.start, self.loc(day, 0)), min(s.end, self.loc(day + dt.timedelta(days=1), 0)))
                m["visit"] = s
        # weekly summaries
        for w in range(self.weeks):
            a = self.loc(self.start_date + dt.timedelta(days=7 * w), 0, 0)
            b = self.loc(self.start_date + dt.timedelta(days=7 * w + 7), 0, 0)
            self.moments.append(dict(id="%s-week-%d" % (self.name, w + 1), kind="weekly", words=[], place=None, radius=0,
                                     start=a, end=b, segs=[], items=[], events=[]))
        # stray photos (not a moment, not noise): at a routine place on an ordinary day
        for week, day, key in self.spec["stray"]:
            if week >= self.weeks:
                continue
            date = self.start_date + dt.timedelta(days=7 * week + day)
            a, b = self.loc(date, 0), self.loc(date, 23, 59)
            s = self.find_stay(place=self.places[key], start=a, end=b)
            if s:
                self.photo((s.start + s.end) / 2, None, place=s.place, stray=True)
        # a scanned print, its EXIF date the evening it was scanned
        scan_day = self.start_date + dt.timedelta(days=2 + (7 if self.weeks > 1 else 0))
        self.noise_scan(self.loc(scan_day, 21, 10))

    # ---------------------------------------------------------------- media requests

    def photo(self, t, m, place=None, video=False, gps=True, stray=False):
        lat, lon, _ = self.where(t)
        if place is not None:
            lat, lon = offset(place.lat, place.lon, self.rng.gauss(0, 12), self.rng.gauss(0, 12))
        alt = place.alt if place is not None else 40.0
        self.media.append(dict(t=t, lat=lat, lon=lon, alt=alt, gps=gps, video=video, moment=m["id"] if m else None,
                               role="stray" if stray else "core", burst=None))

    def burst(self, t, m, place):
        for i in range(3):
            lat, lon = offset(place.lat, place.lon, self.rng.gauss(0, 5), self.rng.gauss(0, 5))
            self.media.append(dict(t=t + i * 0.31, lat=lat, lon=lon, alt=place.alt, gps=True, video=False,
                                   moment=m["id"] if i == 0 else None, role="core" if i == 0 else "noise",
                                   burst=i, reason="an extra frame of a burst" if i else None))

    def noise_whatsapp(self, t):
        self.noise.append(dict(kind="whatsapp", t=t, reason="a messaging app's image: no camera metadata"))

    def noise_screenshot(self, t):
        self.noise.append(dict(kind="screenshot", t=t, reason="a screenshot"))

    def noise_truncated(self, t, place):
        lat, lon = offset(place.lat, place.lon, self.rng.gauss(0, 10), self.rng.gauss(0, 10))
        self.media.append(dict(t=t, lat=lat, lon=lon, alt=place.alt, gps=True, video=False, moment=None, role="noise",
                               burst=None, truncated=True, reason="a truncated JPEG (an interrupted copy): it does not decode"))

    def noise_scan(self, t):
        self.noise.append(dict(kind="scan", t=t, reason="a scanned print (EXIF date is the scan date)"))

    # ---------------------------------------------------------------- workouts

    def track(self, moves, stop=None, interval=5.0, sigma=3.0, rho=0.9):
        """Dense points (t, lat, lon, ele, hr) over the moves (and a stop between them), with GPS
        error as a slow AR(1) drift (a device's filtered fix), larger and faster at the stop."""
        rng = self.rng
        points, clean = [], []
        en = ee = 0.0
        base_alt = 35.0
        spans = []
        for i, mv in enumerate(moves):
            spans.append(("move", mv))
            if stop is not None and i == 0:
                spans.append(("stop", stop))
        t = moves[0].start
        end = moves[-1].end
        hr_base = 150 if moves[0].mode == "RUNNING" else 118
        while t <= end + 0.01:
            span = None
            for kind, s in spans:
                if s.start <= t <= s.end:
                    span = (kind, s)
                    break
            if span is None:
                span = spans[-1]
            kind, s = span
            if kind == "move":
                lat, lon = s.position(t)
                r, sg = rho, sigma
            else:
                lat, lon = s.place.lat, s.place.lon
                r, sg = 0.75, 4.0
            en = r * en + rng.gauss(0, sg * math.sqrt(1 - r * r))
            ee = r * ee + rng.gauss(0, sg * math.sqrt(1 - r * r))
            jlat, jlon = offset(lat, lon, en, ee)
            ele = base_alt + 12 * math.sin(lat * 900) + 8 * math.cos(lon * 700)
            if moves[0].mode == "HIKING":
                low = moves[0].start_place.alt if moves[0].start_place else 60.0
                high = stop.place.alt if stop is not None else low + 80
                ele = high if kind == "stop" else low + (high - low) * math.sin(math.pi * (t - moves[0].start) / (end - moves[0].start))
            hr = int(hr_base + 10 * math.sin((t - moves[0].start) / 400) + rng.gauss(0, 2)) if kind == "move" else int(92 + rng.gauss(0, 3))
            points.append((t, jlat, jlon, ele, hr))
            clean.append((lat, lon, kind))
            t += interval
        # the true distance: along the moves only
        true = sum(mv.length for mv in moves)
        return points, clean, true

    def recorder(self, t):
        """What recorded a workout at t: "strava" (the Strava/Garmin/komoot lives), "health" (the
        Apple Watch, until the life's watch_until) or "gadgetbridge" (the watch after it)."""
        if self.spec.get("workouts") != "health":
            return "strava"
        return "health" if self.local(t).date() < self.spec["watch_until"] else "gadgetbridge"

    def write_watch_workout(self, m, moves, points, true, activity):
        """A workout recorded by the watch: into the Apple Health export (its route a GPX in
        workout-routes/) or into Gadgetbridge's database (its track a GPX beside it)."""
        start, end = moves[0].start, moves[-1].end
        rng = self.rng
        hr = sum(p[4] for p in points if p[4]) / max(1, sum(1 for p in points if p[4]))
        kcal = true / 1000 * rng.uniform(62, 70)
        if self.recorder(start) == "health":
            local = self.local(start)
            stamp = "%s_%d.%02d%s" % (local.strftime("%Y-%m-%d"), (local.hour + 11) % 12 + 1, local.minute, "am" if local.hour < 12 else "pm")
            route = "workout-routes/route_%s.gpx" % stamp
            self.health_routes.append((route, formats.health_route_gpx("Route %s" % stamp.replace("_", " ").replace(".", ":"),
                                                                       points, self.period[1])))
            self.health_workouts.append(dict(
                activity="HKWorkoutActivityTypeRunning" if activity == "running" else "HKWorkoutActivityTypeHiking",
                start=start, end=end, distance_m=true * rng.uniform(0.996, 1.008), kcal=kcal, hr=hr, source=self.watch_name,
                device=WATCH_DEVICE, route=route, timezone=self.spec["tz"], temperature_f=rng.randint(44, 58),
                sync_id=str(uuid.UUID(int=rng.getrandbits(128), version=4)).upper()))
            return ["exports/apple_health_export.zip"]
        local = self.local(start)
        off = local.strftime("%z")
        track = "gadgetbridge-track-%s%s_%s.gpx" % (local.strftime("%Y-%m-%dT%H_%M_%S"), off[:3], off[3:])
        self.out_text("exports/gadgetbridge/" + track, formats.gpx_gadgetbridge(m["name"], points))
        steps = int((end - start) / 60 * (165 if activity == "running" else 104))
        summary = json.dumps({"distanceMeters": {"value": round(true * rng.uniform(0.99, 1.01), 1), "unit": "meters"},
                              "caloriesBurnt": {"value": int(kcal), "unit": "calories_unit"},
                              "averageHR": {"value": int(hr), "unit": "bpm"}, "steps": {"value": steps, "unit": "steps_unit"}},
                             separators=(",", ":"))
        own = m["name"] if m["name"] in self.spec["run_names"].values() or activity == "hiking" else None
        self.gb_workouts.append((own, int(start * 1000), int(end * 1000), 0x10 if activity == "running" else 0x00400000,
                                 "/storage/emulated/0/Android/data/nodomain.freeyourgadget.gadgetbridge/files/" + track, summary))
        return ["exports/gadgetbridge/Gadgetbridge", "exports/gadgetbridge/" + track]

    def write_run(self, m):
        move = m["move"]
        points, clean, true = self.track([move])
        m["distance_m"] = round(true, 1)
        if self.recorder(move.start) != "strava":
            files = self.write_watch_workout(m, [move], points, true, "running")
            if m.get("tcx"):
                # The same run from Strava too (the watch's workout synced there), named by the person.
                activity_id = 10_000_000_000 + (zlib.crc32(m["id"].encode()) % 1_000_000_000)
                gpx_name = "strava/export_%d/activities/%d.gpx" % (4_100_000 + zlib.crc32(self.name.encode()) % 100_000, activity_id)
                self.out_text(os.path.join("exports", gpx_name), formats.gpx_strava(m["name"], "running", points))
                self.strava_rows.append((activity_id, move.start, m["name"], "Run", move.end - move.start, true, gpx_name.split("/", 2)[2]))
                files.append("exports/" + gpx_name)
            m["files"] = files
            return
        activity_id = 10_000_000_000 + (zlib.crc32(m["id"].encode()) % 1_000_000_000)
        gpx_name = "strava/export_%d/activities/%d.gpx" % (4_100_000 + zlib.crc32(self.name.encode()) % 100_000, activity_id)
        files = [gpx_name]
        self.out_text(os.path.join("exports", gpx_name), formats.gpx_strava(m["name"], "running", points))
        self.strava_rows.append((activity_id, move.start, m["name"], "Run", move.end - move.start, true, gpx_name.split("/", 2)[2]))
        if m.get("tcx"):
            cumulative, walked = [], 0.0
            prev = None
            for lat, lon, _ in clean:
                if prev:
                    walked += haversine(prev[0], prev[1], lat, lon)
                cumulative.append(walked)
                prev = (lat, lon)
            scale = true / walked if walked else 1
            cumulative = [c * scale for c in cumulative]
            tcx_name = "garmin/activity_%d.tcx" % (15_000_000_000 + zlib.crc32(m["id"].encode()) % 1_000_000_000)
            self.out_text(os.path.join("exports", tcx_name),
                          formats.tcx_garmin("Running", points, cumulative, int(true / 1000 * 64), int(true / 1.08)))
            files.append(tcx_name)
        m["files"] = ["exports/" + f for f in files]

    def write_hike(self, m):
        part1, part2, stop = m["move"], m["part2"], m["stop"]
        points, _, true = self.track([part1, part2], stop=stop, interval=5.0)
        m["distance_m"] = round(true, 1)
        if self.recorder(part1.start) != "strava":
            m["files"] = self.write_watch_workout(m, [part1, part2], points, true, "hiking")
            return
        name = "komoot/tour_%d.gpx" % (1_800_000_000 + zlib.crc32(m["id"].encode()) % 100_000_000)
        self.out_text(os.path.join("exports", name), formats.gpx_komoot(m["name"], points))
        m["files"] = ["exports/" + name]

    # ================================================================== output

    def out_path(self, rel):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return path

    def out_text(self, rel, text):
        with open(self.out_path(rel), "w", encoding="utf-8", newline="") as f:
            f.write(text)

    def out_bytes(self, rel, data, mtime=None):
        path = self.out_path(rel)
        with open(path, "wb") as f:
            f.write(data)
        if mtime is not None:
            os.utime(path, (mtime, mtime))

    def colours(self, n):
        return [(self.rng.randrange(256), self.rng.randrange(256), self.rng.randrange(256)) for _ in range(n)]

    def picture(self, r):
        """A still's blocks' colours: random, but a burst's later frames are its first frame's a
        little changed (the same scene a third of a second later, as a real burst's frames are).
        The later frames draw their changes from a generator of their own, after drawing what they
        drew before, so the rest of the life is the same as it was."""
        fresh = self.colours(48)
        if r.get("burst") is None:
            return fresh
        if r["burst"] == 0:
            self.burst_first = fresh
            return fresh
        jitter = random.Random(int(r["t"] * 1000))
        return [tuple(max(0, min(255, c + jitter.randint(-6, 6))) for c in rgb) for rgb in self.burst_first]

    def write(self, root):
        self.root = root
        self.strava_rows = []
        self.health_workouts, self.health_routes, self.gb_workouts = [], [], []
        self.watch_name = "%s\u2019s Apple Watch" % self.spec["person"]["given"]
        self.simulate()
        self.finish_moments()
        self.write_media()
        self.write_repeats()
        self.write_strava_csv()
        if self.spec.get("workouts") == "health":
            self.write_health_and_gadgetbridge()
        if self.spec["location"] == "takeout":
            self.write_records()
            self.write_semantic()
        else:
            self.write_owntracks()
        self.write_listens()
        self.write_daylio()
        self.write_calendar_and_contacts()
        self.write_truth()

    # ---------------------------------------------------------------- photos and videos

    def media_name(self, t, video, index, extra_ms=0):
        style = self.spec["phone"]["style"]
        utc = dt.datetime.fromtimestamp(t, dt.timezone.utc)
        local = self.local(t)
        if style == "pixel":
            return "Camera/PXL_%s%03d.%s" % (utc.strftime("%Y%m%d_%H%M%S"), int((t % 1) * 1000), "mp4" if video else "jpg")
        if style == "iphone":
            return "iCloud Photos/IMG_%04d.%s" % (4100 + index, "MOV" if video else "JPG")
        return "DCIM/Camera/%s.%s" % (local.strftime("%Y%m%d_%H%M%S"), "mp4" if video else "jpg")

    def write_media(self):
        if self.spec.get("photos") == "google-takeout":
            self.write_takeout_media()
            return
        phone = self.spec["phone"]
        self.media.sort(key=lambda r: r["t"])
        used = set()
        for index, r in enumerate(self.media):
            name = self.media_name(r["t"], r["video"], index)
            base, ext = os.path.splitext(name)
            k = 1
            while name in used:  # Samsung's "(1)" for a second photo in the same second
                name = "%s(%d)%s" % (base, k, ext)
                k += 1
            used.add(name)
            r["file"] = "photos/" + name
            local = self.local(r["t"])
            off = local.strftime("%z")
            offset_text = off[:3] + ":" + off[3:]
            utc = dt.datetime.fromtimestamp(r["t"], dt.timezone.utc)
            gps = (r["lat"], r["lon"], r["alt"]) if r["gps"] else None
            if r["video"]:
                frame = formats.jpeg(4, 3, self.colours(12))
                data = formats.mp4(utc, self.rng.uniform(4, 25), frame, 32, 24, location=gps,
                                   quicktime=phone["style"] == "iphone",
                                   make=phone["make"] if phone["style"] == "iphone" else None,
                                   model=phone["model"] if phone["style"] == "iphone" else None)
            else:
                exif = formats.exif_app1(make=phone["make"], model=phone["model"], software=phone["software"],
                                         local=local.replace(tzinfo=None), offset=offset_text,
                                         subsec="%03d" % int((r["t"] % 1) * 1000), gps=gps, utc=utc)
                data = formats.jpeg(8, 6, self.picture(r), exif=exif)
                if r.get("truncated"):
                    scan_start = data.rfind(b"\xFF\xDA")
                    data = data[:scan_start + 14 + (len(data) - scan_start - 14) // 3]
            self.out_bytes(r["file"], data, mtime=r["t"] + 1)
        # noise files that are not camera media
        for n in self.noise:
            local = self.local(n["t"])
            if n["kind"] == "whatsapp":
                date = local.strftime("%Y%m%d")
                name = "WhatsApp Images/IMG-%s-WA%04d.jpg" % (date, 3 + self.rng.randrange(20))
                data = formats.jpeg(8, 6, self.colours(48))
            elif n["kind"] == "screenshot":
                if self.spec["phone"]["style"] == "iphone":
                    name = "iCloud Photos/IMG_%04d.PNG" % (4100 + len(self.media) + 7)
                    data = formats.png(1179, 2556)
                else:
                    name = "Screenshots/Screenshot_%s.png" % local.strftime("%Y%m%d-%H%M%S")
                    data = formats.png(1080, 2400)
            else:
                name = "Scans/scan0001.jpg"
                exif = formats.exif_app1(make="Canon", model="CanoScan LiDE 300", software="VueScan 9.8.30",
                                         local=local.replace(tzinfo=None), exposure=False)
                data = formats.jpeg(8, 6, self.colours(48), exif=exif)
            n["file"] = "photos/" + name
            self.out_bytes(n["file"], data, mtime=n["t"])

    def media_bytes(self, r, exif=True, colours=None):
        """A camera photo's or video's bytes as the phone wrote them (exif=False: a photo whose EXIF
        an edit or a download took away)."""
        phone = self.spec["phone"]
        local = self.local(r["t"])
        off = local.strftime("%z")
        utc = dt.datetime.fromtimestamp(r["t"], dt.timezone.utc)
        gps = (r["lat"], r["lon"], r["alt"]) if r["gps"] else None
        if r["video"]:
            frame = formats.jpeg(4, 3, colours or self.colours(12))
            return formats.mp4(utc, self.rng.uniform(4, 25), frame, 32, 24, location=gps, quicktime=phone["style"] == "iphone",
                               make=phone["make"] if phone["style"] == "iphone" else None,
                               model=phone["model"] if phone["style"] == "iphone" else None)
        app1 = formats.exif_app1(make=phone["make"], model=phone["model"], software=phone["software"],
                                 local=local.replace(tzinfo=None), offset=off[:3] + ":" + off[3:],
                                 subsec="%03d" % int((r["t"] % 1) * 1000), gps=gps, utc=utc) if exif else None
        data = formats.jpeg(8, 6, colours or self.colours(48), exif=app1)
        if r.get("truncated"):
            scan_start = data.rfind(b"\xFF\xDA")
            data = data[:scan_start + 14 + (len(data) - scan_start - 14) // 3]
        return data

    def write_takeout_media(self):
        """The phone's photos as a Google Photos Takeout gives them back (issue 41): each in
        `Takeout/Google Photos/Photos from YYYY/` beside its JSON sidecar (its name cut to 51
        characters, "(k)" for a name taken twice), every file dated the day of the export; a third of
        the photos without EXIF (Google serves edited and downloaded copies so), their time and place
        only in the sidecar; the trip's photos again, byte for byte, in an album folder with its
        metadata.json; a few `-edited` versions beside their originals (no sidecar of their own); and
        a few files again in a second backup, named as a file manager names a copy ("NAME (1).jpg").
        Copies are listed in the truth: one photo however many files hold it."""
        rng = self.rng
        self.media.sort(key=lambda r: r["t"])
        self.copies = []
        exported = int(self.period[1]) + 2 * 86400
        root = "photos/Takeout/Google Photos/"
        used = {}
        contacts = self.spec["contacts"]
        # The faces Google Photos grouped and the person named: the friends at the birthday dinner.
        dinner = self.spec["dinner"]
        dinner_people = [contacts[k]["given"] + " " + contacts[k]["family"] for k in (dinner["friend"], dinner["other"])]

        def put(folder, name, data, r=None, people=(), origin="Camera"):
            """Writes NAME into FOLDER (Takeout's "(k)" when taken) with its sidecar; the path written."""
            base, ext = os.path.splitext(name)
            taken = used.setdefault(folder, set())
            final, k = name, 0
            while final in taken:
                k += 1
                final = "%s(%d)%s" % (base, k, ext)
            taken.add(final)
            self.out_bytes(folder + final, data, mtime=exported)
            t = r["t"] if r else None
            if t is not None:
                place = (r["lat"], r["lon"], r["alt"]) if r.get("gps") else None
                sidecar = formats.takeout_sidecar(name, t, t + rng.uniform(60, 3600), place, place, people=people,
                                                  views=rng.randrange(6), folder=origin,
                                                  url_id="%016x" % rng.getrandbits(64))
                self.out_text(folder + formats.takeout_sidecar_name(name, k or None), sidecar + "\n")
                os.utime(os.path.join(self.root, folder + formats.takeout_sidecar_name(name, k or None)), (exported, exported))
            return folder + final

        trip_id = "%s-trip" % self.name
        album = root + self.spec["trip"]["city"] + "/"
        album_media = [r for r in self.media if r["moment"] == trip_id and r["role"] == "core"]
        if album_media:
            self.out_text(album + "metadata.json", formats.takeout_album_metadata(self.spec["trip"]["city"], album_media[0]["t"]) + "\n")
        for index, r in enumerate(self.media):
            name = os.path.basename(self.media_name(r["t"], r["video"], index))
            r["exif_stripped"] = not r["video"] and not r.get("truncated") and rng.random() < 1 / 3
            colours = self.colours(12) if r["video"] else self.picture(r)
            data = self.media_bytes(r, exif=not r["exif_stripped"], colours=colours)
            year = self.local(r["t"]).year
            people = dinner_people if (r["moment"] or "").endswith("-restaurant") else []
            r["file"] = put(root + "Photos from %d/" % year, name, data, r, people=people)
            r["data"] = data
            if r in album_media:
                copy = put(album, name, data, r, people=people)
                self.copies.append(dict(file=os.path.basename(copy), path=copy, of=os.path.basename(r["file"]), how="album"))
        core = [r for r in self.media if r["moment"] and r["role"] == "core" and not r["video"]]
        for r in rng.sample(core, min(4, len(core))):
            base, ext = os.path.splitext(r["file"])
            edited = self.media_bytes(r, exif=not r["exif_stripped"], colours=self.colours(48))
            path = base + "-edited" + ext
            self.out_bytes(path, edited, mtime=exported)
            self.copies.append(dict(file=os.path.basename(path), path=path, of=os.path.basename(r["file"]), how="edited"))
        for r in rng.sample(core, min(6, len(core))):
            base, ext = os.path.splitext(os.path.basename(r["file"]))
            path = "photos/Backup from the old laptop/Google Photos/%s (1)%s" % (base, ext)
            self.out_bytes(path, r["data"], mtime=r["t"] + 1)
            self.copies.append(dict(file=os.path.basename(path), path=path, of=os.path.basename(r["file"]), how="identical"))
        for r in self.media:
            del r["data"]
        for n in self.noise:
            local = self.local(n["t"])
            if n["kind"] == "whatsapp":
                name, folder = "IMG-%s-WA%04d.jpg" % (local.strftime("%Y%m%d"), 3 + rng.randrange(20)), "WhatsApp Images"
                data = formats.jpeg(8, 6, self.colours(48))
            elif n["kind"] == "screenshot":
                name, folder = "Screenshot_%s.png" % local.strftime("%Y%m%d-%H%M%S"), "Screenshots"
                data = formats.png(1080, 2400)
            else:
                name, folder = "scan0001.jpg", None
                exif = formats.exif_app1(make="Canon", model="CanoScan LiDE 300", software="VueScan 9.8.30",
                                         local=local.replace(tzinfo=None), exposure=False)
                data = formats.jpeg(8, 6, self.colours(48), exif=exif)
            n["file"] = put(root + "Photos from %d/" % local.year, name, data, dict(t=n["t"], gps=False), origin=folder)

    # ---------------------------------------------------------------- Strava's activities.csv

    def write_repeats(self):
        """The planted repeats' files (issue 42): each ride as Strava's GPX, each gym session as
        Garmin's TCX of an indoor activity (heart rate, no positions); the walks home are only in the
        location history. truth.json lists them all under routine_workouts."""
        rng = self.rng
        self.routine_workouts = []
        folder = "strava/export_%d/activities" % (4_100_000 + zlib.crc32(self.name.encode()) % 100_000)
        for what, seg in self.repeats:
            if what == "ride":
                points, _, true = self.track([seg])
                hour = self.local(seg.start).hour
                name = [n for h, n in STRAVA_NAMES if hour >= h][-1] + " Ride"
                aid = 12_000_000_000 + int(seg.start) % 1_000_000_000
                gpx = "%s/%d.gpx" % (folder, aid)
                self.out_text(os.path.join("exports", gpx), formats.gpx_strava(name, "cycling", points))
                self.strava_rows.append((aid, seg.start, name, "Ride", seg.end - seg.start, true, gpx.split("/", 2)[2]))
                start, end, files = seg.start, seg.end, ["exports/" + gpx]
            elif what == "walk":
                start, end, files = seg.start, seg.end, []
            else:
                start, end = seg[0] + rng.uniform(240, 420), seg[1] - rng.uniform(240, 420)
                tcx = "garmin/activity_%d.tcx" % (16_000_000_000 + int(start) % 1_000_000_000)
                beats = [(t, int(112 + 20 * math.sin((t - start) / 300) + rng.gauss(0, 3))) for t in range(int(start), int(end), 10)]
                self.out_text(os.path.join("exports", tcx), formats.tcx_garmin_indoor("Other", beats, int((end - start) / 60 * 6)))
                files = ["exports/" + tcx]
            self.routine_workouts.append(dict(what=what, start=iso(start), end=iso(end), files=files))

    def write_strava_csv(self):
        if not self.strava_rows:
            return
        folder = "exports/strava/export_%d" % (4_100_000 + zlib.crc32(self.name.encode()) % 100_000)
        header = ["Activity ID", "Activity Date", "Activity Name", "Activity Type", "Activity Description", "Elapsed Time",
                  "Distance", "Max Heart Rate", "Relative Effort", "Commute", "Activity Private Note", "Activity Gear",
                  "Filename", "Athlete Weight", "Bike Weight", "Elapsed Time", "Moving Time", "Distance"]
        lines = [",".join(header)]
        for aid, start, name, kind, elapsed, dist, file in sorted(self.strava_rows, key=lambda r: r[1]):
            when = dt.datetime.fromtimestamp(start, dt.timezone.utc)
            date = when.strftime("%b %-d, %Y, %-I:%M:%S %p")
            row = [str(aid), '"%s"' % date, '"%s"' % name.replace('"', '""'), kind, "", str(int(elapsed)),
                   "%.2f" % (dist / 1000), "", "", "false", "", "", file, "", "", "%.1f" % elapsed, "%.1f" % (elapsed - 20),
                   "%.1f" % dist]
            lines.append(",".join(row))
        self.out_text(folder + "/activities.csv", "\n".join(lines) + "\n")

    # ---------------------------------------------------------------- Apple Health and Gadgetbridge

    def write_health_and_gadgetbridge(self):
        """The watch person's two exports: Apple Health's export.zip (workouts with their routes, the
        watch's and the iPhone's step counts, some heart rate) and Gadgetbridge's database (the
        Amazfit's workouts and minute samples) with its tracks."""
        rng = self.rng
        phone = "%s\u2019s iPhone" % self.spec["person"]["given"]
        records, samples = [], []
        rates = {"WALKING": (98, 112), "RUNNING": (158, 172), "HIKING": (95, 108)}
        for s in self.segs:
            if s.type != "move" or s.mode not in rates or not (self.period[0] <= s.start < self.period[1]):
                continue
            rate = rng.uniform(*rates[s.mode]) / 60
            watch = self.recorder(s.start) == "health"
            # The watch: samples of up to five minutes while moving.
            t = s.start
            while t < s.end:
                e = min(s.end, t + rng.uniform(240, 300))
                if watch:
                    records.append(("HKQuantityTypeIdentifierStepCount", "count", self.watch_name, WATCH_DEVICE, t, e, int(rate * (e - t))))
                else:
                    minute = int(t) - int(t) % 60
                    while minute < e:
                        samples.append((minute, int(rate * 60 * rng.uniform(0.9, 1.05)), 1 if s.mode == "WALKING" else 16,
                                        rng.randint(88, 105) if s.mode == "WALKING" else rng.randint(130, 165)))
                        minute += 60
                t = e
            # The iPhone in a pocket, when it was carried (not on a run): ten-minute samples, a little fewer steps.
            if s.mode != "RUNNING":
                t = s.start
                while t < s.end:
                    e = min(s.end, t + 600)
                    records.append(("HKQuantityTypeIdentifierStepCount", "count", phone, "", t, e, int(rate * (e - t) * 0.92)))
                    t = e
        for w in self.health_workouts:
            for k in range(3):
                t = w["start"] + (w["end"] - w["start"]) * (k + 1) / 4
                records.append(("HKQuantityTypeIdentifierHeartRate", "count/min", self.watch_name, WATCH_DEVICE, t, t,
                                int(w["hr"] + rng.gauss(0, 4))))
        xml = formats.health_export_xml(self.zone, self.period[1], records, self.health_workouts)
        members = [("apple_health_export/export.xml", xml.encode("utf-8")),
                   ("apple_health_export/export_cda.xml", b'<?xml version="1.0" encoding="UTF-8"?>\n'
                                                          b'<ClinicalDocument xmlns="urn:hl7-org:v3"></ClinicalDocument>\n')]
        members += [("apple_health_export/" + name, text.encode("utf-8")) for name, text in self.health_routes]
        self.out_bytes("exports/apple_health_export.zip", formats.deterministic_zip(members))
        self.health_records = len(records)
        if self.gb_workouts or samples:
            formats.gadgetbridge_db(self.out_path("exports/gadgetbridge/Gadgetbridge"), "Amazfit Bip U Pro",
                                    self.spec["person"]["given"], self.gb_workouts, sorted(samples))

    # ---------------------------------------------------------------- raw location points

    def samples(self):
        """(t, lat, lon, accuracy, altitude, velocity) raw fixes the phone records along the timeline."""
        rng = self.rng
        out = []
        for s in self.segs:
            if s.type == "stay":
                t = s.start + rng.uniform(20, 120)
                while t < s.end:
                    lat, lon = offset(s.place.lat, s.place.lon, rng.gauss(0, 14), rng.gauss(0, 14))
                    out.append((t, lat, lon, rng.randint(12, 45), s.place.alt, 0))
                    t += rng.uniform(9, 24) * 60
            else:
                if s.mode == "IN_SUBWAY":
                    for f in (0.0, 0.5, 1.0):
                        t = s.start + (s.end - s.start) * f
                        lat, lon = s.position(t)
                        spread = 350 if f == 0.5 else 25
                        lat, lon = offset(lat, lon, rng.gauss(0, spread), rng.gauss(0, spread))
                        out.append((t, lat, lon, 900 if f == 0.5 else rng.randint(15, 40), 35.0, 0))
                    continue
                step = (180, 360) if s.mode == "IN_TRAIN" and s.length > 50000 else (45, 90)
                t = s.start
                speed = s.length / max(1.0, s.end - s.start)
                while t <= s.end:
                    lat, lon = s.position(t)
                    lat, lon = offset(lat, lon, rng.gauss(0, 7), rng.gauss(0, 7))
                    out.append((t, lat, lon, rng.randint(4, 20), 40.0, speed))
                    t += rng.uniform(*step)
        out.sort()
        return [p for p in out if self.period[0] <= p[0] < self.period[1]]

    def write_records(self):
        device = 1_000_000_000 + zlib.crc32(self.name.encode()) % 900_000_000
        parts = []
        for t, lat, lon, acc, alt, vel in self.samples():
            rec = {"latitudeE7": int(round(lat * 1e7)), "longitudeE7": int(round(lon * 1e7)), "accuracy": acc,
                   "altitude": int(alt), "verticalAccuracy": 3 if acc < 20 else 10,
                   "source": "WIFI" if vel == 0 else "GPS", "deviceTag": device, "platformType": "ANDROID",
                   "timestamp": iso_ms(t)}
            if vel:
                rec["velocity"] = int(round(vel))
            parts.append(json.dumps(rec, indent=2, ensure_ascii=False).replace("\n", "\n  "))
        text = '{\n  "locations": [' + ", ".join(parts) + "]\n}\n"
        self.out_text("exports/Takeout/Location History (Timeline)/Records.json", text)

    def write_owntracks(self):
        user = self.spec["person"]["user"]
        by_month = {}
        for t, lat, lon, acc, alt, vel in self.samples():
            stored = t + self.rng.uniform(0.5, 3.5)
            msg = {"_type": "location", "tid": "ks", "lat": round(lat, 6), "lon": round(lon, 6), "tst": int(t), "acc": acc,
                   "alt": int(alt), "batt": self.rng.randint(20, 100), "vel": int(round(vel * 3.6)), "conn": "m" if vel else "w",
                   "t": "u" if vel else "p"}
            line = "%s\t%-18s\t%s" % (dt.datetime.fromtimestamp(int(stored), dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "*",
                                      json.dumps(msg, separators=(",", ":")))
            month = dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%Y-%m")
            by_month.setdefault(month, []).append(line)
        for month, lines in by_month.items():
            self.out_text("exports/owntracks/rec/%s/iphone/%s.rec" % (user, month), "\n".join(lines) + "\n")

    # ---------------------------------------------------------------- Semantic Location History

    def place_id(self, place):
        h = zlib.crc32(("%s/%s" % (self.name, place.key)).encode())
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
        r = random.Random(h)
        return "ChIJ" + "".join(r.choice(alphabet) for _ in range(23))

    def write_semantic(self):
        rng = self.rng
        device = 1_000_000_000 + zlib.crc32(self.name.encode()) % 900_000_000
        fudge = {}

        def g(t):
            if t not in fudge:
                fudge[t] = t + rng.uniform(-75, 75)
            return fudge[t]

        def e7(v):
            return int(round(v * 1e7))

        objects = []
        self.google = []  # what the export says, for the truth: (kind, start, end, seg, type)
        for s in self.segs:
            if s.type == "stay":
                if s.end - s.start < 8 * 60:
                    continue
                p = s.place
                start, end = max(g(s.start), self.period[0]), min(g(s.end), self.period[1] - 1)
                if end <= start:
                    continue
                loc = {"latitudeE7": e7(p.lat), "longitudeE7": e7(p.lon), "placeId": self.place_id(p), "address": p.address}
                if p.kind == "home" and not self.spec["labelled"]:
                    loc["name"] = p.name
                elif p.kind not in ("home",):
                    loc["name"] = p.name
                if self.spec["labelled"] and p.semantic:
                    loc["semanticType"] = "TYPE_" + p.semantic.upper()
                loc["sourceInfo"] = {"deviceTag": device}
                loc["locationConfidence"] = round(rng.uniform(70, 99), 6)
                loc["calibratedProbability"] = round(rng.uniform(60, 95), 6)
                clat, clon = offset(p.lat, p.lon, rng.gauss(0, 10), rng.gauss(0, 10))
                visit = {"location": loc,
                         "duration": {"startTimestamp": iso_ms(start), "endTimestamp": iso_ms(end)},
                         "placeConfidence": "HIGH_CONFIDENCE" if p.routine else "MEDIUM_CONFIDENCE",
                         "centerLatE7": e7(clat), "centerLngE7": e7(clon),
                         "visitConfidence": rng.randint(70, 98), "otherCandidateLocations": [],
                         "editConfirmationStatus": "NOT_CONFIRMED", "locationConfidence": rng.randint(70, 99),
                         "placeVisitType": "SINGLE_PLACE", "placeVisitImportance": "MAIN"}
                objects.append((start, {"placeVisit": visit}))
                self.google.append(("visit", start, end, s))
            else:
                start, end = max(g(s.start), self.period[0]), min(g(s.end), self.period[1] - 1)
                if end <= start:
                    continue
                kind = GOOGLE_TYPE.get(s.mode, s.mode)
                a, b = s.path[0], s.path[-1]
                n = len(s.path)
                waypoints = [{"latE7": e7(p[0]), "lngE7": e7(p[1])} for p in s.path[:: max(1, n // 6)]]
                others = [x for x in ("WALKING", "IN_PASSENGER_VEHICLE", "CYCLING", "IN_BUS", "STILL") if x != kind][:2]
                seg = {"startLocation": {"latitudeE7": e7(a[0]), "longitudeE7": e7(a[1]), "sourceInfo": {"deviceTag": device}},
                       "endLocation": {"latitudeE7": e7(b[0]), "longitudeE7": e7(b[1]), "sourceInfo": {"deviceTag": device}},
                       "duration": {"startTimestamp": iso_ms(start), "endTimestamp": iso_ms(end)},
                       "distance": int(round(s.length)), "activityType": kind, "confidence": "HIGH",
                       "activities": [{"activityType": kind, "probability": round(rng.uniform(80, 97), 6)}]
                       + [{"activityType": o, "probability": round(rng.uniform(0.5, 8), 6)} for o in others],
                       "waypointPath": {"waypoints": waypoints, "source": "INFERRED", "distanceMeters": round(s.length * 0.98, 6),
                                        "travelMode": "WALK" if kind in ("WALKING", "RUNNING") else "DRIVE", "confidence": 0.9}}
                if kind in ("WALKING", "RUNNING") and end - start > 20 * 60:
                    raw = []
                    for f in (0.2, 0.4, 0.6, 0.8):
                        t = s.start + (s.end - s.start) * f
                        lat, lon = s.position(t)
                        raw.append({"latE7": e7(lat), "lngE7": e7(lon), "accuracyMeters": rng.randint(5, 15), "timestamp": iso_ms(t)})
                    seg["simplifiedRawPath"] = {"points": raw}
                objects.append((start, {"activitySegment": seg}))
                self.google.append(("segment", start, end, s, kind))
        months = {}
        for start, obj in sorted(objects, key=lambda o: o[0]):
            local = self.local(start)
            months.setdefault((local.year, local.month), []).append(obj)
        for (year, month), objs in months.items():
            name = dt.date(year, month, 1).strftime("%B").upper()
            text = json.dumps({"timelineObjects": objs}, indent=2, ensure_ascii=False)
            self.out_text("exports/Takeout/Location History (Timeline)/Semantic Location History/%d/%d_%s.json" % (year, year, name), text)

    # ---------------------------------------------------------------- ListenBrainz

    def write_listens(self):
        rng = self.rng
        listens = []

        def play(a, b, every=(200, 300)):
            t = a + rng.uniform(0, 60)
            while t < b:
                song = CATALOGUE[rng.randrange(len(CATALOGUE))]
                listens.append((t, song))
                t += song[3] / 1000 + rng.uniform(0, 20) if rng.random() < 0.8 else rng.uniform(*every)

        for s in self.segs:
            if s.type == "move" and (s.routine and s.mode in ("IN_SUBWAY", "IN_TRAM", "IN_BUS") or s.mode in ("RUNNING",)
                                     or (s.mode == "IN_TRAIN" and s.length > 50000)):
                play(s.start, s.end)
        for date in self.days:
            a, b = self.loc(date, 20, 10), self.loc(date, 21, 20)
            s = self.find_stay(start=a, end=a)
            if s and s.place.kind == "home" and s.end >= b and rng.random() < 0.7:
                play(a, b)
        for m in self.moments:
            if m["kind"] == "timeAtHome":
                play(m["start"], m["end"])
        listens = [l for l in listens if self.period[0] <= l[0] < self.period[1]]
        listens.sort()
        if self.spec.get("music") == "spotify":
            listens = self.write_spotify(listens)
        user = self.spec["person"]["user"]
        by_month = {}
        for t, (artist, track, album, duration) in listens:
            msid = "%08x-%04x-4%03x-8%03x-%012x" % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(12),
                                                    rng.getrandbits(12), rng.getrandbits(48))
            info = {"duration_ms": duration, "media_player": "Spotify", "music_service": "spotify.com",
                    "submission_client": "ListenBrainz Android", "submission_client_version": "2.14.0"}
            meta = {"track_name": track, "artist_name": artist, "release_name": album, "recording_msid": msid,
                    "additional_info": info}
            listen = {"inserted_at": round(t + rng.uniform(5, 600), 6), "listened_at": float(int(t)), "track_metadata": meta}
            # PostgreSQL jsonb's key order: by length, then bytes
            def ordered(o):
                if isinstance(o, dict):
                    return {k: ordered(o[k]) for k in sorted(o, key=lambda k: (len(k), k))}
                return o
            local = dt.datetime.fromtimestamp(t, dt.timezone.utc)
            by_month.setdefault((local.year, local.month), []).append(json.dumps(ordered(listen), ensure_ascii=False))
        members = [("user.json", json.dumps({"user_id": 40000 + zlib.crc32(user.encode()) % 9999, "username": user}))]
        for (year, month), lines in sorted(by_month.items()):
            members.append(("listens/%d/%d.jsonl" % (year, month), "\n".join(lines) + "\n"))
        members += [("feedback.jsonl", ""), ("pinned_recording.jsonl", "")]
        stamp = int(self.period[1]) + 86400
        self.out_bytes("exports/listenbrainz_%s_%d.zip" % (user, stamp), formats.deterministic_zip(members))
        if self.spec.get("music") != "spotify":
            self.listen_count = len(listens)

    def write_spotify(self, plays):
        """The person's plays as Spotify's Extended Streaming History holds them (issue 41), in the zip
        Spotify mails (`my_spotify_data.zip`): each play ends at `ts`; one in ten skipped after a few
        seconds (not a listen by any rule); one evening in a private session (incognito: pickerd must
        not import it); three commutes with a podcast episode instead of songs. Returns the plays a
        scrobbler sent to ListenBrainz, for the fortnight the person had one connected: full plays,
        not private, the same listens as Spotify's (one item each, not two)."""
        rng = self.rng

        def spotify_id(key):
            """A Spotify id (22 base-62 characters), the same for the same track."""
            r = random.Random(zlib.crc32(key.encode()))
            return "".join(r.choice("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") for _ in range(22))

        shows = [("Lage der Nation", "LdN%d Bundestag, Mieten, Bahn" % n) for n in (401, 402, 403)]
        commutes = [s for s in self.segs if s.type == "move" and s.routine and s.mode in ("IN_SUBWAY", "IN_TRAM", "IN_BUS")
                    and self.period[0] <= s.start and s.end - s.start >= 600]
        podcast_commutes = rng.sample(commutes, min(3, len(commutes)))
        evenings = sorted({self.local(t).date() for t, _ in plays if self.local(t).hour >= 20})
        private = rng.choice(evenings) if evenings else None
        out, scrobbled = [], []
        self.listen_count, self.podcast_count = 0, 0
        for t, song in plays:
            if any(c.start <= t < c.end for c in podcast_commutes):
                continue
            artist, track, album, duration = song
            uri = "spotify:track:" + spotify_id(artist + track)
            incognito = private is not None and self.local(t).date() == private and self.local(t).hour >= 20
            skipped = rng.random() < 0.1
            played = rng.uniform(4000, 25000) if skipped else duration
            out.append((t + played / 1000, formats.spotify_extended_play(
                t + played / 1000, played, track=(artist, track, album, uri), reason_start=rng.choice(["trackdone", "clickrow"]),
                reason_end="fwdbtn" if skipped else "trackdone", skipped=skipped, incognito=incognito,
                shuffle=rng.random() < 0.3)))
            if not skipped and not incognito:
                self.listen_count += 1
                if t < self.period[0] + 14 * 86400:
                    scrobbled.append((t, song))
        for (show, episode), c in zip(shows, sorted(podcast_commutes, key=lambda c: c.start)):
            played = (c.end - c.start - 60) * 1000
            uri = "spotify:episode:" + spotify_id(episode)
            end = c.start + 30 + played / 1000
            out.append((end, formats.spotify_extended_play(end, played, episode=(show, episode, uri), reason_end="endplay")))
            self.podcast_count += 1
        out.sort(key=lambda p: p[0])
        by_year = {}
        for end, play in out:
            by_year.setdefault(dt.datetime.fromtimestamp(end, dt.timezone.utc).year, []).append(play)
        folder = "Spotify Extended Streaming History/"
        members = [(folder + "Streaming_History_Audio_%d.json" % year, formats.spotify_extended_file(year_plays))
                   for year, year_plays in sorted(by_year.items())]
        members.append((folder + "ReadMeFirst_ExtendedStreamingHistory.pdf", formats.minimal_pdf("Read Me First")))
        self.out_bytes("exports/my_spotify_data.zip", formats.deterministic_zip(members))
        return scrobbled

    # ---------------------------------------------------------------- Daylio

    def write_daylio(self):
        rng = self.rng
        by_day = {}
        for m in self.moments:
            if m["kind"] in ("weekly",):
                continue
            day = self.local(m["start"]).date()
            acts = {"outing": "friends | good meal", "workout": "sport", "trip": "travel | friends", "timeAtHome": "cooking | relax"}
            if m["kind"] == "workout" and m.get("activity") == "hiking":
                acts["workout"] = "hiking | nature | friends"
            by_day[day] = ("rad" if rng.random() < 0.6 else "good", acts[m["kind"]])
        rows = []
        for date in self.days:
            mood, acts = by_day.get(date, (rng.choice(["good", "good", "meh", "good", "bad", "meh"]),
                                           "work" if date.weekday() < 5 else "relax"))
            entries = [(self.loc(date, 21, 30) + self.mins(0, 60), mood, acts)]
            if rng.random() < 0.2:
                entries.append((self.loc(date, 13, 0) + self.mins(0, 30), rng.choice(["good", "meh"]), "work" if date.weekday() < 5 else ""))
            for t, md, ac in entries:
                local = self.local(t)
                rows.append((t, [local.strftime("%Y-%m-%d"), local.strftime("%B %-d"), local.strftime("%A"),
                                 local.strftime("%H:%M"), md, '"%s"' % ac, '""', '""']))
        rows.sort(key=lambda r: -r[0])  # newest first, as Daylio writes it
        text = "full_date,date,weekday,time,mood,activities,note_title,note\n" + "\n".join(",".join(r) for _, r in rows) + "\n"
        end = self.days[-1] + dt.timedelta(days=1)
        self.out_text("exports/daylio_export_%s.csv" % end.strftime("%Y_%m_%d"), text)
        self.mood_count = len(rows)

    # ---------------------------------------------------------------- calendar and contacts

    def write_calendar_and_contacts(self):
        spec, pl, rng = self.spec, self.places, self.rng
        person = spec["person"]
        contacts = spec["contacts"]
        events = []

        def local_naive(t, round_to=15):
            d = self.local(t).replace(tzinfo=None, second=0, microsecond=0)
            return d - dt.timedelta(minutes=d.minute % round_to)

        def uid(key):
            return "%s@google.com" % "".join(random.Random(zlib.crc32((self.name + key).encode())).choice("0123456789abcdefghijklmnopqrstuv")
                                            for _ in range(26))

        created = self.period[0] - 20 * 86400
        team_start = self.start_date + dt.timedelta(days=1)
        until = dt.datetime.fromtimestamp(self.period[1], dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        events.append(dict(uid=uid("team"), summary=spec["team_event"][0], location=spec["team_event"][1],
                           start=dt.datetime(team_start.year, team_start.month, team_start.day, 10, 0),
                           end=dt.datetime(team_start.year, team_start.month, team_start.day, 10, 45),
                           rrule="FREQ=WEEKLY;UNTIL=%s;BYDAY=TU" % until, created=created,
                           attendees=[(c["given"] + " " + c["family"], c["email"]) for k, c in contacts.items() if k == "colleague"]))
        bname, bdate = spec["birthday"]
        events.append(dict(uid=uid("birthday"), summary=bname, start=bdate, end=bdate + dt.timedelta(days=1), created=created))
        for m in self.moments:
            e = None
            if m["id"].endswith("-restaurant"):
                d = spec["dinner"]
                e = dict(summary=d["event"], location="%s, %s" % (m["place"].name, m["place"].address),
                         start=local_naive(m["start"] + 600, 30), end=local_naive(m["end"] + 900, 30) ,
                         attendees=[(contacts[k]["given"] + " " + contacts[k]["family"], contacts[k]["email"])
                                    for k in (d["friend"], d["other"])])
                m["contacts"] = [contacts[k]["given"] + " " + contacts[k]["family"] for k in (d["friend"], d["other"])]
            elif m["id"].endswith("-coffee"):
                d = spec["coffee"]
                c = contacts[d["friend"]]
                e = dict(summary=d["event"], location="%s, %s" % (m["place"].name, m["place"].address),
                         start=local_naive(m["start"] + 300), end=local_naive(m["end"] + 300),
                         attendees=[(c["given"] + " " + c["family"], c["email"])])
                m["contacts"] = [c["given"] + " " + c["family"]]
            elif m["id"].endswith("-hike"):
                summary, where = spec["hike"]["event"]
                e = dict(summary=summary, location=where, start=local_naive(m["start"] - 3600, 60),
                         end=local_naive(m["end"] + 5400, 60))
            if e:
                e["uid"] = uid(m["id"])
                e["created"] = m["start"] - rng.uniform(3, 15) * 86400
                events.append(e)
                m["events"].append(dict(uid=e["uid"], summary=e["summary"], location=e.get("location", "")))
            if m["kind"] == "trip":
                for key, train in zip(("event_out", "event_back"), m["trains"]):
                    summary, where = spec["trip"][key]
                    e = dict(uid=uid(m["id"] + key), summary=summary, location=where, start=local_naive(train.start, 1),
                             end=local_naive(train.end, 1), created=m["start"] - 30 * 86400)
                    events.append(e)
                    m["events"].append(dict(uid=e["uid"], summary=summary, location=where))
        self.events = events
        self.out_text("exports/Takeout/Calendar/%s.ics" % person["email"], formats.ics_calendar(spec["tz"], person["email"], events))
        cards = list(contacts.values())
        self.out_text("exports/Takeout/Contacts/My Contacts/My Contacts.vcf", formats.vcards(cards))

    # ---------------------------------------------------------------- truth

    def write_truth(self):
        rng = self.rng
        media_by_moment = {}
        for r in self.media:
            if r["moment"]:
                media_by_moment.setdefault(r["moment"], []).append(r)
        google = getattr(self, "google", [])
        moments = []
        for m in self.moments:
            items = []
            for r in media_by_moment.get(m["id"], []):
                items.append(dict(kind="video" if r["video"] else "photo", file=os.path.basename(r["file"]), path=r["file"],
                                  time=iso(r["t"]), role="core"))
            if m["kind"] == "workout":
                items.append(dict(kind="workout", files=m["files"], start=iso(m["start"]), end=iso(m["end"]),
                                  activity=m["activity"], name=m["name"], distance_m=m["distance_m"], role="core"))
            if m["kind"] == "outing":
                v = m["visit"]
                items.append(dict(kind="location", place=v.place.name, start=iso(v.start), end=iso(v.end),
                                  lat=v.place.lat, lon=v.place.lon, role="core"))
            if m["kind"] == "timeAtHome":
                v = m["visit"]
                items.append(dict(kind="location", place=v.place.name, start=iso(m["outer"][0]), end=iso(m["outer"][1]),
                                  lat=v.place.lat, lon=v.place.lon, role="context"))
            for name in m.get("contacts", []):
                items.append(dict(kind="contact", name=name, role="core"))
            # what the location history says of the moment: context (right, not required)
            for g in google:
                seg = g[3]
                inside = m["start"] - 120 <= g[1] and g[2] <= m["end"] + 120
                if m["kind"] == "weekly" or not inside:
                    continue
                if g[0] == "visit" and (m["kind"] in ("trip", "workout", "timeAtHome")):
                    items.append(dict(kind="location", place=seg.place.name, start=iso(g[1]), end=iso(g[2]),
                                      lat=seg.place.lat, lon=seg.place.lon, role="context"))
                if g[0] == "segment":
                    items.append(dict(kind="segment", activity=g[4], start=iso(g[1]), end=iso(g[2]), role="context"))
            entry = dict(id=m["id"], kind=m["kind"], start=iso(m["start"]), end=iso(m["end"]),
                         words=m["words"], items=items, events=m["events"])
            if m["kind"] == "workout":
                entry["activity"] = m["activity"]
                entry["distance_m"] = m["distance_m"]
                entry["name"] = m["name"]
            if m.get("outer"):
                entry["outer"] = [iso(m["outer"][0]), iso(m["outer"][1])]
            if m["place"] is not None:
                p = m["place"]
                entry["place"] = dict(name=p.name, lat=p.lat, lon=p.lon, radius_m=m["radius"], address=p.address)
            elif m["kind"] == "workout":
                mv = m["move"]
                lat = sum(p[0] for p in mv.path) / len(mv.path)
                lon = sum(p[1] for p in mv.path) / len(mv.path)
                far = max(haversine(lat, lon, p[0], p[1]) for p in mv.path)
                entry["place"] = dict(name=m["words"][0], lat=round(lat, 6), lon=round(lon, 6), radius_m=round(far + 300))
            moments.append(entry)
        # routine places, with when each was the person's
        routine = []
        homes = self.spec["homes"]
        for key, p in self.places.items():
            if not p.routine:
                continue
            valid_from, valid_to = None, None
            for i, (since, hk) in enumerate(homes):
                owner = None
                if key == hk:
                    owner = i
                elif self.spec["shops"].get(hk) == key or self.spec["parks"].get(hk) == key:
                    owner = i
                if owner is not None:
                    valid_from = since
                    valid_to = homes[i + 1][0] if i + 1 < len(homes) else None
            routine.append(dict(name=p.name, kind=p.kind, lat=p.lat, lon=p.lon, radius_m=150, address=p.address,
                                valid_from=iso(self.loc(valid_from, 0)) if valid_from else None,
                                valid_to=iso(self.loc(valid_to, 23, 59)) if valid_to else None))
        segments = []
        for g in google:
            if g[0] == "segment" and g[3].routine:
                s = g[3]
                segments.append(dict(start=iso(g[1]), end=iso(g[2]), activity=g[4],
                                     source=s.start_place.name if s.start_place else "", to=s.end_place.name if s.end_place else ""))
        if not google:
            for s in self.segs:
                if s.type == "move" and s.routine:
                    segments.append(dict(start=iso(s.start), end=iso(s.end), activity=GOOGLE_TYPE.get(s.mode, s.mode),
                                         source=s.start_place.name if s.start_place else "", to=s.end_place.name if s.end_place else ""))
        noise = []
        for r in self.media:
            if r["role"] == "noise":
                noise.append(dict(file=os.path.basename(r["file"]), path=r["file"], time=iso(r["t"]), reason=r["reason"]))
        for n in self.noise:
            noise.append(dict(file=os.path.basename(n["file"]), path=n["file"], time=iso(n["t"]), reason=n["reason"]))
        media = [dict(file=os.path.basename(r["file"]), path=r["file"], time=iso(r["t"]),
                      kind="video" if r["video"] else "photo", moment=r["moment"], role=r["role"],
                      exif=not r.get("exif_stripped", False)) for r in self.media]
        truth = dict(
            life=self.name, seed=self.seed, weeks=self.weeks, timezone=self.spec["tz"], city=self.spec["city"],
            period=dict(start=iso(self.period[0]), end=iso(self.period[1])),
            person=dict(name="%s %s" % (self.spec["person"]["given"], self.spec["person"]["family"])),
            layout=dict(photos="photos", exports="exports"),
            location_source=self.spec["location"], labelled_home_work=self.spec["labelled"],
            moves_house=len(self.spec["homes"]) > 1,
            moments=moments, routine_places=routine, routine_segments=segments, noise=noise, media=media,
            photos_source=self.spec.get("photos", "camera"), music_source=self.spec.get("music", "listenbrainz"),
            copies=getattr(self, "copies", []),
            routine_workouts=getattr(self, "routine_workouts", []),
            counts=dict(media=len(self.media), noise=len(noise), listens=self.listen_count, podcasts=getattr(self, "podcast_count", 0),
                        moods=self.mood_count,
                        events=len(self.events), segments=len(self.segs)),
        )
        self.out_text("truth.json", json.dumps(truth, indent=1, ensure_ascii=False) + "\n")
        return truth


def main(argv=None):
    parser = argparse.ArgumentParser(description="Generate one labelled life in real export formats, with its truth.")
    parser.add_argument("--life", required=True, choices=sorted(LIVES))
    parser.add_argument("--out", required=True, help="an empty or new folder")
    parser.add_argument("--weeks", type=int, default=None, help="weeks of life (default: the life's own, 6)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    spec = LIVES[args.life]()
    weeks = args.weeks or spec["weeks"]
    if weeks < 1:
        parser.error("--weeks must be at least 1")
    if os.path.exists(args.out) and os.listdir(args.out):
        parser.error("%s is not empty" % args.out)
    os.makedirs(args.out, exist_ok=True)
    life = Life(spec, weeks, args.seed)
    life.write(args.out)
    kinds = {}
    for m in life.moments:
        kinds[m["kind"]] = kinds.get(m["kind"], 0) + 1
    noise = sum(1 for r in life.media if r["role"] == "noise") + len(life.noise)
    camera = sum(1 for r in life.media if r["role"] != "noise")
    print("%s: %d weeks from %s (%s), %d planted moments (%s), %d camera photos/videos, %d noise files -> %s"
          % (life.name, weeks, life.start_date, spec["tz"], len(life.moments),
             ", ".join("%d %s" % (n, k) for k, n in sorted(kinds.items())), camera, noise, args.out))


if __name__ == "__main__":
    main()
