/// How a State of Mind sample looks and is classed when its source does not say: HealthKit's seven
/// valence classes from the valence, and light and dark background gradients warmer for pleasant
/// feelings and cooler for unpleasant ones. The demo library, imported moods and donations all use it.
public enum StateOfMindStyle {
    /// HealthKit's valence classification for a valence: −1…1 cut into seven equal bands
    /// (very unpleasant … very pleasant).
    /// - Parameter valence: −1 (very unpleasant) … 1 (very pleasant); clamped.
    /// - Returns: the class.
    public static func classification(valence: Double) -> ValenceClassification {
        let clamped = max(-1, min(1, valence))
        return ValenceClassification(rawValue: Int32(max(1, min(7, ((clamped + 1) / 2 * 7).rounded(.down) + 1))))
    }

    /// The backgrounds a feeling is drawn on.
    /// - Parameter valence: −1 … 1.
    /// - Returns: a gradient for light backgrounds and one for dark backgrounds.
    public static func backgrounds(valence: Double) -> (light: Gradient, dark: Gradient) {
        let v = max(-1, min(1, valence))
        let warm = Color(red: 1, green: 0.55 + v * 0.3, blue: 0.3, alpha: 1)
        let cool = Color(red: 0.3, green: 0.45, blue: 0.8 + v * 0.1, alpha: 1)
        return (Gradient(stops: [GradientStop(color: warm, location: 0), GradientStop(color: cool, location: 1)]),
                Gradient(stops: [GradientStop(color: Color(red: 0.1, green: 0.1, blue: 0.2, alpha: 1), location: 0),
                                 GradientStop(color: cool, location: 1)]))
    }
}
