import Foundation

/// pickerd's companion programs (`pickerd-reader`, `pickerd-demo-library`), found one way: beside
/// pickerd's own executable (a build's products, or /usr/bin), else installed in /usr/libexec/pickerd/.
enum CompanionProgram {
    /// The path of the companion program `name`.
    static func path(_ name: String) -> String {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        let beside = (own as NSString).deletingLastPathComponent + "/" + name
        return FileManager.default.isExecutableFile(atPath: beside) ? beside : "/usr/libexec/pickerd/" + name
    }
}
