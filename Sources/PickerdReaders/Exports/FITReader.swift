public import PickerdImport

/// Reads Garmin's binary FIT activity files (and `.fit.gz`, as Strava's bulk export stores them):
/// a decoder of our own for the messages a workout needs.
///
/// The format: a 12- or 14-byte header (size, protocol, profile, data size, ".FIT", and in the
/// 14-byte form a header CRC, checked when not zero), data records, and a CRC-16 of everything
/// before it, always checked. Records are definition messages (a local type 0–15 bound to a global
/// message number, its fields' numbers, sizes and base types, little- or big-endian, with developer
/// fields whose bytes are skipped) and data messages, with a normal header or a compressed-timestamp
/// header (a 5-bit offset from the last full timestamp). Several FIT files chained in one are read
/// one after the other.
///
/// Messages decoded (the rest are skipped by size):
/// - `file_id` (0): `type` — a file that says it is not an activity (4) is refused;
/// - `sport` (12): `sport`;
/// - `session` (18): `timestamp`, `start_time`, `sport`, `total_elapsed_time`, `total_distance`,
///   `total_cycles` (strides for runs, walks and hikes: `steps` is twice it), `total_calories`,
///   `avg_heart_rate` — one workout per session;
/// - `lap` (19): the same fields, used when a file has laps but no session;
/// - `record` (20): `timestamp`, `position_lat`/`position_long` (semicircles), `altitude` or
///   `enhanced_altitude`, `heart_rate`, `distance` — the route, the distance and heart rate when the
///   session lacks them, and the whole workout when there is neither session nor lap.
///
/// Activity type: the session's sport, else the `sport` message's, else the first lap's, through
/// ``HealthKitActivity/rawValue(fitSport:)``: running 1 → 37, cycling 2 → 13, walking 11 → 52,
/// hiking 17 → 24, swimming 5 → 46, anything else → 3000. FIT times are seconds since
/// 1989-12-31T00:00:00Z (``epochOffsetSeconds`` before 1970's).
///
/// Errors name the file and, where there is one, the byte offset: not a FIT file, a truncated file,
/// a bad CRC, a malformed or undefined message, a position out of range (naming the record message),
/// a file with nothing timed in it. Of chained files (an activity followed by a settings file) the
/// activity is read.
public enum FITReader {
    /// Seconds from 1970-01-01 to FIT's epoch, 1989-12-31T00:00:00Z.
    public static let epochOffsetSeconds: Int64 = 631_065_600

    /// The least FIT date_time that is a date: below it a value counts seconds from the device's
    /// power-on (the FIT profile's `min` date_time, 0x10000000), and the session is dated by the
    /// file's own timestamps instead.
    public static let minimumAbsoluteTime: UInt32 = 0x1000_0000

    /// Reads a FIT file, or a gzip-compressed one. `file` names it in errors.
    public static func read(_ bytes: [UInt8], file: String) throws(ImportError) -> ImportedData {
        let bytes = try WorkoutFiles.inflatedIfGzip(bytes, file: file)
        guard !bytes.isEmpty else { throw ImportError(file: file, "the file is empty") }
        var decoder = Decoder(bytes: bytes, file: file)
        try decoder.decodeFiles()
        return ImportedData(workouts: try decoder.workouts())
    }

    /// FIT's CRC-16 (polynomial 0xA001, nibble-wise as in Garmin's SDK) of `bytes`.
    public static func crc16<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            var tmp = crcTable[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ crcTable[Int(byte & 0xF)]
            tmp = crcTable[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ crcTable[Int((byte >> 4) & 0xF)]
        }
        return crc
    }

    private static let crcTable: [UInt16] = [
        0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
        0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
    ]

    // MARK: Decoding

    private struct FieldDefinition {
        var number: UInt8
        var size: Int
        var baseType: UInt8
    }

    private struct Definition {
        var global: UInt16
        var bigEndian: Bool
        var fields: [FieldDefinition]
        /// Bytes of developer fields, skipped.
        var developerSize: Int
        var size: Int { fields.reduce(developerSize) { $0 + $1.size } }
    }

    /// A session or a lap: the same fields under the same numbers except heart rate and sport.
    private struct Summary {
        var timestamp: UInt32?
        var startTime: UInt32?
        var elapsedSeconds: Double?
        var distance: Double?
        var cycles: Double?
        var calories: Double?
        var heartRate: Double?
        var sport: UInt8?
    }

    private struct Record {
        var timestamp: UInt32?
        var latitude: Double?
        var longitude: Double?
        var altitude: Double?
        var heartRate: Double?
        var distance: Double?
    }

    private struct Decoder {
        let bytes: [UInt8]
        let file: String
        /// The type of each chained file (its `file_id`), in order: an activity may be followed by
        /// a settings or device file, as watches write them.
        var fileTypes: [Int] = []
        var sport: UInt8?
        var sessions: [Summary] = []
        var laps: [Summary] = []
        var records: [Record] = []
        /// Data messages read, for naming one in an error.
        var messageCount = 0

        init(bytes: [UInt8], file: String) {
            self.bytes = bytes
            self.file = file
        }

        func error(at offset: Int, _ message: String) -> ImportError {
            ImportError(file: file, location: "byte \(offset)", message)
        }

        mutating func decodeFiles() throws(ImportError) {
            var offset = 0
            repeat {
                offset = try decodeFile(at: offset)
                // A chained file follows only when a FIT header does; anything else after is ignored.
            } while offset + 12 <= bytes.count && bytes[offset + 8..<offset + 12].elementsEqual(".FIT".utf8)
        }

        /// Decodes the FIT file starting at `start`; returns where it ends.
        mutating func decodeFile(at start: Int) throws(ImportError) -> Int {
            guard bytes.count - start >= 12 else {
                throw error(at: bytes.count, "the file is truncated: \(bytes.count - start) bytes is shorter than a FIT header")
            }
            let headerSize = Int(bytes[start])
            guard headerSize >= 12, bytes[start + 8..<start + 12].elementsEqual(".FIT".utf8) else {
                throw error(at: start, "not a FIT file (no \".FIT\" header)")
            }
            guard bytes.count - start >= headerSize else {
                throw error(at: bytes.count, "the file is truncated inside its \(headerSize)-byte header")
            }
            if headerSize >= 14 {
                let stored = UInt16(bytes[start + 12]) | UInt16(bytes[start + 13]) << 8
                if stored != 0, stored != FITReader.crc16(bytes[start..<start + 12]) {
                    throw error(at: start + 12, "bad header CRC")
                }
            }
            var dataSize = Int(readUnsigned(at: start + 4, size: 4, bigEndian: false))
            if dataSize == 0 { dataSize = max(0, bytes.count - start - headerSize - 2) }  // a file still being written
            let dataStart = start + headerSize
            let dataEnd = dataStart + dataSize
            guard dataEnd + 2 <= bytes.count else {
                throw error(at: bytes.count, "the file is truncated: it ends at byte \(bytes.count), its header promises \(dataEnd + 2) bytes")
            }
            let stored = UInt16(bytes[dataEnd]) | UInt16(bytes[dataEnd + 1]) << 8
            let computed = FITReader.crc16(bytes[start..<dataEnd])
            guard stored == computed else {
                throw error(at: dataEnd, "bad CRC: the file says 0x\(String(stored, radix: 16)), its bytes give 0x\(String(computed, radix: 16))")
            }
            try decodeRecords(from: dataStart, to: dataEnd)
            return dataEnd + 2
        }

        mutating func decodeRecords(from start: Int, to end: Int) throws(ImportError) {
            var definitions = [Definition?](repeating: nil, count: 16)
            var lastTimestamp: UInt32?
            var offset = start
            while offset < end {
                let recordStart = offset
                let header = bytes[offset]
                offset += 1
                if header & 0x80 != 0 {
                    // Compressed timestamp header: local type in bits 5–6, a 5-bit offset in seconds.
                    let local = Int((header >> 5) & 0x3)
                    guard let last = lastTimestamp else {
                        throw error(at: recordStart, "a compressed timestamp before any full timestamp")
                    }
                    let low = UInt32(header & 0x1F)
                    var timestamp = (last & ~0x1F) + low
                    if low < last & 0x1F { timestamp += 0x20 }
                    lastTimestamp = timestamp
                    try decodeData(local: local, definitions: definitions, at: &offset, end: end, recordStart: recordStart,
                                   timestamp: timestamp, lastTimestamp: &lastTimestamp)
                } else if header & 0x40 != 0 {
                    let local = Int(header & 0x0F)
                    let hasDeveloperFields = header & 0x20 != 0
                    guard offset + 5 <= end else { throw truncated(recordStart, end) }
                    let architecture = bytes[offset + 1]
                    guard architecture <= 1 else {
                        throw error(at: recordStart, "a definition message with architecture \(architecture) (neither little nor big endian)")
                    }
                    let bigEndian = architecture == 1
                    let global = UInt16(readUnsigned(at: offset + 2, size: 2, bigEndian: bigEndian))
                    let fieldCount = Int(bytes[offset + 4])
                    offset += 5
                    guard offset + fieldCount * 3 <= end else { throw truncated(recordStart, end) }
                    var fields: [FieldDefinition] = []
                    fields.reserveCapacity(fieldCount)
                    for index in 0..<fieldCount {
                        let at = offset + index * 3
                        fields.append(FieldDefinition(number: bytes[at], size: Int(bytes[at + 1]), baseType: bytes[at + 2]))
                    }
                    offset += fieldCount * 3
                    var developerSize = 0
                    if hasDeveloperFields {
                        guard offset + 1 <= end else { throw truncated(recordStart, end) }
                        let count = Int(bytes[offset])
                        offset += 1
                        guard offset + count * 3 <= end else { throw truncated(recordStart, end) }
                        for index in 0..<count { developerSize += Int(bytes[offset + index * 3 + 1]) }
                        offset += count * 3
                    }
                    definitions[local] = Definition(global: global, bigEndian: bigEndian, fields: fields, developerSize: developerSize)
                } else {
                    guard header & 0x10 == 0 else { throw error(at: recordStart, "a record header with its reserved bit set (0x\(String(header, radix: 16)))") }
                    try decodeData(local: Int(header & 0x0F), definitions: definitions, at: &offset, end: end, recordStart: recordStart,
                                   timestamp: nil, lastTimestamp: &lastTimestamp)
                }
            }
        }

        func truncated(_ recordStart: Int, _ end: Int) -> ImportError {
            error(at: recordStart, "a message runs past the end of the data (byte \(end)): the file is truncated or corrupt")
        }

        mutating func decodeData(local: Int, definitions: [Definition?], at offset: inout Int, end: Int, recordStart: Int,
                                 timestamp: UInt32?, lastTimestamp: inout UInt32?) throws(ImportError) {
            guard let definition = definitions[local] else {
                throw error(at: recordStart, "a data message of local type \(local), which no definition message defined")
            }
            guard offset + definition.size <= end else { throw truncated(recordStart, end) }
            messageCount += 1
            var session = Summary(timestamp: timestamp)
            var record = Record(timestamp: timestamp)
            var at = offset
            for field in definition.fields {
                defer { at += field.size }
                guard let value = readValue(at: at, size: field.size, baseType: field.baseType, bigEndian: definition.bigEndian) else { continue }
                if field.number == 253 {
                    let seconds = UInt32(clamping: Int64(value))
                    lastTimestamp = seconds
                    session.timestamp = seconds
                    record.timestamp = seconds
                    continue
                }
                switch definition.global {
                case 0:
                    if field.number == 0 { fileTypes.append(Int(value)) }
                case 12:
                    if field.number == 0 { sport = UInt8(clamping: Int(value)) }
                case 18, 19:
                    switch (field.number, definition.global) {
                    // A date_time below 0x10000000 is a relative time (seconds since the device
                    // powered on, in the FIT profile), not a date in 1990: the file's own
                    // timestamps date the session instead.
                    case (2, _): if value >= Double(FITReader.minimumAbsoluteTime) { session.startTime = UInt32(clamping: Int64(value)) }
                    case (7, _): session.elapsedSeconds = value / 1000
                    case (9, _): session.distance = value / 100
                    case (10, _): session.cycles = value
                    case (11, _): session.calories = value
                    case (16, 18), (15, 19): session.heartRate = value
                    case (5, 18), (25, 19): session.sport = UInt8(clamping: Int(value))
                    default: break
                    }
                case 20:
                    switch field.number {
                    case 0: record.latitude = value * (180.0 / 2_147_483_648.0)
                    case 1: record.longitude = value * (180.0 / 2_147_483_648.0)
                    case 2: if record.altitude == nil { record.altitude = (value - 2500) / 5 }
                    case 78: record.altitude = (value - 2500) / 5  // scale 5, offset 500 m
                    case 3: record.heartRate = value
                    case 5: record.distance = value / 100
                    default: break
                    }
                default: break
                }
            }
            offset += definition.size
            switch definition.global {
            case 18: sessions.append(session)
            case 19: laps.append(session)
            case 20:
                if record.latitude != nil || record.longitude != nil {
                    guard let latitude = record.latitude, let longitude = record.longitude else {
                        throw error(at: recordStart, "record message \(messageCount) has only half a position")
                    }
                    try WorkoutFiles.checkCoordinate(latitude: latitude, longitude: longitude, file: file,
                                                     location: "byte \(recordStart)", what: "record message \(messageCount)")
                }
                records.append(record)
            default: break
            }
        }

        func readUnsigned(at offset: Int, size: Int, bigEndian: Bool) -> UInt64 {
            var value: UInt64 = 0
            for index in 0..<size {
                let byte = UInt64(bytes[bigEndian ? offset + index : offset + size - 1 - index])
                value = value << 8 | byte
            }
            return value
        }

        /// The first value of a numeric field, `nil` when it is FIT's invalid value, a string or byte
        /// array, or narrower than its base type.
        func readValue(at offset: Int, size: Int, baseType: UInt8, bigEndian: Bool) -> Double? {
            let kind = baseType & 0x1F
            let widths: [Int] = [1, 1, 1, 2, 2, 4, 4, 1, 4, 8, 1, 2, 4, 1, 8, 8, 8]
            guard Int(kind) < widths.count, kind != 7, kind != 13 else { return nil }
            let width = widths[Int(kind)]
            guard size >= width else { return nil }
            let raw = readUnsigned(at: offset, size: width, bigEndian: bigEndian)
            let allOnes: UInt64 = width == 8 ? .max : (1 << (UInt64(width) * 8)) - 1
            switch kind {
            case 0, 2, 4, 6, 15: return raw == allOnes ? nil : Double(raw)  // enum, uint8/16/32/64
            case 10, 11, 12, 16: return raw == 0 ? nil : Double(raw)  // uint8z/16z/32z/64z
            case 1, 3, 5, 14:  // sint8/16/32/64: invalid is the largest positive value
                if raw == allOnes >> 1 { return nil }
                let shift = UInt64(64 - width * 8)
                return Double(Int64(bitPattern: raw << shift) >> Int64(shift))
            case 8:
                let value = Float(bitPattern: UInt32(raw))
                return raw == allOnes || !value.isFinite ? nil : Double(value)
            case 9:
                let value = Double(bitPattern: raw)
                return raw == allOnes || !value.isFinite ? nil : value
            default: return nil
            }
        }

        // MARK: Workouts

        static func ms(_ fitSeconds: UInt32) -> Int64 { (Int64(fitSeconds) + FITReader.epochOffsetSeconds) * 1000 }

        func point(_ record: Record) -> LocationPoint? {
            guard let latitude = record.latitude, let longitude = record.longitude else { return nil }
            return LocationPoint(timeMs: record.timestamp.map(Self.ms), latitude: latitude, longitude: longitude,
                                 elevation: record.altitude, heartRate: record.heartRate)
        }

        func workouts() throws(ImportError) -> [ImportedWorkout] {
            if let fileType = fileTypes.first, !fileTypes.contains(4) {
                throw ImportError(file: file, "not an activity: FIT file type \(fileType) (an activity is 4)")
            }
            let timed = records.filter { $0.timestamp != nil }
            // A session with no start_time, no absolute timestamp and no timed record to date it by
            // has no date at all: refused, not dated at the FIT epoch (31 Dec 1989), as Garmin's
            // SDK test file of a session with only developer fields would be.
            let absolute = { (time: UInt32?) in time.map { $0 >= FITReader.minimumAbsoluteTime } ?? false }
            if !sessions.isEmpty, !sessions.contains(where: { $0.startTime != nil || absolute($0.timestamp) }),
               !records.contains(where: { absolute($0.timestamp) }) {
                throw ImportError(file: file, "\(sessions.count == 1 ? "its session has" : "its \(sessions.count) sessions have") no date: no start_time, timestamp or timed record")
            }
            if !sessions.isEmpty {
                return sessions.map { workout(from: $0, records: sessions.count == 1 ? records : nil) }
            }
            if !laps.isEmpty {
                var total = Summary(sport: laps.first { $0.sport != nil }?.sport)
                var rateSeconds = 0.0
                var weightedRate = 0.0
                for lap in laps {
                    if let start = lap.startTime { total.startTime = min(total.startTime ?? start, start) }
                    if let start = lap.startTime, let elapsed = lap.elapsedSeconds {
                        let end = UInt32(clamping: Int64(start) + Int64(elapsed.rounded()))
                        total.timestamp = max(total.timestamp ?? end, end)
                    } else if let stamp = lap.timestamp {
                        total.timestamp = max(total.timestamp ?? stamp, stamp)
                    }
                    if let distance = lap.distance { total.distance = (total.distance ?? 0) + distance }
                    if let calories = lap.calories { total.calories = (total.calories ?? 0) + calories }
                    if let cycles = lap.cycles { total.cycles = (total.cycles ?? 0) + cycles }
                    if let rate = lap.heartRate, let seconds = lap.elapsedSeconds, seconds > 0 {
                        weightedRate += rate * seconds
                        rateSeconds += seconds
                    }
                }
                if let start = total.startTime, let end = total.timestamp { total.elapsedSeconds = Double(end) - Double(start) }
                if rateSeconds > 0 { total.heartRate = weightedRate / rateSeconds }
                if total.startTime != nil || !timed.isEmpty { return [workout(from: total, records: records)] }
            }
            guard !timed.isEmpty else {
                throw ImportError(file: file, "no session, lap or timed record: nothing here can be a workout")
            }
            return [workout(from: Summary(), records: records)]
        }

        /// A workout from a session (or laps summed, or nothing), with `records` as its route, or the
        /// records within its times when `records` is nil (a file of several sessions).
        func workout(from summary: Summary, records given: [Record]?) -> ImportedWorkout {
            let firstTime = (given ?? records).lazy.compactMap(\.timestamp).first { $0 >= FITReader.minimumAbsoluteTime }
            // Without its start time: its end less its elapsed time, else its first record.
            let fromEnd = summary.timestamp.flatMap { end in
                summary.elapsedSeconds.map { UInt32(clamping: Int64(end) - Int64($0.rounded())) }
            }.flatMap { $0 >= FITReader.minimumAbsoluteTime ? $0 : nil }
            let startSeconds = summary.startTime ?? (given == nil ? fromEnd ?? firstTime : firstTime ?? fromEnd) ?? summary.timestamp ?? 0
            var endSeconds: UInt32
            if let elapsed = summary.elapsedSeconds {
                endSeconds = UInt32(clamping: Int64(startSeconds) + Int64(elapsed.rounded()))
            } else if let stamp = summary.timestamp {
                endSeconds = stamp
            } else {
                endSeconds = (given ?? records).lazy.compactMap(\.timestamp).max() ?? startSeconds
            }
            endSeconds = max(endSeconds, startSeconds)
            let own = given ?? records.filter { record in
                guard let time = record.timestamp else { return false }
                return time >= startSeconds && time <= endSeconds
            }
            let route = own.compactMap(point)
            let sportValue = summary.sport ?? sport ?? laps.first { $0.sport != nil }?.sport ?? 0
            let strideSports: Set<UInt8> = [1, 11, 17]
            let devices = summary.distance ?? own.lazy.compactMap(\.distance).last
            var workout = ImportedWorkout(
                activityType: HealthKitActivity.rawValue(fitSport: sportValue),
                startMs: Self.ms(startSeconds), endMs: Self.ms(endSeconds),
                distanceMeters: devices ?? (route.count > 1 ? WorkoutFiles.length(of: route) : nil),
                energyKilocalories: summary.calories,
                averageHeartRate: summary.heartRate ?? WorkoutFiles.mean(own.compactMap(\.heartRate)),
                steps: strideSports.contains(sportValue) ? summary.cycles.map { Int($0) * 2 } : nil,
                route: route, name: nil, format: "fit")
            workout.distanceIsDevices = devices != nil
            return workout
        }
    }
}
