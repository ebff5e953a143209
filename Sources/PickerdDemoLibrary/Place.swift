/// A place the made-up lives go to, and how its pictures look.
package struct Place {
    package var name: String
    package var city: String
    package var latitude: Double
    package var longitude: Double
    package var isWork = false
    package var scene: Scene

    /// What the place's pictures show.
    package enum Scene { case park, city, mountain, food, indoor, river }

    package init(name: String, city: String, latitude: Double, longitude: Double, isWork: Bool = false, scene: Scene) {
        self.name = name
        self.city = city
        self.latitude = latitude
        self.longitude = longitude
        self.isWork = isWork
        self.scene = scene
    }
}
