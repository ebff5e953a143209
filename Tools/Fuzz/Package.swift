// swift-tools-version: 6.1
// libFuzzer targets for pickerd, kept out of the main package: a fuzzer binary gets its main from
// libFuzzer, so it cannot build without the fuzzer flags. Run them with Tools/fuzz-frames.
import PackageDescription

let package = Package(
    name: "pickerd-fuzz",
    dependencies: [.package(name: "pickerd", path: "../..")],
    targets: [
        .executableTarget(
            name: "FrameFuzzer",
            dependencies: [.product(name: "PickerdWire", package: "pickerd")]
        ),
    ]
)
