#!/usr/bin/env python3
"""Writes the FIT fixtures WorkoutFileTests reads: a run, a ride (also gzipped) and a hike.

Run once, with fit-tool (PyPI, BSD-3-Clause; https://bitbucket.org/stagescycling/python_fit_tool):

    python3 -m venv /tmp/fitvenv && /tmp/fitvenv/bin/pip install fit-tool==0.9.16
    cd Tests/PickerdImportTests/Fixtures && /tmp/fitvenv/bin/python make_fit_fixtures.py

Every value is deterministic (no clock, no randomness): the tests check the decoded values against
the numbers below (start times, distances, sports, a few positions).
"""
import gzip
import math

from fit_tool.fit_file_builder import FitFileBuilder
from fit_tool.profile.messages.event_message import EventMessage
from fit_tool.profile.messages.file_id_message import FileIdMessage
from fit_tool.profile.messages.lap_message import LapMessage
from fit_tool.profile.messages.record_message import RecordMessage
from fit_tool.profile.messages.session_message import SessionMessage
from fit_tool.profile.messages.sport_message import SportMessage
from fit_tool.profile.messages.activity_message import ActivityMessage
from fit_tool.profile.profile_type import Event, EventType, FileType, Manufacturer, Sport, SubSport


def haversine(a, b):
    r = 6_371_008.8
    la1, lo1, la2, lo2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * r * math.asin(math.sqrt(h))


def write(path, *, sport, sub_sport, name, start_ms, step_s, start, end, count, altitude, heart_rate,
          calories, enhanced_altitude=False, strides=None):
    builder = FitFileBuilder(auto_define=True, min_string_size=16)

    file_id = FileIdMessage()
    file_id.type = FileType.ACTIVITY
    file_id.manufacturer = Manufacturer.DEVELOPMENT.value
    file_id.product = 0
    file_id.time_created = start_ms
    file_id.serial_number = 0x1234_5678
    builder.add(file_id)

    sport_message = SportMessage()
    sport_message.sport = sport
    sport_message.sub_sport = sub_sport
    sport_message.sport_name = name
    builder.add(sport_message)

    event = EventMessage()
    event.event = Event.TIMER
    event.event_type = EventType.START
    event.timestamp = start_ms
    builder.add(event)

    distance = 0.0
    previous = None
    hr_sum = 0
    end_ms = start_ms
    for i in range(count):
        f = i / (count - 1)
        # A gentle curve between the two ends, so the route is not a straight line.
        lat = start[0] + (end[0] - start[0]) * f + 0.0004 * math.sin(math.pi * f)
        lon = start[1] + (end[1] - start[1]) * f
        if previous is not None:
            distance += haversine(previous, (lat, lon))
        previous = (lat, lon)
        record = RecordMessage()
        record.timestamp = start_ms + i * step_s * 1000
        record.position_lat = lat
        record.position_long = lon
        record.distance = distance
        hr = heart_rate(f)
        hr_sum += hr
        record.heart_rate = hr
        if enhanced_altitude:
            record.enhanced_altitude = altitude(f)
        else:
            record.altitude = altitude(f)
        builder.add(record)
        end_ms = record.timestamp

    event = EventMessage()
    event.event = Event.TIMER
    event.event_type = EventType.STOP_ALL
    event.timestamp = end_ms
    builder.add(event)

    elapsed = (end_ms - start_ms) / 1000
    avg_hr = round(hr_sum / count)

    lap = LapMessage()
    lap.timestamp = end_ms
    lap.start_time = start_ms
    lap.total_elapsed_time = elapsed
    lap.total_timer_time = elapsed
    lap.total_distance = distance
    lap.total_calories = calories
    lap.avg_heart_rate = avg_hr
    lap.sport = sport
    builder.add(lap)

    session = SessionMessage()
    session.timestamp = end_ms
    session.start_time = start_ms
    session.total_elapsed_time = elapsed
    session.total_timer_time = elapsed
    session.total_distance = distance
    session.total_calories = calories
    session.avg_heart_rate = avg_hr
    session.sport = sport
    session.sub_sport = sub_sport
    if strides is not None:
        session.total_cycles = strides  # total_strides for a run: 2 steps each
    session.first_lap_index = 0
    session.num_laps = 1
    builder.add(session)

    activity = ActivityMessage()
    activity.timestamp = end_ms
    activity.total_timer_time = elapsed
    activity.num_sessions = 1
    builder.add(activity)

    builder.build().to_file(path)
    print(f"{path}: start {start_ms} end {end_ms} distance {distance:.2f} m avg hr {avg_hr}")


# A morning run north through Riverside Park, New York: 2024-05-04T11:30:00Z, 60 points 10 s apart.
write("run_riverside_park.fit", sport=Sport.RUNNING, sub_sport=SubSport.STREET, name="Run",
      start_ms=1_714_822_200_000, step_s=10, start=(40.8005, -73.9725), end=(40.8120, -73.9640), count=60,
      altitude=lambda f: 12 + 8 * math.sin(math.pi * f), heart_rate=lambda f: 120 + round(40 * f), calories=148,
      strides=826)

# A ride south on the Hudson River Greenway: 2024-05-05T13:00:00Z, 90 points 20 s apart.
write("ride_hudson_greenway.fit", sport=Sport.CYCLING, sub_sport=SubSport.ROAD, name="Bike",
      start_ms=1_714_914_000_000, step_s=20, start=(40.8200, -73.9600), end=(40.7300, -74.0110), count=90,
      altitude=lambda f: 5 + 3 * math.cos(3 * math.pi * f), heart_rate=lambda f: 130 + round(15 * math.sin(math.pi * f)),
      calories=520)

# A hike up Bear Mountain, New York, with real elevation gain: 2024-05-11T14:00:00Z, 80 points 60 s apart.
write("hike_bear_mountain.fit", sport=Sport.HIKING, sub_sport=SubSport.GENERIC, name="Hike",
      start_ms=1_715_436_000_000, step_s=60, start=(41.3030, -73.9990), end=(41.3126, -73.9887), count=80,
      altitude=lambda f: 120 + 270 * f, heart_rate=lambda f: 110 + round(30 * f), calories=610,
      enhanced_altitude=True)

# The ride as a Strava bulk export stores it: gzip, no file name or time in the header (mtime 0).
with open("ride_hudson_greenway.fit", "rb") as src, open("ride_hudson_greenway.fit.gz", "wb") as raw:
    with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out:
        out.write(src.read())
