// The picture hash's cost (issue 42's near-duplicates): pickerd-reader hashes each still while it
// indexes, where that is cheap. Per photo of a real camera's size (12 megapixels, 4032×3024), the
// indexer's probe with the hash (InProcessReading, what pickerd-reader runs) against the same probe
// without it (MediaProbe, the baseline), in this process, on: a camera JPEG with the thumbnail its
// EXIF holds, the same JPEG without it (a Takeout download or an editor's export: not hashed by the
// probe), and a phone's HEIC with its thumbnail; and the whole picture's hash, which the indexer
// asks for only for a photo taken seconds from another.

import BenchSupport
import Foundation
import PickerdImport
import PickerdReaders

func pictureHashBench(work: String) {
    let root = work + "/picture-hash"
    try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    func run(_ program: String, _ args: [String]) {
        let done = runProgram("/usr/bin/env", [program] + args)
        guard done.status == 0 else { fail("\(program): \(done.err)") }
    }
    let bare = root + "/bare.jpg", camera = root + "/camera.jpg", thumbnail = root + "/thumb.jpg", heic = root + "/phone.heic"
    run("convert", ["-seed", "3", "-size", "4032x3024", "plasma:fractal", "-attenuate", "0.3", "+noise", "Gaussian",
                    "-quality", "90", bare])
    run("convert", [bare, "-resize", "160x120", "-quality", "75", thumbnail])
    run("cp", [bare, camera])
    run("exiftool", ["-q", "-overwrite_original", "-Make=Apple", "-Model=iPhone 12", "-ThumbnailImage<=" + thumbnail, camera])
    run("heif-enc", ["-q", "60", "-t", "320", "-o", heic, bare])

    let reading = InProcessReading(), zone = TimeZone(identifier: "UTC")!
    func perPhoto(_ body: () -> Void) -> Double {
        var samples: [Double] = []
        for _ in 0..<15 {
            let start = now()
            body()
            samples.append(now() - start)
        }
        return percentile(samples, 0.5)
    }
    print("")
    print("the picture hash while indexing (\(buildConfiguration) build; ms per 12-megapixel photo, median of 15; in process)")
    print(cell(["photo", "probe", "probe + hash", "× the probe", "whole picture", "× the probe"]))
    for (name, path, type) in [("JPEG, EXIF thumbnail", camera, "image/jpeg"), ("JPEG, no thumbnail", bare, "image/jpeg"),
                               ("HEIC, thumbnail", heic, "image/heic")] {
        let probe = perPhoto { _ = try? MediaProbe.probe(path: path, timeZone: zone, readPeople: true) }
        var hashed = false
        let withHash = perPhoto { hashed = (try? reading.probe(path: path, timeZone: zone, readPeople: true))?.media.pictureHash != nil }
        guard hashed == (path != bare) else { fail("\(name): the probe \(hashed ? "hashed" : "did not hash") it") }
        let whole = perPhoto { _ = try? reading.pictureHash(path: path, contentType: type) }
        print(cell([name, f(probe, 2), f(withHash, 2), f(withHash / probe, 1), f(whole, 1), f(whole / probe, 0)]))
    }
}
