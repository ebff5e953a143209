// pickerctl backup, restore and export: the person's decisions copied out and put back, and
// everything pickerd holds about them written out as JSON.

import ArgumentParser
import Foundation
import PickerdTransport
import PickerdWire

struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy your decisions (history, apps, hidden rules, home and work, settings, reminders, sources, donations) to FILE.",
        discussion: "A consistent copy while pickerd serves (SQLite's online backup). pickerd also keeps two daily copies itself, in <data-dir>/backups.")
    @OptionGroup var connection: Connection
    @Argument(help: "The file to write (replaced if there).") var file: String
    @Flag(help: "Everything: the library and its moments too (not the media files).") var all = false

    func run() throws {
        guard case .backupReply(let reply) = perform(try connection.open(), .backup(BackupRequest(path: absolute(file), all: all))) else {
            fail("unexpected reply", code: 1)
        }
        print("\(all ? "everything" : "your decisions") written to \(reply.path) (\(reply.bytes / 1024) KiB)")
    }
}

struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put back the decisions a backup holds (with --all, everything a backup of everything holds).",
        discussion: "The decisions now in pickerd are replaced by the backup's, in one step; sources it names are added. A file that is not a pickerd backup is refused and nothing changes.")
    @OptionGroup var connection: Connection
    @Argument(help: "The backup (pickerctl backup FILE).") var file: String
    @Flag(help: "Restore the library too, from a backup made with --all.") var all = false

    func run() throws {
        guard case .restoreReply(let reply) = perform(try connection.open(), .restore(RestoreRequest(path: absolute(file), all: all))) else {
            fail("unexpected reply", code: 1)
        }
        print("restored \(reply.kind == "all" ? "everything" : "your decisions") from \(absolute(file)), made \(date(reply.madeMs))")
    }
}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write everything pickerd holds about you into DIR as JSON, one file per table, to take elsewhere.")
    @OptionGroup var connection: Connection
    @Argument(help: "The directory (made if missing).") var directory: String

    func run() throws {
        guard case .exportReply(let reply) = perform(try connection.open(), .exportRequest(ExportRequest(directory: absolute(directory)))) else {
            fail("unexpected reply", code: 1)
        }
        print("\(reply.files.count) files written to \(absolute(directory))")
    }
}
