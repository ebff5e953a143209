import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import Testing

extension WorkoutFileTests {
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

}
