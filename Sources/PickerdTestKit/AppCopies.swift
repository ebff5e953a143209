import Foundation

extension RunningPickerd {
    /// Registers `count` copies of `program` as apps of their own (`org.test.app-N`), entitled to
    /// present: pickerd serves one picker per app at a time, so concurrent presentations need as
    /// many apps. Each copy is a file of its own (a copy, not a link: the kernel's identity of an
    /// app is its executable file).
    /// - Parameters:
    ///   - program: the executable to copy, such as the built `pickerd-test-client`.
    ///   - count: how many apps.
    ///   - entitlements: the entitlements plist every copy is registered with.
    /// - Returns: the copies' paths, in `<root>/apps/`.
    /// - Throws: when a copy or a registration fails.
    public func registerAppCopies(of program: String, count: Int, entitlements: String) throws -> [String] {
        let directory = root + "/apps"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try (0..<count).map { index in
            let copy = directory + "/app-\(index)"
            if !FileManager.default.fileExists(atPath: copy) { try FileManager.default.copyItem(atPath: program, toPath: copy) }
            let result = try ctl(["apps", "register", "--executable", copy, "--entitlements", entitlements,
                                  "--bundle-id", "org.test.app-\(index)", "--name", "Test App \(index)"])
            guard result.status == 0 else {
                throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "registering \(copy): \(result.stderr)"])
            }
            return copy
        }
    }
}
