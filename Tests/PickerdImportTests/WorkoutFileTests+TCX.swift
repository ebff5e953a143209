import Foundation
@testable import PickerdImport
@testable import PickerdReaders
import Testing

extension WorkoutFileTests {
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

}
