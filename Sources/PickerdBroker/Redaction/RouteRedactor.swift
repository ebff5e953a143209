public import PickerdWire

/// Removes workout routes from an asset before it leaves pickerd, when the person did not approve a
/// place: a route is a track of GPS coordinates, location data as much as a photo's EXIF GPS (which
/// ``ExifRedactor`` strips under the same rule), so it never leaves with Significant Locations off.
public enum RouteRedactor {
    /// The asset without location data of its own.
    /// - Parameter asset: an item's asset.
    /// - Returns: a workout with an empty route, a workout group whose workouts all have empty
    ///   routes, or any other asset unchanged.
    public static func strippingRoutes(_ asset: Item.Asset) -> Item.Asset {
        switch asset {
        case .workout(var workout):
            workout.route = []
            return .workout(workout)
        case .workoutGroup(var group):
            for index in group.workouts.indices { group.workouts[index].route = [] }
            return .workoutGroup(group)
        default:
            return asset
        }
    }
}
