import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import Testing

/// The workout file readers (GPX, TCX, FIT) on real-format files: GPX and TCX written here, FIT
/// files made by fit-tool (Fixtures/, see its README) and FIT files built byte by byte below for the
/// edge cases.
@Suite struct WorkoutFileTests {
    // MARK: Fixtures

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// `ImportError` from a throwing read, or a test failure.
    static func importError(_ body: () throws(ImportError) -> ImportedData) -> ImportError? {
        do {
            _ = try body()
            Issue.record("expected an ImportError")
            return nil
        } catch {
            return error
        }
    }

    // MARK: GPX

    /// A Garmin Connect GPX 1.1 run through Riverside Park, New York, with heart rate in Garmin's
    /// TrackPointExtension and times with an offset.
    static let riversideRunGPX = """
    <?xml version="1.0" encoding="UTF-8"?>
    <gpx creator="Garmin Connect" version="1.1"
      xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/11.xsd"
      xmlns:ns3="http://www.garmin.com/xmlschemas/TrackPointExtension/v1"
      xmlns="http://www.topografix.com/GPX/1/1"
      xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
      <metadata>
        <link href="connect.garmin.com"><text>Garmin Connect</text></link>
        <time>2024-05-04T11:30:00.000Z</time>
      </metadata>
      <trk>
        <name>New York Running &amp; Stretching</name>
        <type>running</type>
        <trkseg>
          <trkpt lat="40.8005000" lon="-73.9725000">
            <ele>12.4</ele>
            <time>2024-05-04T07:30:00-04:00</time>
            <extensions><ns3:TrackPointExtension><ns3:hr>118</ns3:hr><ns3:cad>80</ns3:cad></ns3:TrackPointExtension></extensions>
          </trkpt>
          <trkpt lat="40.8030000" lon="-73.9706000">
            <ele>14.0</ele>
            <time>2024-05-04T11:31:00.000Z</time>
            <extensions><ns3:TrackPointExtension><ns3:hr>142</ns3:hr></ns3:TrackPointExtension></extensions>
          </trkpt>
          <trkpt lat="40.8061000" lon="-73.9684000">
            <ele>17.2</ele>
            <time>2024-05-04T11:32:30.000Z</time>
            <extensions><ns3:TrackPointExtension><ns3:hr>151</ns3:hr></ns3:TrackPointExtension></extensions>
          </trkpt>
          <trkpt lat="40.8090000" lon="-73.9662000">
            <ele>15.8</ele>
            <time>2024-05-04T11:34:00.000Z</time>
            <extensions><ns3:TrackPointExtension><ns3:hr>157</ns3:hr></ns3:TrackPointExtension></extensions>
          </trkpt>
        </trkseg>
      </trk>
    </gpx>
    """

    @Test func gpxRunInRiversidePark() throws {
        let data = try GPXReader.read(Self.bytes(Self.riversideRunGPX), file: "Morning_Run.gpx")
        #expect(data.workouts.count == 1)
        let run = try #require(data.workouts.first)
        #expect(run.activityType == 37)
        #expect(run.format == "gpx")
        #expect(run.name == "New York Running & Stretching")
        #expect(run.startMs == 1_714_822_200_000)  // 07:30 at −04:00 is 11:30Z
        #expect(run.endMs == 1_714_822_440_000)
        #expect(run.route.count == 4)
        #expect(run.route[0].latitude == 40.8005)
        #expect(run.route[0].longitude == -73.9725)
        #expect(run.route[2].elevation == 17.2)
        #expect(run.route[1].heartRate == 142)
        #expect(run.averageHeartRate == 142)  // (118 + 142 + 151 + 157) / 4
        // Three legs of about 317, 379 and 365 m (haversine).
        let distance = try #require(run.distanceMeters)
        #expect(abs(distance - WorkoutFiles.length(of: run.route)) < 1e-9)
        #expect(distance > 1000 && distance < 1100)
    }

    /// A Strava GPX 1.0 ride with a numeric type (1, Ride), and a hike in two segments whose
    /// distance skips the gap between them.
    @Test func gpxStravaRideAndHikeWithSegments() throws {
        let ride = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.0" creator="StravaGPX" xmlns="http://www.topografix.com/GPX/1/0">
         <trk>
          <name>Evening Ride</name>
          <type>1</type>
          <trkseg>
           <trkpt lat="40.8200" lon="-73.9600"><ele>5.0</ele><time>2024-05-05T13:00:00Z</time><speed>6.1</speed></trkpt>
           <trkpt lat="40.8100" lon="-73.9660"><ele>4.0</ele><time>2024-05-05T13:03:20Z</time></trkpt>
           <trkpt lat="40.8000" lon="-73.9720"><ele>3.0</ele><time>2024-05-05T13:06:40Z</time></trkpt>
          </trkseg>
         </trk>
         <trk>
          <name>Hike, Bear Mountain</name>
          <type>hiking</type>
          <trkseg>
           <trkpt lat="41.3030" lon="-73.9990"><ele>120.0</ele><time>2024-05-11T14:00:00Z</time></trkpt>
           <trkpt lat="41.3060" lon="-73.9960"><ele>205.5</ele><time>2024-05-11T14:20:00Z</time></trkpt>
          </trkseg>
          <trkseg>
           <trkpt lat="41.3100" lon="-73.9910"><ele>330.0</ele><time>2024-05-11T14:50:00Z</time></trkpt>
           <trkpt lat="41.3126" lon="-73.9887"><ele>390.0</ele><time>2024-05-11T15:05:00Z</time></trkpt>
          </trkseg>
         </trk>
        </gpx>
        """
        let data = try GPXReader.read(Self.bytes(ride), file: "export_strava.gpx")
        #expect(data.workouts.map(\.activityType) == [13, 24])
        let hike = data.workouts[1]
        #expect(hike.route.count == 4)
        #expect(hike.route.map(\.elevation) == [120, 205.5, 330, 390])
        #expect(hike.startMs == 1_715_436_000_000)
        #expect(hike.endMs == 1_715_439_900_000)
        #expect(hike.averageHeartRate == nil)
        let within = WorkoutFiles.haversine(hike.route[0], hike.route[1]) + WorkoutFiles.haversine(hike.route[2], hike.route[3])
        #expect(abs((hike.distanceMeters ?? 0) - within) < 1e-6)
        #expect(data.workouts[0].name == "Evening Ride")
    }

    @Test func gpxWithoutTimesIsNotAWorkout() {
        let route = """
        <gpx version="1.1" creator="a planner" xmlns="http://www.topografix.com/GPX/1/1">
          <trk><name>Planned loop</name><trkseg>
            <trkpt lat="40.80" lon="-73.97"><ele>10</ele></trkpt>
            <trkpt lat="40.81" lon="-73.96"><ele>12</ele></trkpt>
          </trkseg></trk>
        </gpx>
        """
        let error = Self.importError { () throws(ImportError) in try GPXReader.read(Self.bytes(route), file: "loop.gpx") }
        #expect(error?.file == "loop.gpx")
        #expect(error?.message == "a GPX without times cannot be a workout")
    }

    @Test func gpxMalformedXMLNamesTheLine() {
        let broken = """
        <?xml version="1.0"?>
        <gpx version="1.1">
          <trk><trkseg>
            <trkpt lat="40.80" lon="-73.97"><time>2024-05-04T11:30:00Z</time></trkpt>
            <trkpt lat="40.81" lon="-73.96"><time>2024-05-04T11:31:00Z</trkpt>
          </trkseg></trk>
        </gpx>
        """
        let error = Self.importError { () throws(ImportError) in try GPXReader.read(Self.bytes(broken), file: "broken.gpx") }
        #expect(error?.file == "broken.gpx")
        #expect(error?.location == "line 5")
        #expect(error?.message.contains("</trkpt> does not close <time>") == true)
        #expect(error?.description.hasPrefix("broken.gpx, line 5: malformed XML") == true)

        let unclosed = "<gpx version=\"1.1\">\n<trk>\n<trkseg>\n"
        let end = Self.importError { () throws(ImportError) in try GPXReader.read(Self.bytes(unclosed), file: "cut.gpx") }
        #expect(end?.location == "line 4")
        #expect(end?.message.contains("the file ends inside <trkseg>") == true)
    }

    @Test func gpxCoordinateOutOfRangeNamesThePoint() {
        let gpx = """
        <gpx version="1.1"><trk><trkseg>
          <trkpt lat="40.80" lon="-73.97"><time>2024-05-04T11:30:00Z</time></trkpt>
          <trkpt lat="95.5" lon="-73.96"><time>2024-05-04T11:31:00Z</time></trkpt>
        </trkseg></trk></gpx>
        """
        let error = Self.importError { () throws(ImportError) in try GPXReader.read(Self.bytes(gpx), file: "far.gpx") }
        #expect(error?.location == "line 3")
        #expect(error?.message == "trkpt 2's latitude 95.5 is out of range (−90…90)")

        let longitude = gpx.replacingOccurrences(of: "lat=\"95.5\" lon=\"-73.96\"", with: "lat=\"40.81\" lon=\"-181\"")
        let second = Self.importError { () throws(ImportError) in try GPXReader.read(Self.bytes(longitude), file: "far.gpx") }
        #expect(second?.message == "trkpt 2's longitude -181.0 is out of range (−180…180)")
    }

    @Test func emptyFilesAreErrors() {
        for (name, read) in [("empty.gpx", GPXReader.read), ("empty.tcx", TCXReader.read), ("empty.fit", FITReader.read)] as [(String, ([UInt8], String) throws(ImportError) -> ImportedData)] {
            let error = Self.importError { () throws(ImportError) in try read([], name) }
            #expect(error?.file == name)
            #expect(error?.message == "the file is empty")
        }
        let blank = Self.importError { () throws(ImportError) in try GPXReader.read(Self.bytes("  \n"), file: "blank.gpx") }
        #expect(blank?.message == "the file is empty")
    }

    @Test func gpxOtherFailures() {
        let notGPX = Self.importError { () throws(ImportError) in try GPXReader.read(Self.bytes("<kml></kml>"), file: "a.gpx") }
        #expect(notGPX?.message == "not a GPX file (its root is <kml>)")
        let noTrack = Self.importError { () throws(ImportError) in
            try GPXReader.read(Self.bytes("<gpx><wpt lat=\"1\" lon=\"2\"/></gpx>"), file: "w.gpx")
        }
        #expect(noTrack?.message == "the GPX has no track (trk)")
        let badTime = Self.importError { () throws(ImportError) in
            try GPXReader.read(Self.bytes("<gpx><trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"><time>yesterday</time></trkpt></trkseg></trk></gpx>"), file: "t.gpx")
        }
        #expect(badTime?.location == "line 2")
        #expect(badTime?.message.contains("\"yesterday\" is not an ISO 8601 time") == true)
        let afterRoot = Self.importError { () throws(ImportError) in try GPXReader.read(Self.bytes("<gpx></gpx>\n<gpx/>"), file: "two.gpx") }
        #expect(afterRoot?.location == "line 2")
    }

    // MARK: TCX

    /// A Garmin TCX run in two laps, with the lap totals, trackpoints and Garmin's LX steps.
    static let riversideRunTCX = """
    <?xml version="1.0" encoding="UTF-8"?>
    <TrainingCenterDatabase
      xsi:schemaLocation="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2 http://www.garmin.com/xmlschemas/TrainingCenterDatabasev2.xsd"
      xmlns:ns5="http://www.garmin.com/xmlschemas/ActivityGoals/v1"
      xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2"
      xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
      xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
      <Activities>
        <Activity Sport="Running">
          <Id>2024-05-04T11:30:00.000Z</Id>
          <Lap StartTime="2024-05-04T11:30:00.000Z">
            <TotalTimeSeconds>300.0</TotalTimeSeconds>
            <DistanceMeters>1000.0</DistanceMeters>
            <MaximumSpeed>3.6</MaximumSpeed>
            <Calories>71</Calories>
            <AverageHeartRateBpm><Value>136</Value></AverageHeartRateBpm>
            <MaximumHeartRateBpm><Value>150</Value></MaximumHeartRateBpm>
            <Intensity>Active</Intensity>
            <TriggerMethod>Manual</TriggerMethod>
            <Track>
              <Trackpoint>
                <Time>2024-05-04T11:30:00.000Z</Time>
                <Position><LatitudeDegrees>40.8005</LatitudeDegrees><LongitudeDegrees>-73.9725</LongitudeDegrees></Position>
                <AltitudeMeters>12.0</AltitudeMeters>
                <DistanceMeters>0.0</DistanceMeters>
                <HeartRateBpm><Value>120</Value></HeartRateBpm>
                <Extensions><ns3:TPX><ns3:Speed>3.2</ns3:Speed><ns3:RunCadence>84</ns3:RunCadence></ns3:TPX></Extensions>
              </Trackpoint>
              <Trackpoint>
                <Time>2024-05-04T11:35:00.000Z</Time>
                <Position><LatitudeDegrees>40.8080</LatitudeDegrees><LongitudeDegrees>-73.9670</LongitudeDegrees></Position>
                <AltitudeMeters>19.5</AltitudeMeters>
                <DistanceMeters>1000.0</DistanceMeters>
                <HeartRateBpm><Value>150</Value></HeartRateBpm>
              </Trackpoint>
            </Track>
            <Extensions><ns3:LX><ns3:AvgSpeed>3.33</ns3:AvgSpeed><ns3:Steps>880</ns3:Steps></ns3:LX></Extensions>
          </Lap>
          <Lap StartTime="2024-05-04T11:35:00.000Z">
            <TotalTimeSeconds>290.0</TotalTimeSeconds>
            <DistanceMeters>466.0</DistanceMeters>
            <Calories>77</Calories>
            <AverageHeartRateBpm><Value>155</Value></AverageHeartRateBpm>
            <Intensity>Active</Intensity>
            <TriggerMethod>Manual</TriggerMethod>
            <Track>
              <Trackpoint>
                <Time>2024-05-04T11:39:50.000Z</Time>
                <Position><LatitudeDegrees>40.8120</LatitudeDegrees><LongitudeDegrees>-73.9640</LongitudeDegrees></Position>
                <AltitudeMeters>12.0</AltitudeMeters>
                <DistanceMeters>1466.0</DistanceMeters>
                <HeartRateBpm><Value>160</Value></HeartRateBpm>
              </Trackpoint>
              <Trackpoint><Time>2024-05-04T11:39:51.000Z</Time><HeartRateBpm><Value>158</Value></HeartRateBpm></Trackpoint>
            </Track>
            <Extensions><ns3:LX><ns3:Steps>772</ns3:Steps></ns3:LX></Extensions>
          </Lap>
          <Notes>Riverside Park loop</Notes>
          <Creator xsi:type="Device_t"><Name>Forerunner 265</Name><UnitId>3400000000</UnitId><ProductID>4257</ProductID></Creator>
        </Activity>
      </Activities>
    </TrainingCenterDatabase>
    """

    @Test func tcxRunWithLapsAndTrackpoints() throws {
        let data = try TCXReader.read(Self.bytes(Self.riversideRunTCX), file: "activity_1.tcx")
        let run = try #require(data.workouts.first)
        #expect(data.workouts.count == 1)
        #expect(run.activityType == 37)
        #expect(run.format == "tcx")
        #expect(run.startMs == 1_714_822_200_000)
        #expect(run.endMs == 1_714_822_791_000)  // the last trackpoint, after the laps' 590 s
        #expect(run.distanceMeters == 1466)
        #expect(run.energyKilocalories == 148)
        #expect(abs((run.averageHeartRate ?? 0) - (136.0 * 300 + 155 * 290) / 590) < 1e-9)
        #expect(run.steps == 1652)
        #expect(run.name == "Riverside Park loop")
        #expect(run.route.count == 3)  // the trackpoint without a position is not on the route
        #expect(run.route[1].latitude == 40.808)
        #expect(run.route[1].elevation == 19.5)
        #expect(run.route[2].heartRate == 160)
        #expect(run.route[2].timeMs == 1_714_822_790_000)
    }

    @Test func tcxRideWithoutLapTotals() throws {
        let ride = """
        <?xml version="1.0" encoding="UTF-8"?>
        <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
          <Activities>
            <Activity Sport="Biking">
              <Id>2024-05-05T13:00:00Z</Id>
              <Lap StartTime="2024-05-05T13:00:00Z">
                <Track>
                  <Trackpoint><Time>2024-05-05T13:00:00Z</Time><Position><LatitudeDegrees>40.82</LatitudeDegrees><LongitudeDegrees>-73.96</LongitudeDegrees></Position></Trackpoint>
                  <Trackpoint><Time>2024-05-05T13:10:00Z</Time><Position><LatitudeDegrees>40.78</LatitudeDegrees><LongitudeDegrees>-73.99</LongitudeDegrees></Position></Trackpoint>
                  <Trackpoint><Time>2024-05-05T13:20:00Z</Time><Position><LatitudeDegrees>40.73</LatitudeDegrees><LongitudeDegrees>-74.011</LongitudeDegrees></Position></Trackpoint>
                </Track>
              </Lap>
            </Activity>
            <Activity Sport="Other">
              <Id>2024-05-06T09:00:00Z</Id>
              <Lap StartTime="2024-05-06T09:00:00Z"><TotalTimeSeconds>1800</TotalTimeSeconds><Calories>200</Calories></Lap>
            </Activity>
          </Activities>
        </TrainingCenterDatabase>
        """
        let data = try TCXReader.read(Self.bytes(ride), file: "ride.tcx")
        #expect(data.workouts.map(\.activityType) == [13, 3000])
        let bike = data.workouts[0]
        #expect(bike.endMs - bike.startMs == 1_200_000)
        #expect(abs((bike.distanceMeters ?? 0) - WorkoutFiles.length(of: bike.route)) < 1e-6)
        #expect((bike.distanceMeters ?? 0) > 10_000)
        let other = data.workouts[1]
        #expect(other.endMs - other.startMs == 1_800_000)
        #expect(other.energyKilocalories == 200)
        #expect(other.route.isEmpty && other.distanceMeters == nil)
    }

    @Test func tcxBadInput() {
        let far = Self.riversideRunTCX.replacingOccurrences(of: "<LatitudeDegrees>40.8080</LatitudeDegrees>", with: "<LatitudeDegrees>-91</LatitudeDegrees>")
        let error = Self.importError { () throws(ImportError) in try TCXReader.read(Self.bytes(far), file: "far.tcx") }
        #expect(error?.location == "line 29")  // the second Trackpoint
        #expect(error?.message == "Trackpoint 2's latitude -91.0 is out of range (−90…90)")
        let course = "<TrainingCenterDatabase><Courses><Course><Name>Loop</Name></Course></Courses></TrainingCenterDatabase>"
        let none = Self.importError { () throws(ImportError) in try TCXReader.read(Self.bytes(course), file: "course.tcx") }
        #expect(none?.message == "the TCX has no activity")
        let cut = String(Self.riversideRunTCX.prefix(1200))
        let truncated = Self.importError { () throws(ImportError) in try TCXReader.read(Self.bytes(cut), file: "cut.tcx") }
        #expect(truncated?.message.contains("malformed XML") == true)
    }

    // MARK: FIT fixtures (fit-tool)

    @Test func fitRunMadeByFitTool() throws {
        let data = try FITReader.read(try Self.fixture("run_riverside_park.fit"), file: "run_riverside_park.fit")
        #expect(data.workouts.count == 1)
        let run = try #require(data.workouts.first)
        #expect(run.format == "fit")
        #expect(run.activityType == 37)
        #expect(run.startMs == 1_714_822_200_000)
        #expect(run.endMs == 1_714_822_790_000)
        #expect(run.distanceMeters == 1466.06)
        #expect(run.energyKilocalories == 148)
        #expect(run.averageHeartRate == 140)
        #expect(run.steps == 1652)  // 826 strides
        #expect(run.route.count == 60)
        let first = run.route[0], middle = run.route[30], last = run.route[59]
        #expect(abs(first.latitude - 40.8005) < 1e-6 && abs(first.longitude - -73.9725) < 1e-6)
        #expect(abs(middle.latitude - 40.806747330352664) < 1e-9 && abs(middle.longitude - -73.96817796863616) < 1e-9)
        #expect(abs(last.latitude - 40.812) < 1e-6 && abs(last.longitude - -73.964) < 1e-6)
        #expect(first.timeMs == 1_714_822_200_000 && middle.timeMs == 1_714_822_500_000)
        #expect(first.elevation == 12 && middle.elevation == 20)
        #expect(first.heartRate == 120 && middle.heartRate == 140 && last.heartRate == 160)
        // The generator's distance is the haversine sum of the same points.
        #expect(abs(WorkoutFiles.length(of: run.route) - 1466.06) < 1)
    }

    @Test func fitRideGzippedAndPlain() throws {
        let plain = try FITReader.read(try Self.fixture("ride_hudson_greenway.fit"), file: "ride.fit")
        let gzipped = try FITReader.read(try Self.fixture("ride_hudson_greenway.fit.gz"), file: "ride.fit.gz")
        #expect(plain == gzipped)
        let ride = try #require(plain.workouts.first)
        #expect(ride.activityType == 13)
        #expect(ride.startMs == 1_714_914_000_000)
        #expect(ride.endMs == 1_714_915_780_000)
        #expect(ride.distanceMeters == 10890.14)
        #expect(ride.energyKilocalories == 520)
        #expect(ride.steps == nil)
        #expect(ride.route.count == 90)
        #expect(abs(ride.route[0].latitude - 40.82) < 1e-6 && abs(ride.route[89].longitude - -74.011) < 1e-6)
        #expect(ride.route[0].elevation == 8 && ride.route[89].elevation == 2)
    }

    @Test func fitHikeWithEnhancedAltitude() throws {
        let data = try FITReader.read(try Self.fixture("hike_bear_mountain.fit"), file: "hike.fit")
        let hike = try #require(data.workouts.first)
        #expect(hike.activityType == 24)
        #expect(hike.startMs == 1_715_436_000_000)
        #expect(hike.endMs == 1_715_440_740_000)
        #expect(hike.distanceMeters == 1372.41)
        #expect(hike.averageHeartRate == 125)
        #expect(hike.energyKilocalories == 610)
        #expect(hike.route.count == 80)
        #expect(hike.route.first?.elevation == 120)
        #expect(hike.route.last?.elevation == 390)
        #expect(abs((hike.route.last?.latitude ?? 0) - 41.3126) < 1e-6)
    }

    @Test func fitFixtureCorruptions() throws {
        let run = try Self.fixture("run_riverside_park.fit")
        var flipped = run
        flipped[200] ^= 0x01
        let bad = Self.importError { () throws(ImportError) in try FITReader.read(flipped, file: "run.fit") }
        #expect(bad?.file == "run.fit")
        #expect(bad?.message.hasPrefix("bad CRC") == true)
        #expect(bad?.location == "byte \(run.count - 2)")

        let cut = Array(run.prefix(run.count - 100))
        let truncated = Self.importError { () throws(ImportError) in try FITReader.read(cut, file: "run.fit") }
        #expect(truncated?.location == "byte \(cut.count)")
        #expect(truncated?.message.contains("truncated") == true)

        let notFIT = Self.importError { () throws(ImportError) in try FITReader.read(Self.bytes("<gpx></gpx> and some more text"), file: "x.fit") }
        #expect(notFIT?.message == "not a FIT file (no \".FIT\" header)")
    }

    // MARK: FIT built byte by byte

    /// Writes FIT files field by field: the tests' own encoder, independent of the reader but for
    /// the CRC.
    struct FITBuilder {
        var records: [UInt8] = []

        /// A definition message; `fields` are (number, size, base type), `developer` (number, size, index).
        mutating func define(local: UInt8, global: UInt16, bigEndian: Bool = false, fields: [(UInt8, UInt8, UInt8)],
                             developer: [(UInt8, UInt8, UInt8)] = []) {
            records.append(0x40 | (developer.isEmpty ? 0 : 0x20) | local)
            records += [0, bigEndian ? 1 : 0]
            records += bigEndian ? [UInt8(global >> 8), UInt8(global & 0xFF)] : [UInt8(global & 0xFF), UInt8(global >> 8)]
            records.append(UInt8(fields.count))
            for field in fields { records += [field.0, field.1, field.2] }
            if !developer.isEmpty {
                records.append(UInt8(developer.count))
                for field in developer { records += [field.0, field.1, field.2] }
            }
        }

        /// A data message with a normal header.
        mutating func data(local: UInt8, _ bytes: [UInt8]) { records += [local] + bytes }

        /// A data message with a compressed-timestamp header.
        mutating func compressed(local: UInt8, timeOffset: UInt8, _ bytes: [UInt8]) {
            records += [0x80 | (local << 5) | (timeOffset & 0x1F)] + bytes
        }

        /// The whole file, with a 14-byte header (its CRC set) or a 12-byte one, and the file CRC.
        func file(headerSize: Int = 14) -> [UInt8] {
            var header: [UInt8] = [UInt8(headerSize), 0x20, 0x5C, 0x08]  // protocol 2.0, profile 21.40
            header += le32(UInt32(records.count)) + Array(".FIT".utf8)
            if headerSize == 14 {
                let crc = FITReader.crc16(header)
                header += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
            }
            let body = header + records
            let crc = FITReader.crc16(body)
            return body + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        }
    }

    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
    static func be32(_ value: UInt32) -> [UInt8] { le32(value).reversed() }
    static func be16(_ value: UInt16) -> [UInt8] { le16(value).reversed() }
    static func semicircles(_ degrees: Double) -> Int32 { Int32((degrees * 2_147_483_648.0 / 180).rounded()) }

    /// 2024-05-04T11:30:00Z in FIT seconds.
    static let fitStart: UInt32 = UInt32(1_714_822_200 - 631_065_600)

    /// file_id, then records defined big-endian with a developer field, timestamped in full then with
    /// compressed headers (one rolling over the 5-bit offset), then a little-endian session.
    static func handBuiltRun(headerSize: Int = 14) -> [UInt8] {
        var fit = FITBuilder()
        fit.define(local: 0, global: 0, fields: [(0, 1, 0x00), (4, 4, 0x86)])  // file_id: type, time_created
        fit.data(local: 0, [4] + le32(fitStart))
        // record, big-endian: timestamp, lat, long, heart_rate, distance, enhanced_altitude + a 2-byte developer field.
        fit.define(local: 1, global: 20, bigEndian: true,
                   fields: [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85), (3, 1, 0x02), (5, 4, 0x86), (78, 4, 0x86)],
                   developer: [(0, 2, 0)])
        func record(_ lat: Double, _ lon: Double, hr: UInt8, meters: UInt32, altitude: Double) -> [UInt8] {
            be32(UInt32(bitPattern: semicircles(lat))) + be32(UInt32(bitPattern: semicircles(lon))) + [hr]
                + be32(meters * 100) + be32(UInt32((altitude + 500) * 5)) + [0xAB, 0xCD]
        }
        fit.data(local: 1, be32(fitStart + 30) + record(40.8005, -73.9725, hr: 120, meters: 0, altitude: 12))
        // Compressed: the same fields without the timestamp.
        fit.define(local: 2, global: 20, bigEndian: true,
                   fields: [(0, 4, 0x85), (1, 4, 0x85), (3, 1, 0x02), (5, 4, 0x86), (78, 4, 0x86)], developer: [(0, 2, 0)])
        // fitStart + 30 has low bits (fitStart + 30) & 31; +20 s and then a rollover past 31.
        let t1 = fitStart + 50, t2 = fitStart + 75
        fit.compressed(local: 2, timeOffset: UInt8(t1 & 0x1F), record(40.8030, -73.9706, hr: 142, meters: 300, altitude: 14.2))
        fit.compressed(local: 2, timeOffset: UInt8(t2 & 0x1F), record(40.8061, -73.9684, hr: 151, meters: 680, altitude: 17))
        // session, little-endian: timestamp, start_time, sport, elapsed (ms), distance (cm), calories, avg hr.
        fit.define(local: 3, global: 18,
                   fields: [(253, 4, 0x86), (2, 4, 0x86), (5, 1, 0x00), (7, 4, 0x86), (9, 4, 0x86), (11, 2, 0x84), (16, 1, 0x02)])
        fit.data(local: 3, le32(t2) + le32(fitStart + 30) + [1] + le32(45_000) + le32(68_000) + le16(55) + [138])
        return fit.file(headerSize: headerSize)
    }

    @Test func fitBigEndianDeveloperFieldsAndCompressedTimestamps() throws {
        for headerSize in [14, 12] {
            let data = try FITReader.read(Self.handBuiltRun(headerSize: headerSize), file: "built.fit")
            let run = try #require(data.workouts.first)
            #expect(run.activityType == 37)
            #expect(run.startMs == 1_714_822_230_000)
            #expect(run.endMs == 1_714_822_275_000)
            #expect(run.distanceMeters == 680)
            #expect(run.energyKilocalories == 55)
            #expect(run.averageHeartRate == 138)
            #expect(run.route.map(\.timeMs) == [1_714_822_230_000, 1_714_822_250_000, 1_714_822_275_000])
            #expect(run.route.map(\.heartRate) == [120, 142, 151])
            #expect(run.route.map(\.elevation) == [12, 14.2, 17])
            #expect(abs(run.route[1].latitude - 40.8030) < 1e-6 && abs(run.route[2].longitude - -73.9684) < 1e-6)
        }
    }

    @Test func fitWithoutSessionUsesRecordsAndSport() throws {
        var fit = FITBuilder()
        fit.define(local: 0, global: 12, fields: [(0, 1, 0x00), (1, 1, 0x00)])
        fit.data(local: 0, [17, 0])  // sport: hiking
        fit.define(local: 0, global: 20, fields: [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85), (2, 2, 0x84)])
        fit.data(local: 0, Self.le32(Self.fitStart) + Self.le32(UInt32(bitPattern: Self.semicircles(41.303)))
                 + Self.le32(UInt32(bitPattern: Self.semicircles(-73.999))) + Self.le16(UInt16((120 + 500) * 5)))
        // A record without a position (0x7FFFFFFF is FIT's invalid sint32): timed, but not on the route.
        fit.data(local: 0, Self.le32(Self.fitStart + 60) + Self.le32(0x7FFF_FFFF) + Self.le32(0x7FFF_FFFF) + Self.le16(0xFFFF))
        fit.data(local: 0, Self.le32(Self.fitStart + 600) + Self.le32(UInt32(bitPattern: Self.semicircles(41.3126)))
                 + Self.le32(UInt32(bitPattern: Self.semicircles(-73.9887))) + Self.le16(UInt16((390 + 500) * 5)))
        let hike = try #require(try FITReader.read(fit.file(), file: "hike.fit").workouts.first)
        #expect(hike.activityType == 24)
        #expect(hike.startMs == 1_714_822_200_000)
        #expect(hike.endMs == 1_714_822_800_000)
        #expect(hike.route.count == 2)
        #expect(hike.route.map(\.elevation) == [120, 390])
        #expect(abs((hike.distanceMeters ?? 0) - WorkoutFiles.haversine(hike.route[0], hike.route[1])) < 1e-6)
    }

    @Test func fitBuiltBadInputs() throws {
        let good = Self.handBuiltRun()

        var badCRC = good
        badCRC[badCRC.count - 1] ^= 0xFF
        let crc = Self.importError { () throws(ImportError) in try FITReader.read(badCRC, file: "built.fit") }
        #expect(crc?.file == "built.fit")
        #expect(crc?.message.hasPrefix("bad CRC: the file says 0x") == true)

        var badHeader = good
        badHeader[12] ^= 0x55
        let header = Self.importError { () throws(ImportError) in try FITReader.read(badHeader, file: "built.fit") }
        #expect(header?.message == "bad header CRC")

        let truncated = Array(good.prefix(40))
        let cut = Self.importError { () throws(ImportError) in try FITReader.read(truncated, file: "built.fit") }
        #expect(cut?.location == "byte 40")
        #expect(cut?.message == "the file is truncated: it ends at byte 40, its header promises \(good.count) bytes")

        // A data message whose local type was never defined.
        var undefined = FITBuilder()
        undefined.data(local: 5, [1, 2, 3])
        let noDefinition = Self.importError { () throws(ImportError) in try FITReader.read(undefined.file(), file: "u.fit") }
        #expect(noDefinition?.location == "byte 14")
        #expect(noDefinition?.message == "a data message of local type 5, which no definition message defined")

        // A definition promising more bytes than the data holds (with a valid CRC: a broken writer).
        var short = FITBuilder()
        short.define(local: 0, global: 20, fields: [(253, 4, 0x86), (0, 4, 0x85)])
        short.data(local: 0, [1, 2, 3])
        let runsPast = Self.importError { () throws(ImportError) in try FITReader.read(short.file(), file: "s.fit") }
        #expect(runsPast?.location == "byte \(14 + 1 + 5 + 6)")  // after the definition: header, 5 bytes, 2 fields
        #expect(runsPast?.message.contains("runs past the end of the data") == true)

        // A compressed timestamp with no full timestamp before it.
        var early = FITBuilder()
        early.define(local: 0, global: 20, fields: [(3, 1, 0x02)])
        early.compressed(local: 0, timeOffset: 3, [120])
        let compressed = Self.importError { () throws(ImportError) in try FITReader.read(early.file(), file: "c.fit") }
        #expect(compressed?.message == "a compressed timestamp before any full timestamp")

        // A position out of range (lat 135°, exactly 0x60000000 semicircles) names the record message.
        var far = FITBuilder()
        far.define(local: 0, global: 20, fields: [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85)])
        far.data(local: 0, Self.le32(Self.fitStart) + Self.le32(UInt32(bitPattern: Self.semicircles(40.8))) + Self.le32(UInt32(bitPattern: Self.semicircles(-73.9))))
        far.data(local: 0, Self.le32(Self.fitStart + 1) + Self.le32(UInt32(bitPattern: Self.semicircles(135))) + Self.le32(UInt32(bitPattern: Self.semicircles(-73.9))))
        let range = Self.importError { () throws(ImportError) in try FITReader.read(far.file(), file: "far.fit") }
        #expect(range?.location == "byte \(14 + 15 + 13)")
        #expect(range?.message == "record message 2's latitude 135.0 is out of range (−90…90)")

        // A course (file type 6) is not an activity.
        var course = FITBuilder()
        course.define(local: 0, global: 0, fields: [(0, 1, 0x00)])
        course.data(local: 0, [6])
        let notActivity = Self.importError { () throws(ImportError) in try FITReader.read(course.file(), file: "course.fit") }
        #expect(notActivity?.message == "not an activity: FIT file type 6 (an activity is 4)")

        // Nothing timed.
        var empty = FITBuilder()
        empty.define(local: 0, global: 0, fields: [(0, 1, 0x00)])
        empty.data(local: 0, [4])
        let nothing = Self.importError { () throws(ImportError) in try FITReader.read(empty.file(), file: "e.fit") }
        #expect(nothing?.message == "no session, lap or timed record: nothing here can be a workout")
    }

    @Test func fitChainedFiles() throws {
        let one = Self.handBuiltRun()
        let data = try FITReader.read(one + one, file: "chained.fit")
        #expect(data.workouts.count == 2)
        #expect(data.workouts[0] == data.workouts[1])
    }

    // MARK: gzip

    @Test func gzipBoundsAndCorruption() throws {
        let gzipped = try Self.fixture("ride_hudson_greenway.fit.gz")
        let plain = try Self.fixture("ride_hudson_greenway.fit")
        #expect(try WorkoutFiles.gunzip(gzipped, file: "ride.fit.gz") == plain)
        #expect(try WorkoutFiles.gunzip(gzipped, file: "ride.fit.gz", limit: plain.count) == plain)

        let bomb = Self.importError { () throws(ImportError) in
            _ = try WorkoutFiles.gunzip(gzipped, file: "bomb.fit.gz", limit: plain.count - 1)
            return ImportedData()
        }
        #expect(bomb?.file == "bomb.fit.gz")
        #expect(bomb?.message.contains("refused") == true)

        let cut = Array(gzipped.prefix(gzipped.count / 2))
        let truncated = Self.importError { () throws(ImportError) in try FITReader.read(cut, file: "cut.fit.gz") }
        #expect(truncated?.message == "corrupt or truncated gzip data")
        #expect(truncated?.location != nil)

        var badCRC = gzipped
        badCRC[badCRC.count - 6] ^= 0x01  // the gzip trailer's CRC-32
        let crc = Self.importError { () throws(ImportError) in try FITReader.read(badCRC, file: "crc.fit.gz") }
        #expect(crc?.message == "corrupt or truncated gzip data")
    }

    /// A real bomb: 100 MiB of zeros deflate to about 100 KiB; it is refused at 64 MiB.
    @Test func gzipBombIsRefused() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pkd-bomb-\(getpid()).gz")
        defer { try? FileManager.default.removeItem(at: url) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "head -c 104857600 /dev/zero | gzip -1 > '\(url.path)'"]
        try process.run()
        process.waitUntilExit()
        let bomb = Array(try Data(contentsOf: url))
        #expect(bomb.count < 1_000_000)
        let error = Self.importError { () throws(ImportError) in try FITReader.read(bomb, file: "bomb.fit.gz") }
        #expect(error?.message == "gzip data expanding past 64 MiB was refused (a gzip bomb?)")
    }

    // MARK: Mapping and times

    @Test func activityNames() {
        for name in ["run", "Running", "trail_running", "TRAIL RUNNING", "treadmill-running"] { #expect(HealthKitActivity.rawValue(for: name) == 37) }
        for name in ["ride", "Cycling", "biking", "VirtualRide", "road_biking", "mountain_biking"] { #expect(HealthKitActivity.rawValue(for: name) == 13) }
        for name in ["walk", "Walking"] { #expect(HealthKitActivity.rawValue(for: name) == 52) }
        for name in ["hike", " Hiking "] { #expect(HealthKitActivity.rawValue(for: name) == 24) }
        for name in ["swim", "Swimming", "open_water_swimming"] { #expect(HealthKitActivity.rawValue(for: name) == 46) }
        for name in ["", "yoga", "Other", "runner"] { #expect(HealthKitActivity.rawValue(for: name) == 3000) }
        #expect(HealthKitActivity.rawValue(stravaType: "9") == 37)
        #expect(HealthKitActivity.rawValue(stravaType: "1") == 13)
        #expect(HealthKitActivity.rawValue(stravaType: "running") == nil)
        #expect([1, 2, 11, 17, 5, 0, 255].map { HealthKitActivity.rawValue(fitSport: $0) } == [37, 13, 52, 24, 46, 3000, 3000])
    }

    @Test func isoTimes() {
        #expect(WorkoutFiles.parseISO8601("2024-05-04T11:30:00Z") == 1_714_822_200_000)
        #expect(WorkoutFiles.parseISO8601("2024-05-04T11:30:00.25Z") == 1_714_822_200_250)
        #expect(WorkoutFiles.parseISO8601("2024-05-04T07:30:00-04:00") == 1_714_822_200_000)
        #expect(WorkoutFiles.parseISO8601("2024-05-04T13:30:00+0200") == 1_714_822_200_000)
        #expect(WorkoutFiles.parseISO8601("2024-05-04T11:30:00") == 1_714_822_200_000)
        #expect(WorkoutFiles.parseISO8601("1969-12-31T23:59:59Z") == -1000)
        #expect(WorkoutFiles.parseISO8601("2024-13-04T11:30:00Z") == nil)
        #expect(WorkoutFiles.parseISO8601("2024-05-04") == nil)
        #expect(WorkoutFiles.parseISO8601("2024-05-04T11:30:00Zjunk") == nil)
    }
}
