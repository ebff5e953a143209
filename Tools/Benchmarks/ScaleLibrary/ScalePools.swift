import Foundation
import PickerdChecksum
import PickerdDemoLibrary
import PickerdMoments
import PickerdStore
import PickerdWire

// MARK: - Pre-rendered media

/// The scale library's pictures and clips, drawn once: each photo re-encodes only its PNG with its
/// own EXIF, so every photo is a file of its own with its own date at little cost.
struct ScalePools {
    /// A PNG split around the place of its `eXIf` chunk (after IHDR, before IDAT).
    struct Still {
        var head: [UInt8]
        var tail: [UInt8]
        var width: UInt32
        var height: UInt32

        init(_ raster: Raster) {
            let png = PNG.encode(raster)
            head = Array(png[0..<33])  // signature (8) + IHDR chunk (25)
            tail = Array(png[33...])
            width = UInt32(raster.width)
            height = UInt32(raster.height)
        }

        /// The PNG with `exif` in an `eXIf` chunk: the same bytes `PNG.encode(raster, exif:)` makes.
        func png(exif: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(head.count + tail.count + exif.count + 12)
            out += head
            out += bigEndian(UInt32(exif.count))
            var typed: [UInt8] = [0x65, 0x58, 0x49, 0x66]  // "eXIf"
            typed += exif
            out += typed
            out += bigEndian(CRC32.checksum(typed))
            out += tail
            return out
        }
    }

    /// A finished Y4M clip.
    struct Clip {
        var bytes: [UInt8]
        var width: UInt32
        var height: UInt32
        var durationMs: Int64
    }

    static let scenes: [Place.Scene] = [.park, .city, .mountain, .food, .indoor, .river]
    static let lightHours = [6.5, 12.0, 17.5, 20.5]
    static let variants = 4

    var stills: [[[Still]]] = []   // scene, light, variant
    var live: [[Clip]] = []        // scene, light
    var videos: [[Clip]] = []      // scene, light
    var screens: [Still] = []
    var scans: [Still] = []

    static func scene(_ scene: Place.Scene) -> Int {
        switch scene {
        case .park: 0
        case .city: 1
        case .mountain: 2
        case .food: 3
        case .indoor: 4
        case .river: 5
        }
    }

    /// The light of a local hour, as the demo's painter draws it.
    static func light(_ hour: Double) -> Int {
        switch hour {
        case ..<7.5: 0
        case ..<16: 1
        case ..<18.5: 2
        default: 3
        }
    }

    init(painter: inout Generator) {
        for scene in Self.scenes {
            let place = Place(name: "", city: "", latitude: 0, longitude: 0, scene: scene)
            var stillsByLight: [[Still]] = [], liveByLight: [Clip] = [], videosByLight: [Clip] = []
            for hour in Self.lightHours {
                stillsByLight.append((0..<Self.variants).map { _ in
                    Still(Self.shrink(painter.scene(place, hour: hour, width: 48, height: 36), width: 32, height: 24))
                })
                liveByLight.append(Self.clip(&painter, place, hour: hour, frames: 8, width: 16, height: 12))
                videosByLight.append(Self.clip(&painter, place, hour: hour, frames: 12, width: 24, height: 18))
            }
            stills.append(stillsByLight)
            live.append(liveByLight)
            videos.append(videosByLight)
        }
        // Screenshots: a phone screen in miniature (status bar, a header, rows or bubbles).
        typealias C = Raster.RGB
        for variant in 0..<8 {
            let dark = variant % 3 == 2
            var r = Raster(width: 20, height: 43, fill: dark ? C(24, 24, 28) : C(246, 246, 248))
            r.fillRect(x: 0, y: 0, w: 20, h: 2, dark ? C(10, 10, 12) : C(220, 220, 225))
            let accent = [C(0, 122, 255), C(52, 199, 89), C(255, 149, 0), C(175, 82, 222)][variant % 4]
            r.fillRect(x: 0, y: 2, w: 20, h: 5, accent)
            var y = 9
            while y < 41 {
                let wide = painter.int(6...16)
                let right = variant % 2 == 1 && painter.int(0...1) == 1
                r.fillRect(x: right ? 19 - wide : 1, y: y, w: wide, h: painter.int(2...4),
                           right ? accent : (dark ? C(70, 70, 76) : C(200, 200, 206)))
                y += painter.int(4...7)
            }
            screens.append(Still(r))
        }
        // Scans: old prints, faded to sepia, with a white border.
        for variant in 0..<6 {
            let place = Place(name: "", city: "", latitude: 0, longitude: 0, scene: Self.scenes[variant])
            let source = Self.shrink(painter.scene(place, hour: 12, width: 48, height: 36), width: 32, height: 24)
            var r = Raster(width: 32, height: 24, fill: C(244, 240, 228))
            for y in 1..<23 {
                for x in 1..<31 {
                    let i = (y * 32 + x) * 3
                    let l = 0.3 * Double(source.pixels[i]) + 0.59 * Double(source.pixels[i + 1]) + 0.11 * Double(source.pixels[i + 2])
                    r.set(x, y, C(UInt8(min(255, l * 0.95 + 40)), UInt8(min(255, l * 0.8 + 28)), UInt8(min(255, l * 0.55 + 18))))
                }
            }
            scans.append(Still(r))
        }
    }

    /// A smaller copy, nearest pixel (the painter's hills need 36 rows or more).
    static func shrink(_ raster: Raster, width: Int, height: Int) -> Raster {
        var out = Raster(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let i = ((y * raster.height / height) * raster.width + x * raster.width / width) * 3
                out.set(x, y, Raster.RGB(raster.pixels[i], raster.pixels[i + 1], raster.pixels[i + 2]))
            }
        }
        return out
    }

    static func clip(_ painter: inout Generator, _ place: Place, hour: Double, frames: Int, width: Int, height: Int) -> Clip {
        let saved = painter.random
        var rasters: [Raster] = []
        for frame in 0..<frames {
            painter.random = saved  // the same scene each frame, the sun and plate moving
            rasters.append(shrink(painter.scene(place, hour: hour, width: 48, height: 36, shift: frame), width: width, height: height))
        }
        return Clip(bytes: Y4M.encode(frames: rasters, framesPerSecond: 10), width: UInt32(width), height: UInt32(height),
                    durationMs: Int64(frames) * 100)
    }
}
