#!/usr/bin/env python3
"""Writes the Apple Health and Gadgetbridge fixtures (see README.md here), deterministically.

Apple Health: export.xml as the Health app writes it (a DOCTYPE with an internal subset, records a
line each, workouts with statistics, events, metadata and a route reference), its route GPX, and
the zip around them; a truncated export.xml and a zip whose route file is missing.

Gadgetbridge: databases with the tables Gadgetbridge's GBDaoGenerator declares (greenDAO's DDL):
BASE_ACTIVITY_SUMMARY, MI_BAND_ACTIVITY_SAMPLE, PEBBLE_HEALTH_ACTIVITY_SAMPLE and (a family pickerd
does not read) GARMIN_ACTIVITY_SAMPLE, with a track GPX beside; one of another app's schema, one
with only an unread family's samples, and a text file named Gadgetbridge.db.

Run from this folder: python3 make_health_fixtures.py (standard library only).
"""
import datetime as dt
import math
import os
import sqlite3
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
EDT = dt.timezone(dt.timedelta(hours=-4))


def health_date(t):
    return t.astimezone(EDT).strftime("%Y-%m-%d %H:%M:%S -0400")


def iso(t):
    return t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# Apple's DTD as an export.xml carries it, shared with Tools/bench-moments (one copy of Apple's text).
DOCTYPE = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "Tools", "lib", "apple-health-doctype.xml")).read()

WATCH = "Ana\u2019s Apple Watch"
PHONE = "Ana\u2019s iPhone"
WATCH_DEVICE = "&lt;&lt;HKDevice: 0x2839f4a50&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.4&gt;"

RUN_START = dt.datetime(2024, 5, 4, 7, 5, 0, tzinfo=EDT)  # 11:05 UTC
RUN_END = RUN_START + dt.timedelta(minutes=32, seconds=30)
RUN_POINTS = 66  # one every 30 s along Riverside Park, heading north


def run_points():
    points = []
    for i in range(RUN_POINTS):
        t = RUN_START + dt.timedelta(seconds=1 + 30 * i)
        lat = 40.7800 + i * 0.000700
        lon = -73.9850 + i * 0.000300
        points.append((lat, lon, 10 + (i % 7), t))
    return points


def route_gpx(points, creator="Apple Health Export", name="Route 2024-05-04 7:05am", type_=None):
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<gpx version="1.1" creator="{creator}" xmlns="http://www.topografix.com/GPX/1/1" '
             'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
             'xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">',
             '  <metadata>', '    <time>2024-05-10T23:59:59Z</time>', '  </metadata>',
             '  <trk>', f'    <name>{name}</name>']
    if type_:
        lines.append(f'    <type>{type_}</type>')
    lines.append('    <trkseg>')
    for lat, lon, ele, t in points:
        lines.append(f'      <trkpt lon="{lon:.6f}" lat="{lat:.6f}"><ele>{ele:.1f}</ele><time>{iso(t)}</time>'
                     '<extensions><speed>2.8</speed><course>18.4</course><hAcc>2.2</hAcc><vAcc>1.6</vAcc></extensions></trkpt>')
    lines += ['    </trkseg>', '  </trk>', '</gpx>', '']
    return "\n".join(lines)


def step_record(source, start, end, value, device=""):
    dev = f' device="{device}"' if device else ""
    return (f' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="{source}" sourceVersion="10.4"{dev} unit="count" '
            f'creationDate="{health_date(end)}" startDate="{health_date(start)}" endDate="{health_date(end)}" value="{value}"/>')


def export_xml():
    out = ['<?xml version="1.0" encoding="UTF-8"?>', DOCTYPE.rstrip("\n"), '<HealthData locale="en_US">',
           ' <ExportDate value="2024-05-10 20:00:00 -0400"/>',
           ' <Me HKCharacteristicTypeIdentifierDateOfBirth="" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexNotSet" '
           'HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" '
           'HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>']
    # A walk on Friday 3 May, 08:00-08:40 EDT: the watch counts 8 samples of 5 minutes (500 steps each, 4,000),
    # the phone in a pocket 4 samples of 10 minutes (900 each, 3,600): one walk, the watch's.
    walk = dt.datetime(2024, 5, 3, 8, 0, 0, tzinfo=EDT)
    for i in range(8):
        s = walk + dt.timedelta(minutes=5 * i)
        out.append(step_record(WATCH, s, s + dt.timedelta(minutes=5), 500, WATCH_DEVICE))
    for i in range(4):
        s = walk + dt.timedelta(minutes=10 * i)
        out.append(step_record(PHONE, s, s + dt.timedelta(minutes=10), 900))
    # Idle moments: a few steps now and then, no walk.
    for hour in (10, 13, 16):
        s = dt.datetime(2024, 5, 3, hour, 12, 0, tzinfo=EDT)
        out.append(step_record(PHONE, s, s + dt.timedelta(minutes=3), 42))
    # During the run: the watch counts 160 steps a minute, in 6.5-minute samples (5 x 1,040 = 5,200).
    for i in range(5):
        s = RUN_START + dt.timedelta(seconds=390 * i)
        out.append(step_record(WATCH, s, s + dt.timedelta(seconds=390), 1040, WATCH_DEVICE))
    # Records pickerd reads past.
    for i in range(3):
        s = RUN_START + dt.timedelta(minutes=10 * i)
        out.append(f' <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="{WATCH}" sourceVersion="10.4" device="{WATCH_DEVICE}" '
                   f'unit="count/min" creationDate="{health_date(s)}" startDate="{health_date(s)}" endDate="{health_date(s)}" value="{150 + i}">')
        out.append('  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="2"/>')
        out.append(' </Record>')
    out.append(f' <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="{WATCH}" sourceVersion="10.4" '
               f'creationDate="2024-05-04 06:30:00 -0400" startDate="2024-05-03 23:10:00 -0400" endDate="2024-05-04 06:20:00 -0400" '
               'value="HKCategoryValueSleepAnalysisAsleepCore"/>')
    # The run, newer style: no totals on the element, statistics as children, a route file.
    out.append(f' <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="32.5" durationUnit="min" sourceName="{WATCH}" '
               f'sourceVersion="10.4" device="{WATCH_DEVICE}" creationDate="{health_date(RUN_END)}" startDate="{health_date(RUN_START)}" '
               f'endDate="{health_date(RUN_END)}">')
    out.append('  <MetadataEntry key="HKIndoorWorkout" value="0"/>')
    out.append('  <MetadataEntry key="HKTimeZone" value="America/New_York"/>')
    out.append('  <MetadataEntry key="HKWeatherTemperature" value="61 degF"/>')
    pause = RUN_START + dt.timedelta(minutes=15)
    out.append(f'  <WorkoutEvent type="HKWorkoutEventTypePause" date="{health_date(pause)}"/>')
    out.append(f'  <WorkoutEvent type="HKWorkoutEventTypeResume" date="{health_date(pause + dt.timedelta(seconds=40))}"/>')
    out.append(f'  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="{health_date(RUN_START)}" duration="6.2" durationUnit="min"/>')
    span = f'startDate="{health_date(RUN_START)}" endDate="{health_date(RUN_END)}"'
    out.append(f'  <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" {span} sum="312.5" unit="kcal"/>')
    out.append(f'  <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" {span} sum="5.12" unit="km"/>')
    out.append(f'  <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" {span} average="151.4" minimum="118" maximum="172" unit="count/min"/>')
    out.append(f'  <WorkoutRoute sourceName="{WATCH}" sourceVersion="10.4" creationDate="{health_date(RUN_END)}" {span}>')
    out.append('   <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>')
    out.append('   <MetadataEntry key="HKMetadataKeySyncIdentifier" value="5F0C1B9E-2D44-4E1A-9C61-0F7D2B3A4C55"/>')
    out.append('   <FileReference path="/workout-routes/route_2024-05-04_7.05am.gpx"/>')
    out.append('  </WorkoutRoute>')
    out.append(' </Workout>')
    # A walk, older style: totals on the element, in miles, no route; no step statistic (the samples give none).
    w_start = dt.datetime(2024, 5, 5, 17, 30, 0, tzinfo=EDT)
    w_end = w_start + dt.timedelta(minutes=41)
    out.append(f' <Workout workoutActivityType="HKWorkoutActivityTypeWalking" duration="41" durationUnit="min" totalDistance="2.1" '
               f'totalDistanceUnit="mi" totalEnergyBurned="150" totalEnergyBurnedUnit="kcal" sourceName="{WATCH}" sourceVersion="10.4" '
               f'creationDate="{health_date(w_end)}" startDate="{health_date(w_start)}" endDate="{health_date(w_end)}">')
    out.append('  <MetadataEntry key="HKIndoorWorkout" value="0"/>')
    out.append(' </Workout>')
    # Cycling, energy in kJ, self-closing.
    c_start = dt.datetime(2024, 5, 6, 18, 0, 0, tzinfo=EDT)
    c_end = c_start + dt.timedelta(minutes=50)
    out.append(f' <Workout workoutActivityType="HKWorkoutActivityTypeCycling" duration="50" durationUnit="min" totalDistance="16.4" '
               f'totalDistanceUnit="km" totalEnergyBurned="1673.6" totalEnergyBurnedUnit="kJ" sourceName="{WATCH}" '
               f'creationDate="{health_date(c_end)}" startDate="{health_date(c_start)}" endDate="{health_date(c_end)}"/>')
    # Yoga, indoors.
    y_start = dt.datetime(2024, 5, 7, 19, 0, 0, tzinfo=EDT)
    y_end = y_start + dt.timedelta(minutes=30)
    out.append(f' <Workout workoutActivityType="HKWorkoutActivityTypeYoga" duration="30" durationUnit="min" sourceName="{WATCH}" '
               f'creationDate="{health_date(y_end)}" startDate="{health_date(y_start)}" endDate="{health_date(y_end)}">')
    out.append('  <MetadataEntry key="HKIndoorWorkout" value="1"/>')
    out.append(' </Workout>')
    out.append(' <ActivitySummary dateComponents="2024-05-04" activeEnergyBurned="612.3" activeEnergyBurnedGoal="600" '
               'activeEnergyBurnedUnit="Cal" appleExerciseTime="41" appleExerciseTimeGoal="30" appleStandHours="12" appleStandHoursGoal="12"/>')
    out.append('</HealthData>')
    out.append('')
    return "\n".join(out)


def write(path, text):
    with open(os.path.join(HERE, path), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def zip_folder(zip_name, members):
    info_time = (2024, 5, 10, 20, 0, 0)
    with zipfile.ZipFile(os.path.join(HERE, zip_name), "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in members:
            info = zipfile.ZipInfo(name, date_time=info_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text.encode("utf-8"))


def apple_health():
    xml = export_xml()
    route = route_gpx(run_points())
    os.makedirs(os.path.join(HERE, "apple_health_export/workout-routes"), exist_ok=True)
    write("apple_health_export/export.xml", xml)
    write("apple_health_export/workout-routes/route_2024-05-04_7.05am.gpx", route)
    write("apple_health_export/export_cda.xml",
          '<?xml version="1.0" encoding="UTF-8"?>\n<ClinicalDocument xmlns="urn:hl7-org:v3"></ClinicalDocument>\n')
    zip_folder("apple_health_export.zip", [("apple_health_export/export.xml", xml),
                                           ("apple_health_export/export_cda.xml", '<?xml version="1.0"?>\n<ClinicalDocument/>\n'),
                                           ("apple_health_export/workout-routes/route_2024-05-04_7.05am.gpx", route)])
    # The route file missing: the run imports without its route, the rest as it is.
    zip_folder("apple_health_missing_route.zip", [("apple_health_export/export.xml", xml)])
    # Cut inside the run's <WorkoutStatistics>: nothing of it imports, and the error names the line.
    cut = xml.index('sum="5.12"')
    write("apple_health_truncated.xml", xml[:cut])
    # A Strava GPX of the same run, started on the same minute (its own name, Strava's numeric type).
    strava = [(lat + 0.00001, lon, ele, t + dt.timedelta(seconds=9)) for lat, lon, ele, t in run_points()]
    write("strava_same_run.gpx", route_gpx(strava, creator="StravaGPX", name="Riverside before breakfast", type_="9"))


def state_of_mind_xml():
    """An export.xml with State of Mind samples in the form AppleHealthExport.readStateOfMind reads.

    Apple does not document how the Health app's export writes HKStateOfMind (iOS 18); this is the
    form it gives every other sample (a <Record> named by its type's identifier, HKDataTypeStateOfMind,
    dates in the export's form) with attributes named after HKStateOfMind's properties (kind, valence,
    labels, associations), and a <StateOfMind> element with the same attributes. Then malformed ones."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>', DOCTYPE.rstrip("\n"), '<HealthData locale="en_US">',
           ' <ExportDate value="2024-10-10 20:00:00 -0400"/>']
    def som(start, attrs, element="Record", children=()):
        head = f' <{element}' + (' type="HKDataTypeStateOfMind"' if element == "Record" else "")
        head += ' sourceName="Health" sourceVersion="18.0"'
        if start is not None:
            head += f' startDate="{health_date(start)}" endDate="{health_date(start)}"'
        head += "".join(f' {k}="{v}"' for k, v in attrs)
        if not children:
            return [head + "/>"]
        return [head + ">"] + [f"  {c}" for c in children] + [f" </{element}>"]
    d1 = dt.datetime(2024, 10, 2, 21, 10, 0, tzinfo=EDT)
    # A daily mood, HealthKit's names with their prefixes, metadata inside.
    out += som(d1, [("kind", "HKStateOfMindKindDailyMood"), ("valence", "0.62"),
                    ("labels", "HKStateOfMindLabelHappy,HKStateOfMindLabelGrateful,HKStateOfMindLabelSomethingNew"),
                    ("associations", "HKStateOfMindAssociationFamily,HKStateOfMindAssociationFitness")],
               children=['<MetadataEntry key="HKMetadataKeySyncVersion" value="1"/>'])
    # A momentary emotion as a <StateOfMind> element, short names, | separated.
    d2 = dt.datetime(2024, 10, 3, 9, 40, 0, tzinfo=EDT)
    out += som(d2, [("kind", "momentaryEmotion"), ("valence", "-0.4"), ("labels", "stressed | Worried"), ("associations", "work")],
               element="StateOfMind")
    # HealthKit's raw numbers: daily mood (2), happy (17), self care (13); the valence in `value`.
    d3 = dt.datetime(2024, 10, 4, 22, 0, 0, tzinfo=EDT)
    out += som(d3, [("kind", "2"), ("value", "-1"), ("labels", "17"), ("associations", "13")])
    # Malformed, each left out and counted: a valence out of range, none at all, not a number, no date.
    out += som(d3 + dt.timedelta(hours=1), [("kind", "1"), ("valence", "1.7")])
    out += som(d3 + dt.timedelta(hours=2), [("kind", "1")])
    out += som(d3 + dt.timedelta(hours=3), [("valence", "pleasant")])
    out += som(None, [("valence", "0.3")])
    # Another in the same minute as the first: left out (a mood's id is its minute).
    out += som(d1 + dt.timedelta(seconds=20), [("kind", "HKStateOfMindKindMomentaryEmotion"), ("valence", "0.1")])
    # A step count beside them, read as ever.
    out.append(step_record(PHONE, d2, d2 + dt.timedelta(minutes=3), 42))
    out.append('</HealthData>')
    out.append('')
    return "\n".join(out)


def zip64(name, entry, data):
    """A ZIP64 archive written by hand (as an export.zip over 4 GB is): the entry deflated, its sizes and
    offset 0xFFFFFFFF in the central directory with the real ones in its ZIP64 extra field, and the
    ZIP64 end of central directory record and locator before the classic one (whose fields say 0xFFFF...)."""
    import struct
    import zlib
    raw = data.encode("utf-8")
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    deflated = c.compress(raw) + c.flush()
    crc = zlib.crc32(raw) & 0xFFFFFFFF
    fname = entry.encode("utf-8")
    local_extra = struct.pack("<HHQQ", 1, 16, len(raw), len(deflated))
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 8, 0, 0x21, crc, 0xFFFFFFFF, 0xFFFFFFFF, len(fname), len(local_extra))
    body = local + fname + local_extra + deflated
    central_extra = struct.pack("<HHQQQ", 1, 24, len(raw), len(deflated), 0)
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 8, 0, 0x21, crc, 0xFFFFFFFF, 0xFFFFFFFF,
                          len(fname), len(central_extra), 0, 0, 0, 0, 0xFFFFFFFF) + fname + central_extra
    cd_offset = len(body)
    eocd64_offset = cd_offset + len(central)
    eocd64 = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, 1, 1, len(central), cd_offset)
    locator = struct.pack("<IIQI", 0x07064B50, 0, eocd64_offset, 1)
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(body + central + eocd64 + locator + eocd)


def apple_health_state_of_mind():
    xml = state_of_mind_xml()
    write("apple_health_state_of_mind.xml", xml)
    zip64("apple_health_zip64.zip", "apple_health_export/export.xml", xml)


GB_DDL = [
    'CREATE TABLE "DEVICE" ("_id" INTEGER PRIMARY KEY AUTOINCREMENT ,"NAME" TEXT NOT NULL ,"MANUFACTURER" TEXT NOT NULL ,'
    '"IDENTIFIER" TEXT NOT NULL UNIQUE ,"TYPE" INTEGER NOT NULL ,"MODEL" TEXT,"ALIAS" TEXT)',
    'CREATE TABLE "USER" ("_id" INTEGER PRIMARY KEY AUTOINCREMENT ,"NAME" TEXT NOT NULL ,"BIRTHDAY" INTEGER NOT NULL ,"GENDER" INTEGER NOT NULL )',
    'CREATE TABLE "BASE_ACTIVITY_SUMMARY" ("_id" INTEGER PRIMARY KEY AUTOINCREMENT ,"NAME" TEXT,"START_TIME" INTEGER NOT NULL ,'
    '"END_TIME" INTEGER NOT NULL ,"ACTIVITY_KIND" INTEGER NOT NULL ,"BASE_LONGITUDE" INTEGER,"BASE_LATITUDE" INTEGER,'
    '"BASE_ALTITUDE" INTEGER,"GPX_TRACK" TEXT,"RAW_DETAILS_PATH" TEXT,"DEVICE_ID" INTEGER NOT NULL ,"USER_ID" INTEGER NOT NULL ,'
    '"SUMMARY_DATA" TEXT,"RAW_SUMMARY_DATA" BLOB)',
    'CREATE TABLE "MI_BAND_ACTIVITY_SAMPLE" ("TIMESTAMP" INTEGER NOT NULL ,"DEVICE_ID" INTEGER NOT NULL ,"USER_ID" INTEGER NOT NULL ,'
    '"RAW_INTENSITY" INTEGER NOT NULL ,"STEPS" INTEGER NOT NULL ,"RAW_KIND" INTEGER NOT NULL ,"HEART_RATE" INTEGER NOT NULL ,'
    'PRIMARY KEY ("TIMESTAMP" ,"DEVICE_ID" ) ON CONFLICT REPLACE) WITHOUT ROWID',
    'CREATE TABLE "PEBBLE_HEALTH_ACTIVITY_SAMPLE" ("TIMESTAMP" INTEGER NOT NULL ,"DEVICE_ID" INTEGER NOT NULL ,"USER_ID" INTEGER NOT NULL ,'
    '"RAW_PEBBLE_HEALTH_DATA" BLOB,"RAW_INTENSITY" INTEGER NOT NULL ,"STEPS" INTEGER NOT NULL ,"HEART_RATE" INTEGER NOT NULL ,'
    'PRIMARY KEY ("TIMESTAMP" ,"DEVICE_ID" ) ON CONFLICT REPLACE) WITHOUT ROWID',
]
GARMIN_DDL = ('CREATE TABLE "GARMIN_ACTIVITY_SAMPLE" ("TIMESTAMP" INTEGER NOT NULL ,"DEVICE_ID" INTEGER NOT NULL ,"USER_ID" INTEGER NOT NULL ,'
              '"RAW_INTENSITY" INTEGER NOT NULL ,"STEPS" INTEGER NOT NULL ,"RAW_KIND" INTEGER NOT NULL ,"HEART_RATE" INTEGER NOT NULL ,'
              '"DISTANCE_CM" INTEGER,"ACTIVE_CALORIES" INTEGER,PRIMARY KEY ("TIMESTAMP" ,"DEVICE_ID" ) ON CONFLICT REPLACE) WITHOUT ROWID')

UTC = dt.timezone.utc
GB_RUN = dt.datetime(2024, 5, 6, 6, 30, 0, tzinfo=UTC)
GB_TRACK = "gadgetbridge-track-2024-05-06T06_30_00+00_00.gpx"


def ms(t):
    return int(t.timestamp() * 1000)


def gadgetbridge():
    folder = os.path.join(HERE, "gadgetbridge")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "Gadgetbridge")
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    for ddl in GB_DDL + [GARMIN_DDL]:
        db.execute(ddl)
    db.execute('INSERT INTO DEVICE VALUES (1, "Amazfit Bip", "Huami", "C8:0F:10:11:12:13", 11, "", NULL)')
    db.execute('INSERT INTO DEVICE VALUES (2, "Pebble Time", "Pebble", "B0:B4:48:01:02:03", 13, "", NULL)')
    db.execute('INSERT INTO DEVICE VALUES (3, "Forerunner 255", "Garmin", "F0:01:02:03:04:05", 300, "", NULL)')
    db.execute('INSERT INTO USER VALUES (1, "Ana", 631152000000, 0)')
    summary = '{"distanceMeters":{"value":5012.0,"unit":"meters"},"caloriesBurnt":{"value":320,"unit":"calories_unit"},' \
              '"averageHR":{"value":148,"unit":"bpm"},"steps":{"value":4950,"unit":"steps_unit"}}'
    track_on_phone = "/storage/emulated/0/Android/data/nodomain.freeyourgadget.gadgetbridge/files/" + GB_TRACK
    rows = [
        (1, "Morning run by the canal", ms(GB_RUN), ms(GB_RUN + dt.timedelta(minutes=30)), 0x10, track_on_phone, summary),
        (2, None, ms(dt.datetime(2024, 5, 8, 9, 0, tzinfo=UTC)), ms(dt.datetime(2024, 5, 8, 11, 30, tzinfo=UTC)), 0x00400000,
         "/storage/emulated/0/Android/data/nodomain.freeyourgadget.gadgetbridge/files/gadgetbridge-track-2024-05-08T09_00_00+00_00.gpx", None),
        (3, None, ms(dt.datetime(2024, 5, 9, 17, 0, tzinfo=UTC)), ms(dt.datetime(2024, 5, 9, 17, 45, tzinfo=UTC)), 0x80, None,
         '{"distanceMeters":14100.5,"caloriesBurnt":410}'),
        (4, None, ms(dt.datetime(2024, 5, 9, 20, 0, tzinfo=UTC)), ms(dt.datetime(2024, 5, 9, 20, 20, tzinfo=UTC)), 0x04000045, None, None),
    ]
    for id_, name, start, end, kind, track, data in rows:
        db.execute('INSERT INTO BASE_ACTIVITY_SUMMARY (_id, NAME, START_TIME, END_TIME, ACTIVITY_KIND, GPX_TRACK, DEVICE_ID, USER_ID, SUMMARY_DATA) '
                   'VALUES (?, ?, ?, ?, ?, ?, 1, 1, ?)', (id_, name, start, end, kind, track, data))
    # The Bip's minutes: a walk on 7 May, 12:00-12:30 UTC at 100 steps a minute (3,000), a few idle minutes,
    # and the run's minutes at 165 a minute (inside the workout: no separate walk).
    walk = int(dt.datetime(2024, 5, 7, 12, 0, tzinfo=UTC).timestamp())
    for i in range(30):
        db.execute('INSERT INTO MI_BAND_ACTIVITY_SAMPLE VALUES (?, 1, 1, 60, ?, 1, 90)', (walk + 60 * i, 100))
    for i in range(5):
        db.execute('INSERT INTO MI_BAND_ACTIVITY_SAMPLE VALUES (?, 1, 1, 10, ?, 1, 70)', (walk + 7200 + 600 * i, 4))
    for i in range(30):
        db.execute('INSERT INTO MI_BAND_ACTIVITY_SAMPLE VALUES (?, 1, 1, 120, ?, 1, 150)', (int(GB_RUN.timestamp()) + 60 * i, 165))
    # Samples with no steps (sleep, not worn), as the table holds them too.
    for i in range(10):
        db.execute('INSERT INTO MI_BAND_ACTIVITY_SAMPLE VALUES (?, 1, 1, 0, 0, 112, 55)', (walk - 36000 + 60 * i,))
    # The Pebble's: a 15-minute walk on 8 May at 120 a minute (1,800).
    pebble = int(dt.datetime(2024, 5, 8, 18, 0, tzinfo=UTC).timestamp())
    for i in range(15):
        db.execute('INSERT INTO PEBBLE_HEALTH_ACTIVITY_SAMPLE VALUES (?, 2, 1, NULL, 50, 120, 0)', (pebble + 60 * i,))
    # A Garmin's, which pickerd does not read: counted as left out.
    for i in range(12):
        db.execute('INSERT INTO GARMIN_ACTIVITY_SAMPLE VALUES (?, 3, 1, 30, 80, 1, 90, 5000, 4)', (pebble + 86400 + 60 * i,))
    db.commit()
    db.close()
    points = [(52.5000 + i * 0.0006, 13.4000 + i * 0.0004, 35.0, GB_RUN + dt.timedelta(seconds=30 * i)) for i in range(60)]
    with open(os.path.join(folder, GB_TRACK), "w", encoding="utf-8", newline="\n") as f:
        f.write(route_gpx(points, creator="Gadgetbridge", name="Morning run by the canal"))

    # Another app's SQLite database.
    other = os.path.join(HERE, "gadgetbridge_unknown_schema.db")
    if os.path.exists(other):
        os.remove(other)
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    db.execute("INSERT INTO notes VALUES (1, 'not a watch')")
    db.commit()
    db.close()
    # Only a family pickerd does not read.
    garmin = os.path.join(HERE, "gadgetbridge_garmin_only.db")
    if os.path.exists(garmin):
        os.remove(garmin)
    db = sqlite3.connect(garmin)
    db.execute(GB_DDL[0])
    db.execute(GARMIN_DDL)
    for i in range(12):
        db.execute('INSERT INTO GARMIN_ACTIVITY_SAMPLE VALUES (?, 3, 1, 30, 80, 1, 90, 5000, 4)', (pebble + 60 * i,))
    db.commit()
    db.close()
    # A text file named like the export.
    os.makedirs(os.path.join(HERE, "gadgetbridge_not_a_database"), exist_ok=True)
    write("gadgetbridge_not_a_database/Gadgetbridge.db", "These are my notes about my watch, not its database.\n")


if __name__ == "__main__":
    apple_health()
    apple_health_state_of_mind()
    gadgetbridge()
    print("run: 2024-05-04 11:05:00Z-11:37:30Z, 5120 m, 312.5 kcal, HR 151.4, 66 route points, 5200 steps")
    print("walk on 2024-05-03 12:00Z-12:40Z: 4000 steps (watch)")
