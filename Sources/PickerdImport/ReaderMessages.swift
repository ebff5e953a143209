import PickerdStore
public import PickerdWire

// What a file reader found, to and from the messages of Protocol/pickerd/v1/reader.proto: pickerd
// and pickerd-reader (the confined process that reads the person's files) speak these.

extension ReaderCoordinate {
    init(_ c: Coordinate) { self.init(latitude: c.latitude, longitude: c.longitude) }
    var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }
}

extension ProbedMedia {
    /// The message a reader answers a probe with.
    /// - Parameter people: the people the file's XMP names.
    /// - Returns: the message.
    public func message(people: [String]) -> ReaderProbed {
        ReaderProbed(kind: kind.rawValue, contentType: contentType, takenAtMs: takenAtMs, utcOffsetS: utcOffsetSeconds.map(Int64.init),
                     digitizedAtMs: digitizedAtMs, coordinate: coordinate.map(ReaderCoordinate.init), make: make ?? "",
                     model: model ?? "", software: software ?? "", hasExposure: hasExposure, orientation: Int32(orientation),
                     pixelWidth: pixelWidth, pixelHeight: pixelHeight, durationMs: durationMs,
                     contentIdentifier: contentIdentifier ?? "", burstIdentifier: burstIdentifier ?? "",
                     imageDataEndsEarly: imageDataEndsEarly, people: people, hasMake: make != nil, hasModel: model != nil,
                     hasSoftware: software != nil, hasContentIdentifier: contentIdentifier != nil,
                     hasBurstIdentifier: burstIdentifier != nil, pictureHash: pictureHash ?? 0, hasPictureHash: pictureHash != nil)
    }

    /// The probed media a reader's message describes.
    /// - Parameter m: the message.
    /// - Throws: `ProbeError` `.corrupt` when the message names no kind pickerd knows.
    public init(_ m: ReaderProbed) throws(ProbeError) {
        guard let kind = Kind(rawValue: m.kind) else { throw ProbeError(.corrupt, "its reader named no kind of media") }
        self.init(kind: kind, contentType: m.contentType)
        takenAtMs = m.takenAtMs
        utcOffsetSeconds = m.utcOffsetS.flatMap { Int32(exactly: $0) }
        digitizedAtMs = m.digitizedAtMs
        coordinate = m.coordinate?.coordinate
        make = m.hasMake ? m.make : nil
        model = m.hasModel ? m.model : nil
        software = m.hasSoftware ? m.software : nil
        hasExposure = m.hasExposure
        orientation = Int(m.orientation)
        pixelWidth = m.pixelWidth
        pixelHeight = m.pixelHeight
        durationMs = m.durationMs
        contentIdentifier = m.hasContentIdentifier ? m.contentIdentifier : nil
        burstIdentifier = m.hasBurstIdentifier ? m.burstIdentifier : nil
        imageDataEndsEarly = m.imageDataEndsEarly
        pictureHash = m.hasPictureHash ? m.pictureHash : nil
    }
}

extension ProbeError {
    /// The failure message of this error.
    public var failure: ReaderFailure {
        let kind: ReaderFailureKind = switch self.kind {
        case .unsupported: .unsupported
        case .unreadable: .unreadable
        case .corrupt: .corrupt
        }
        return ReaderFailure(kind: kind, message: self.message, location: "")
    }

    /// The probe error a reader's failure message describes.
    /// - Parameter m: the message.
    public init(_ m: ReaderFailure) {
        let kind: Kind = switch m.kind {
        case .unsupported: .unsupported
        case .unreadable: .unreadable
        default: .corrupt
        }
        self.init(kind, m.message)
    }
}

extension LocationPoint {
    var message: ReaderPoint {
        ReaderPoint(timeMs: timeMs, latitude: latitude, longitude: longitude, elevation: elevation, accuracy: accuracy, heartRate: heartRate)
    }

    init(_ m: ReaderPoint) {
        self.init(timeMs: m.timeMs, latitude: m.latitude, longitude: m.longitude, elevation: m.elevation, accuracy: m.accuracy,
                  heartRate: m.heartRate)
    }
}

extension ImportedWorkout {
    /// The message of this workout.
    public var message: ReaderWorkoutData {
        ReaderWorkoutData(activityType: activityType, startMs: startMs, endMs: endMs, distanceMeters: distanceMeters,
                          energyKilocalories: energyKilocalories, averageHeartRate: averageHeartRate, steps: steps.map(Int64.init),
                          route: route.map(\.message), name: name ?? "", hasName: name != nil, format: format,
                          distanceIsDevices: distanceIsDevices)
    }

    /// The workout a reader's message describes.
    /// - Parameter m: the message.
    public init(_ m: ReaderWorkoutData) {
        self.init(activityType: m.activityType, startMs: m.startMs, endMs: m.endMs, distanceMeters: m.distanceMeters,
                  energyKilocalories: m.energyKilocalories, averageHeartRate: m.averageHeartRate,
                  steps: m.steps.flatMap { Int(exactly: $0) }, route: m.route.map(LocationPoint.init), name: m.hasName ? m.name : nil,
                  format: m.format)
        distanceIsDevices = m.distanceIsDevices
    }
}

/// Bits of ReaderVisit.present and ReaderPlace.present: which optional names a message carries.
private struct Present: OptionSet {
    let rawValue: UInt32
    static let first = Present(rawValue: 1), second = Present(rawValue: 2), third = Present(rawValue: 4), fourth = Present(rawValue: 8)

    init(rawValue: UInt32) { self.rawValue = rawValue }

    init(_ values: String?...) {
        var bits: UInt32 = 0
        for (index, value) in values.enumerated() where value != nil { bits |= 1 << index }
        self.init(rawValue: bits)
    }

    func value(_ index: Int, _ text: String) -> String? { rawValue & (1 << index) != 0 ? text : nil }
}

extension ImportedData {
    /// The message of what an export's reader found.
    public var message: ReaderImportedData {
        ReaderImportedData(
            workouts: workouts.map(\.message),
            visits: visits.map {
                ReaderVisit(startMs: $0.startMs, endMs: $0.endMs, coordinate: ReaderCoordinate($0.coordinate), placeName: $0.placeName ?? "",
                            address: $0.address ?? "", semantic: $0.semantic ?? "", placeId: $0.placeID ?? "",
                            present: Present($0.placeName, $0.address, $0.semantic, $0.placeID).rawValue)
            },
            points: points.map(\.message),
            places: places.map {
                ReaderPlace(coordinate: ReaderCoordinate($0.coordinate), totalMs: $0.totalMs, visitCount: Int64($0.visitCount),
                            semantic: $0.semantic ?? "", semanticInferred: $0.semanticInferred, placeName: $0.placeName ?? "",
                            placeId: $0.placeID ?? "", present: Present($0.semantic, $0.placeName, $0.placeID).rawValue)
            },
            listens: listens.map {
                ReaderListen(startMs: $0.startMs, durationMs: $0.durationMs, artist: $0.artist, track: $0.track, album: $0.album,
                             isPodcast: $0.isPodcast, format: $0.format)
            },
            moods: moods.map {
                ReaderMood(startMs: $0.startMs, kind: $0.kind.rawValue, valence: $0.valence, labels: $0.labels.map(\.rawValue),
                           associations: $0.associations.map(\.rawValue), format: $0.format)
            },
            leftOut: leftOut.sorted { $0.key < $1.key }.map { ReaderCount(name: $0.key, count: Int64($0.value)) },
            contacts: contacts.map {
                ReaderContact(uid: $0.uid ?? "", hasUid: $0.uid != nil, name: $0.name, otherNames: $0.otherNames, emails: $0.emails,
                              photo: $0.photo ?? [], hasPhoto: $0.photo != nil, photoType: $0.photoType ?? "",
                              hasPhotoType: $0.photoType != nil, line: Int64($0.line))
            },
            events: events.map {
                ReaderEvent(uid: $0.uid, summary: $0.summary, location: $0.location, allDay: $0.allDay, timeZone: $0.timeZone,
                            attendees: $0.attendees.map { ReaderAttendee(name: $0.name, email: $0.email) },
                            occurrences: $0.occurrences.map { ReaderOccurrence(startMs: $0.startMs, endMs: $0.endMs, key: $0.key) },
                            recurrenceId: $0.recurrenceID, line: Int64($0.line))
            },
            motion: motion.map { ReaderMotion(startMs: $0.startMs, endMs: $0.endMs, steps: Int64($0.steps), running: $0.running, format: $0.format) },
            read: read.sorted { $0.key < $1.key }.map { ReaderCount(name: $0.key, count: Int64($0.value)) })
    }

    /// What a reader's message says it found.
    /// - Parameter m: the message.
    public init(_ m: ReaderImportedData) {
        self.init(workouts: m.workouts.map(ImportedWorkout.init), points: m.points.map(LocationPoint.init))
        visits = m.visits.map {
            let present = Present(rawValue: $0.present)
            return ImportedVisit(startMs: $0.startMs, endMs: $0.endMs, coordinate: ($0.coordinate ?? ReaderCoordinate()).coordinate,
                                 placeName: present.value(0, $0.placeName), address: present.value(1, $0.address),
                                 semantic: present.value(2, $0.semantic), placeID: present.value(3, $0.placeId))
        }
        places = m.places.map {
            let present = Present(rawValue: $0.present)
            return SignificantPlace(coordinate: ($0.coordinate ?? ReaderCoordinate()).coordinate, totalMs: $0.totalMs,
                                    visitCount: Int(clamping: $0.visitCount), semantic: present.value(0, $0.semantic),
                                    semanticInferred: $0.semanticInferred, placeName: present.value(1, $0.placeName),
                                    placeID: present.value(2, $0.placeId))
        }
        listens = m.listens.map {
            ImportedListen(startMs: $0.startMs, durationMs: $0.durationMs, artist: $0.artist, track: $0.track, album: $0.album,
                           isPodcast: $0.isPodcast, format: $0.format)
        }
        moods = m.moods.map {
            ImportedMood(startMs: $0.startMs, kind: StateOfMindKind(rawValue: $0.kind), valence: $0.valence,
                         labels: $0.labels.map(StateOfMindLabel.init(rawValue:)),
                         associations: $0.associations.map(StateOfMindAssociation.init(rawValue:)), format: $0.format)
        }
        leftOut = Dictionary(m.leftOut.map { ($0.name, Int(clamping: $0.count)) }, uniquingKeysWith: +)
        contacts = m.contacts.map {
            ImportedContact(uid: $0.hasUid ? $0.uid : nil, name: $0.name, otherNames: $0.otherNames, emails: $0.emails,
                            photo: $0.hasPhoto ? $0.photo : nil, photoType: $0.hasPhotoType ? $0.photoType : nil, line: Int(clamping: $0.line))
        }
        events = m.events.map {
            ImportedEvent(uid: $0.uid, summary: $0.summary, location: $0.location, allDay: $0.allDay, timeZone: $0.timeZone,
                          attendees: $0.attendees.map { EventAttendee(name: $0.name, email: $0.email) },
                          occurrences: $0.occurrences.map { ImportedEvent.Occurrence(startMs: $0.startMs, endMs: $0.endMs, key: $0.key) },
                          recurrenceID: $0.recurrenceId, line: Int(clamping: $0.line))
        }
        motion = m.motion.map {
            ImportedMotion(startMs: $0.startMs, endMs: $0.endMs, steps: Int(clamping: $0.steps), running: $0.running, format: $0.format)
        }
        read = Dictionary(m.read.map { ($0.name, Int(clamping: $0.count)) }, uniquingKeysWith: +)
    }

    /// Adds another part of the same file's data (a large export comes in parts).
    /// - Parameter other: the next part.
    public mutating func append(_ other: ImportedData) {
        workouts += other.workouts
        visits += other.visits
        points += other.points
        places += other.places
        listens += other.listens
        moods += other.moods
        leftOut.merge(other.leftOut, uniquingKeysWith: +)
        contacts += other.contacts
        events += other.events
        motion += other.motion
        read.merge(other.read, uniquingKeysWith: +)
    }

    /// This data cut into parts of at most about `size` entries each (routes count by their points),
    /// so no message is larger than a frame may be. Counts go with the first part.
    /// - Parameter size: entries per part.
    /// - Returns: the parts, at least one.
    public func parts(of size: Int) -> [ImportedData] {
        var parts: [ImportedData] = []
        var current = ImportedData(), weight = 0
        current.leftOut = leftOut
        current.read = read
        func add(_ cost: Int, _ put: (inout ImportedData) -> Void) {
            if weight > 0, weight + cost > size {
                parts.append(current)
                current = ImportedData()
                weight = 0
            }
            put(&current)
            weight += cost
        }
        for w in workouts { add(1 + w.route.count) { $0.workouts.append(w) } }
        for v in visits { add(1) { $0.visits.append(v) } }
        for p in points { add(1) { $0.points.append(p) } }
        for p in places { add(1) { $0.places.append(p) } }
        for l in listens { add(1) { $0.listens.append(l) } }
        for m in moods { add(1) { $0.moods.append(m) } }
        for c in contacts { add(1 + (c.photo?.count ?? 0) / 64) { $0.contacts.append(c) } }
        for e in events { add(1 + e.occurrences.count) { $0.events.append(e) } }
        for m in motion { add(1) { $0.motion.append(m) } }
        parts.append(current)
        return parts
    }
}
