import Foundation
public import PickerdImport

/// Reads a Google Photos Takeout sidecar (`NAME.supplemental-metadata.json`, the older
/// `NAME.json`): the JSON Google writes beside each photo of a Takeout, holding what Google knows
/// of it. As Takeout writes it:
///
///     { "title": "PXL_20260316_081523123.jpg", "description": "",
///       "imageViews": "3",
///       "creationTime": { "timestamp": "1773740000", "formatted": "17 Mar 2026, 09:33:20 UTC" },
///       "photoTakenTime": { "timestamp": "1773648923", "formatted": "16 Mar 2026, 08:15:23 UTC" },
///       "geoData": { "latitude": 52.52, "longitude": 13.40, "altitude": 34.0,
///                    "latitudeSpan": 0.0, "longitudeSpan": 0.0 },
///       "geoDataExif": { … the same fields … },
///       "people": [ { "name": "Ana" } ],
///       "url": "https://photos.google.com/photo/…",
///       "googlePhotosOrigin": { "mobileUpload": { "deviceType": "ANDROID_PHONE" } } }
///
/// The timestamps are strings of Unix seconds (UTC; Google keeps no offset); a place of 0.0, 0.0
/// is no place. Untrusted bytes: read only in a reader, at most ``maximumBytes``.
public enum TakeoutSidecar {
    /// The most bytes a sidecar may have: Google's are a few hundred bytes (a long description or
    /// many people make a few KiB).
    public static let maximumBytes: Int64 = 1 << 20

    /// What a sidecar says, as a probed record of kind ``ProbedMedia/Kind/sidecar``: the taking time
    /// (`photoTakenTime`) without an offset, the place (`geoData`, else `geoDataExif`), and the
    /// people Google recognised.
    /// - Parameter path: the sidecar (read through ``ReaderFiles``).
    /// - Throws: ``ProbeError`` `.corrupt` when it is larger than ``maximumBytes``, not JSON, not an
    ///   object, or its `photoTakenTime.timestamp` is not a number; `.unreadable` when it cannot be read.
    public static func read(path: String) throws(ProbeError) -> (media: ProbedMedia, people: [String]) {
        let file = try MediaFile(path: path)
        guard file.size <= maximumBytes else {
            throw ProbeError(.corrupt, "Google Photos sidecar: larger than \(maximumBytes >> 20) MiB (Google's are a few hundred bytes)")
        }
        return try parse(try file.read(at: 0, count: Int(file.size)))
    }

    /// What a sidecar's bytes say (``read(path:)``).
    static func parse(_ bytes: [UInt8]) throws(ProbeError) -> (media: ProbedMedia, people: [String]) {
        var parser = JSONPullParser(bytes: bytes)
        let root: JSONValue
        do {
            root = try parser.readValue()
            try parser.finish()
        } catch {
            throw ProbeError(.corrupt, "Google Photos sidecar: not JSON (line \(error.line): \(error.message))")
        }
        guard case .object = root else { throw ProbeError(.corrupt, "Google Photos sidecar: not a JSON object") }
        var media = ProbedMedia(kind: .sidecar, contentType: "application/json")
        // The taking time, else nothing: creationTime is when it reached Google, not a photo's date.
        if let taken = root["photoTakenTime"], taken != .null {
            guard let stamp = taken["timestamp"], let seconds = stamp.int64, abs(seconds) < 1 << 40 else {
                throw ProbeError(.corrupt, "Google Photos sidecar: photoTakenTime.timestamp is not a number of seconds")
            }
            // Google writes 0 for a photo whose time it does not know.
            if seconds != 0 { media.takenAtMs = seconds * 1000 }
        }
        for key in ["geoData", "geoDataExif"] where media.coordinate == nil {
            if let place = root[key], let latitude = place["latitude"]?.double, let longitude = place["longitude"]?.double {
                media.coordinate = ISO6709.validated(latitude: latitude, longitude: longitude)
            }
        }
        var people: [String] = []
        for person in root["people"]?.array ?? [] {
            if let name = person["name"]?.string?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty, !people.contains(name) {
                people.append(name)
            }
        }
        return (media, people)
    }
}
