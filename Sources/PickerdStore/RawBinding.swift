import Foundation
import GRDB
#if canImport(GRDBSQLite)
import GRDBSQLite  // GRDB's SQLite on Linux
#else
import SQLite3
#endif

/// A row's values bound by position straight into a statement compiled by GRDB, through SQLite's C
/// API, and the statement run the same way. GRDB's arguments are an array of existentials, each
/// value boxed, copied and unboxed: writing a million listens spent more time there than in SQLite
/// (3.7 of 5.3 s). Only for the hot writes of many rows; everything else goes through GRDB.
///
/// It runs inside the caller's GRDB transaction, on GRDB's connection and serial queue, so it needs
/// nothing GRDB's execution adds there (pickerd observes no tables).
struct RawBinding {
    /// The statement.
    let statement: OpaquePointer
    /// The next parameter's position (SQLite counts from 1).
    private(set) var position: Int32 = 1

    /// Starts binding `statement`'s parameters from the first.
    init(_ statement: Statement) {
        self.statement = statement.sqliteStatement
    }

    /// SQLite copies text it is given with this (it is no longer the caller's after the call).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Binds an integer.
    mutating func add(_ value: Int64) {
        sqlite3_bind_int64(statement, position, value)
        position += 1
    }

    /// Binds an integer or NULL.
    mutating func add(_ value: Int64?) {
        if let value { add(value) } else { addNull() }
    }

    /// Binds an integer or NULL.
    mutating func add(_ value: Int?) { add(value.map(Int64.init)) }

    /// Binds a Boolean as GRDB does (0 or 1).
    mutating func add(_ value: Bool) { add(value ? 1 : 0 as Int64) }

    /// Binds a real or NULL.
    mutating func add(_ value: Double?) {
        if let value { sqlite3_bind_double(statement, position, value) } else { sqlite3_bind_null(statement, position) }
        position += 1
    }

    /// Binds text or NULL.
    mutating func add(_ value: String?) {
        guard var value else { return addNull() }
        let position = position
        value.withUTF8 { bytes in
            // Up to a NUL, as GRDB binds text (a C string): the same text is stored whichever way
            // it was written, and found by a query GRDB binds. An empty string's buffer may have
            // no address; SQLite wants one for text (NULL is NULL).
            let count = bytes.firstIndex(of: 0) ?? bytes.count
            if let start = bytes.baseAddress, count > 0 {
                _ = sqlite3_bind_text(statement, position, UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self), Int32(count), Self.transient)
            } else {
                _ = sqlite3_bind_text(statement, position, "", 0, Self.transient)
            }
        }
        self.position += 1
    }

    /// Binds an id as its text (``UUID/text``), formatted on the stack.
    mutating func add(_ id: UUID) {
        let position = position
        id.withText { bytes in
            _ = sqlite3_bind_text(statement, position, UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self),
                                  Int32(bytes.count), Self.transient)
        }
        self.position += 1
    }

    /// Binds the next row's values from the first parameter again (the statement run, or a query's
    /// rows read, with the last ones).
    mutating func rewind() { position = 1 }

    /// Binds NULL.
    mutating func addNull() {
        sqlite3_bind_null(statement, position)
        position += 1
    }

    /// Runs the statement (an insert, update or delete) with what was bound, and makes it ready
    /// for the next row.
    /// - Throws: `DatabaseError` with SQLite's code and message (a constraint, a full disk).
    func run(_ db: Database) throws {
        defer { sqlite3_reset(statement) }
        var code = sqlite3_step(statement)
        while code == SQLITE_ROW { code = sqlite3_step(statement) }
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                                sql: String(cString: sqlite3_sql(statement)))
        }
    }

    /// A row of a query's result, read by column position.
    struct Row {
        fileprivate let statement: OpaquePointer
        /// The integer in `column` (from 0).
        func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
    }

    /// Runs a query with what was bound and hands `row` each row, then makes it ready for the next.
    /// - Throws: `DatabaseError`, or what `row` throws.
    func forEachRow(_ db: Database, _ row: (Row) throws -> Void) throws {
        defer { sqlite3_reset(statement) }
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                                    sql: String(cString: sqlite3_sql(statement)))
            }
            try row(Row(statement: statement))
        }
    }
}
