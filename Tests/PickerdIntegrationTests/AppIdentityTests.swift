import Foundation
import Glibc
import PickerdTestKit
import Testing

/// The three kinds of app, each as a real process: installed by the system (a root-owned manifest
/// under XDG_DATA_DIRS), a Flatpak (a bwrap sandbox with a `.flatpak-info`), a developer's build.
@Suite("Who is calling: system apps, Flatpaks, developers' builds", .serialized)
struct AppIdentityTests {
    /// A system data directory in `root/share` with the test client as an app installed by the
    /// system: its own copy of the executable, its entitlements and its manifest, all root's and 0755/0644.
    static func installSystemApp(root: String, flatpakAppID: String? = nil) throws -> (share: String, executable: String, manifest: String, entitlements: String) {
        let share = root + "/share"
        let apps = share + "/pickerd/apps", lib = share + "/lib"
        for folder in [share, share + "/pickerd", apps, lib] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        }
        chmod(root, 0o755)
        let executable = lib + "/journal-app"
        try FileManager.default.copyItem(atPath: BuiltProducts.url("pickerd-test-client").path, toPath: executable)
        chmod(executable, 0o755)
        let entitlements = lib + "/journal-app.entitlements"
        try Entitlements.allowed.write(toFile: entitlements, atomically: true, encoding: .utf8)
        chmod(entitlements, 0o644)
        let manifest = apps + "/org.example.Journal.json"
        var json: [String: Any] = ["bundleID": "org.example.Journal", "displayName": "Journal (system)", "entitlementsPath": entitlements]
        if let flatpakAppID { json["flatpakAppID"] = flatpakAppID } else { json["executablePath"] = executable }
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: manifest))
        chmod(manifest, 0o644)
        return (share, executable, manifest, entitlements)
    }

    static func lines(_ result: CommandResult) -> [[String: Any]] {
        jsonLines(result.stdout)
    }

    @Test("an app installed by the system presents without registration; a user-writable executable, entitlements or manifest is refused, saying why")
    func systemApp() throws {
        let root = try TemporaryDirectory.forThisRun(prefix: "pkd-sys")
        let app = try Self.installSystemApp(root: root)
        let pickerd = try sessionPickerd(script: #"{"consent": "accept", "reviews": [{}]}"#, register: false, extra: [],
                                         environment: ["XDG_DATA_DIRS": app.share], developerMode: false)
        let list = try pickerd.ctl(["apps", "list"])
        #expect(list.stdout.contains("org.example.Journal  Journal (system)  (installed by the system)"), "\(list.stdout)")
        #expect(list.stdout.contains("state:         allowed"))
        let presented = Self.lines(try runCommand(URL(fileURLWithPath: app.executable), [pickerd.runtime, "present"]))
        #expect(presented.last?["result"] as? String == "approved", "\(presented) \(pickerd.logText.suffix(1500))")
        #expect(try pickerd.ctl(["apps", "show", "org.example.Journal"]).stdout.contains("presented:") )

        // Anything of it the person (here: uid 65534) could change makes it not a system app.
        for (path, change, why) in [(app.executable, "owner", "is owned by uid 65534, not root"),
                                    (app.entitlements, "mode", "is writable by everyone"),
                                    (app.manifest, "owner", "is owned by uid 65534, not root"),
                                    (app.share + "/lib", "mode", "which is writable by its group")] {
            var before = stat()
            _ = stat(path, &before)
            if change == "owner" { chown(path, 65534, 65534) } else { chmod(path, before.st_mode & 0o7777 | (path.hasSuffix("lib") ? 0o020 : 0o002)) }
            let refused = Self.lines(try runCommand(URL(fileURLWithPath: app.executable), [pickerd.runtime, "present"]))
            #expect(refused.last?["code"] as? String == "notEntitled", "\(path): \(refused)")
            let message = refused.last?["message"] as? String ?? ""
            #expect(message.contains("is not a system app"), "\(message)")
            #expect(message.contains(why), "\(message)")
            chown(path, 0, 0)
            chmod(path, before.st_mode & 0o7777)
        }
        #expect(Self.lines(try runCommand(URL(fileURLWithPath: app.executable), [pickerd.runtime, "present"])).last?["result"] as? String == "approved")

        // The person can revoke even a system app: it is asked about again.
        let revoked = try pickerd.ctl(["apps", "revoke", "org.example.Journal"])
        #expect(revoked.stdout.contains("revoked by you"), "\(revoked.stdout)")
        let asked = Self.lines(try runCommand(URL(fileURLWithPath: app.executable), [pickerd.runtime, "present"]))
        #expect(asked.last?["code"] as? String == "notEntitled", "the script does not allow: \(asked)")
        pickerd.stop()
    }

    @Test("a Flatpak is known by its sandbox's app id: an approved id presents, an unknown one is refused, a registered one waits for the person")
    func flatpak() throws {
        let root = try TemporaryDirectory.forThisRun(prefix: "pkd-flatpak")
        // A system manifest for org.example.Journal (no executable: a Flatpak's is its own /app).
        let app = try Self.installSystemApp(root: root, flatpakAppID: "org.example.Journal")
        let pickerd = try sessionPickerd(script: #"{"consent": "accept", "reviews": [{}, {}]}"#, register: false,
                                         environment: ["XDG_DATA_DIRS": app.share], developerMode: false)
        let client = BuiltProducts.url("pickerd-test-client").path
        func present(as appID: String) throws -> [[String: Any]] {
            let sandbox = clientSandbox(program: client, socket: pickerd.runtime + "/client.sock", flatpakAppID: appID, in: root)
            return Self.lines(try runCommand(URL(fileURLWithPath: "/usr/bin/bwrap"), sandbox + [client, "/run/pickerd", "present"]))
        }
        #expect(try present(as: "org.example.Journal").last?["result"] as? String == "approved", "\(pickerd.logText.suffix(1500))")
        let unknown = try present(as: "org.example.Unknown")
        #expect(unknown.last?["code"] as? String == "notEntitled")
        let unknownMessage = unknown.last?["message"] as? String ?? ""
        #expect(unknownMessage.contains("the Flatpak app org.example.Unknown is not known to pickerd"), "\(unknownMessage)")
        // Registered by the person: pending until allowed (this script does not allow).
        let entitlements = root + "/other.entitlements"
        try Entitlements.allowed.write(toFile: entitlements, atomically: true, encoding: .utf8)
        let registered = try pickerd.ctl(["apps", "register", "--flatpak-app-id", "org.example.Other", "--entitlements", entitlements])
        #expect(registered.status == 0, "\(registered.stderr)")
        #expect(registered.stdout.contains("waits for your Allow"))
        let pending = try present(as: "org.example.Other")
        let pendingMessage = pending.last?["message"] as? String ?? ""
        #expect(pending.last?["code"] as? String == "notEntitled", "\(pending)")
        #expect(pendingMessage.contains("did not allow"), "\(pending)")
        // The host's test client is not the Flatpak: a host process never matches an app id.
        let host = Self.lines(try runCommand(URL(fileURLWithPath: client), [pickerd.runtime, "present"]))
        #expect(host.last?["code"] as? String == "notEntitled")
        pickerd.stop()
    }

    @Test("a developer's build waits for the person's Allow, presents after it, and revoke ends it")
    func developerRevoke() throws {
        let pickerd = try sessionPickerd(script: #"{"app": "allow", "consent": "accept", "reviews": [{}, {}, {}]}"#, developerMode: false)
        let list = try pickerd.ctl(["apps", "list"])
        #expect(list.stdout.contains("(developer's build)"), "\(list.stdout)")
        #expect(list.stdout.contains("waits for your Allow in the picker"), "\(list.stdout)")
        #expect(try testClient(pickerd, "present").last?["result"] as? String == "approved")
        let allowed = try pickerd.ctl(["apps", "list"]).stdout
        #expect(allowed.contains("allowed by you"), "\(allowed)")
        let revoked = try pickerd.ctl(["apps", "revoke", "com.example.test"])
        #expect(revoked.stdout.contains("revoked by you"), "\(revoked.stdout)")
        // Asked again (the script allows again): the log shows the question twice.
        #expect(try testClient(pickerd, "present").last?["result"] as? String == "approved")
        #expect(pickerd.logText.components(separatedBy: "allowed by the person").count - 1 == 2, "\(pickerd.logText.suffix(2000))")
        pickerd.stop()
    }
}
