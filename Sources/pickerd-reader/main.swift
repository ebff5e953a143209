// pickerd-reader: reads a person's files for pickerd, shut in. pickerd starts it with a socketpair
// end as descriptor 3 and sends it requests, each with the descriptor of the file to read (pickerd
// opened it); it answers with what it found (Protocol/pickerd/v1/reader.proto). Before it reads
// anything it confines itself (CReaderJail): no file system, no network, no programs, limited
// memory. pickerd kills it past its deadline and starts another; a crash costs one file.
//
//   pickerd-reader --time-zone Europe/Berlin [--max-data-mib 1024]
//   pickerd-reader --self-test open|connect|exec|read   confined, then try the one thing (for the tests)
import CICal
import CMedia
import CReaderJail
import Foundation
import Glibc
import PickerdImport
import PickerdReaders
import PickerdTransport
import PickerdWire
import SystemPackage

import Synchronization

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("pickerd-reader: \(message)\n".utf8))
    exit(2)
}

var arguments = CommandLine.arguments.dropFirst()
var timeZoneName = TimeZone.current.identifier
var maxDataMiB: UInt64 = 1024
var selfTest: String?
while let argument = arguments.popFirst() {
    switch argument {
    case "--time-zone":
        guard let value = arguments.popFirst() else { fail("--time-zone needs a zone") }
        timeZoneName = value
    case "--max-data-mib":
        guard let value = arguments.popFirst().flatMap({ UInt64($0) }) else { fail("--max-data-mib needs a number") }
        maxDataMiB = value
    case "--self-test":
        guard let value = arguments.popFirst() else { fail("--self-test needs open, connect, exec or read") }
        selfTest = value
    default: fail("unknown argument \(argument) (pickerd starts this program; it is not for people to run)")
    }
}

// Everything that may open a file while it starts does so now, before the jail: the decoders'
// plugins and tables, libical's zones (a calendar's TZIDs), Foundation's zones, the locale.
pm_quiet_libraries()
_ = ci_preload_zones()
_ = TimeZone(identifier: timeZoneName)
_ = TimeZone.current
_ = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date())
_ = ISO8601DateFormatter().date(from: "2026-01-01T00:00:00Z")
_ = TimeZone.knownTimeZoneIdentifiers.count

var report = pj_report()
var error = [CChar](repeating: 0, count: 256)
let confined = pj_confine(maxDataMiB << 20, &report, &error, error.count)
guard confined == 0 else {
    fail("cannot confine itself: " + String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
}

if report.landlock_abi == 0 {
    FileHandle.standardError.write(Data("pickerd-reader: this kernel gives no Landlock; the seccomp filter alone keeps files shut\n".utf8))
}

if let selfTest {
    // Each of these must end the process with SIGSYS; reaching the line after is the failure.
    switch selfTest {
    case "open": _ = Glibc.open("/etc/hostname", O_RDONLY)
    case "connect":
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    case "exec":
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        execv("/bin/true", argv)
    case "read":
        // Allowed: what a reader does all day. Exits 0.
        var byte: UInt8 = 0
        _ = read(0, &byte, 0)
        exit(0)
    default: fail("unknown self-test \(selfTest)")
    }
    fail("still alive after the forbidden \(selfTest)")
}

/// The socketpair end pickerd gave, and the request being answered.
final class Channel: Sendable {
    let connection = FrameConnection(adopting: FileDescriptor(rawValue: 3), limits: FrameLimits(maxBodyBytes: 64 << 20, maxDescriptors: 4))
    let currentID = Atomic<UInt64>(0)

    func send(_ kind: ReaderReply.Kind) {
        do {
            try connection.sendMessage(ReaderReply(id: currentID.load(ordering: .relaxed), kind: kind))
        } catch {
            exit(1)  // pickerd is gone or out of step: nothing left to do
        }
    }

    /// A file another file names (an Apple Health export's routes, Gadgetbridge's tracks) is
    /// pickerd's to open and grant; the reader waits for the answer.
    func open(_ path: String) -> Int32? {
        send(.open(ReaderOpen(path: path)))
        guard let received = try? connection.receiveMessage(ReaderRequest.self), case .openReply(let reply)? = received.message.kind,
              reply.path == path else { exit(1) }
        guard reply.granted, let descriptor = received.descriptors.first?.take() else {
            errno = EACCES
            return nil
        }
        return descriptor.rawValue
    }
}

let channel = Channel()
ReaderFiles.install { channel.open($0) }

while true {
    let received: (message: ReaderRequest, descriptors: [OwnedFileDescriptor])?
    do {
        received = try channel.connection.receiveMessage(ReaderRequest.self)
    } catch {
        exit(1)
    }
    guard let (request, descriptors) = received else { exit(0) }  // pickerd closed: done
    channel.currentID.store(request.id, ordering: .relaxed)
    FileReaderService.handle(request, descriptors: descriptors.compactMap { $0.descriptor?.rawValue }, send: channel.send)
}
