// swift-tools-version: 6.1
// libFuzzer targets for pickerd, kept out of the main package: a fuzzer binary gets its main from
// libFuzzer, so it cannot build without the fuzzer flags. Run them with Tools/fuzz-frames and
// Tools/fuzz-readers.
import PackageDescription

let package = Package(
    name: "pickerd-fuzz",
    dependencies: [.package(name: "pickerd", path: "../..")],
    targets: [
        .executableTarget(
            name: "FrameFuzzer",
            dependencies: [.product(name: "PickerdWire", package: "pickerd")]
        ),
        // Every reader of a person's files, one per run (PICKERD_FUZZ_READER). It reaches the
        // readers' internal entry points with @testable import: the fuzz build is a debug build,
        // which SwiftPM compiles with testing enabled.
        .executableTarget(
            name: "ReaderFuzzer",
            dependencies: [
                .product(name: "PickerdReaders", package: "pickerd"),
                .product(name: "PickerdImport", package: "pickerd"),
            ]
        ),
    ]
)
