import PickerdImport

/// Step-count samples as an export holds them, kept compactly (16 bytes each, to
/// ``maximumSamples``), and what is made of them:
/// - a workout's steps: per source, each sample counted by the share of it inside the workout,
///   and the source that counted most taken (a phone and a watch both count the same steps; Apple's
///   Health app picks one source too, rather than adding them);
/// - walks and runs: per source, moving samples (40 steps a minute or more) with gaps of at most
///   5 minutes between them, at least 10 minutes and 1,000 steps long; where two sources' walks
///   overlap, the one with more steps; those at least half inside a workout are left to the workout.
///   Both cost n log n in walks and workouts (a file crafted with a million walks stays linear).
struct StepSamples {
    struct Sample {
        /// Seconds since 1970.
        var start: UInt32
        var end: UInt32
        var steps: Float
        var source: UInt16
    }

    /// The most samples kept; past it, samples are counted in ``dropped`` and left out.
    static let maximumSamples = 5_000_000
    /// The most distinct sources told apart.
    static let maximumSources = 4_096

    private(set) var samples: [Sample] = []
    private var sourceIndex: [String: UInt16] = [:]
    /// Samples left out past ``maximumSamples``, or malformed (negative, over 100,000 steps, ending before they start).
    private(set) var dropped = 0
    private var sorted = true

    /// Adds a sample.
    mutating func add(startMs: Int64, endMs: Int64, steps: Double, source: String) {
        guard samples.count < Self.maximumSamples, steps.isFinite, steps >= 0, steps <= 100_000, endMs >= startMs,
              startMs >= 0, endMs / 1000 < Int64(UInt32.max) else {
            dropped += 1
            return
        }
        var index = sourceIndex[source]
        if index == nil {
            guard sourceIndex.count < Self.maximumSources else {
                dropped += 1
                return
            }
            index = UInt16(sourceIndex.count)
            sourceIndex[source] = index
        }
        let sample = Sample(start: UInt32(startMs / 1000), end: UInt32(endMs / 1000), steps: Float(steps), source: index!)
        if let last = samples.last, (last.source, last.start) > (sample.source, sample.start) { sorted = false }
        samples.append(sample)
    }

    /// Sorts by source, then time: call once all samples are in.
    mutating func finish() {
        if !sorted { samples.sort { ($0.source, $0.start) < ($1.source, $1.start) } }
        sorted = true
    }

    /// What a watch's export does with its step samples once they are all in: the steps of each
    /// run, walk or hike that has none of its own, the walks outside workouts as motion, and the
    /// samples left out counted (Apple Health's export and Gadgetbridge's database alike).
    /// - Parameters:
    ///   - data: the export's data so far, its workouts read.
    ///   - format: the export's format, for the motion items.
    mutating func fold(into data: inout ImportedData, format: String) {
        finish()
        for index in data.workouts.indices where [HealthKitActivity.running, HealthKitActivity.walking, HealthKitActivity.hiking]
            .contains(data.workouts[index].activityType) && data.workouts[index].steps == nil {
            data.workouts[index].steps = steps(from: data.workouts[index].startMs, to: data.workouts[index].endMs)
        }
        data.motion = bouts(outside: data.workouts.map { $0.startMs...$0.endMs }, format: format)
        if dropped > 0 { data.leftOut["step samples left out (malformed, or past \(Self.maximumSamples))"] = dropped }
    }

    /// The steps inside `start...end` (ms), by the source that counted most; `nil` when none did.
    func steps(from start: Int64, to end: Int64) -> Int? {
        let s = Double(start) / 1000, e = Double(end) / 1000
        var best = 0.0
        var index = 0
        while index < samples.count {
            let source = samples[index].source
            // The first of this source's samples that may reach into the window (they are sorted by start).
            var low = index, high = samples.count
            while low < high {
                let mid = (low + high) / 2
                if samples[mid].source < source || (samples[mid].source == source && Double(samples[mid].start) < s - 86_400) {
                    low = mid + 1
                } else {
                    high = mid
                }
            }
            var total = 0.0
            var i = low
            while i < samples.count, samples[i].source == source, Double(samples[i].start) <= e {
                let sample = samples[i]
                let a = max(s, Double(sample.start)), b = min(e, Double(sample.end))
                if b > a || (sample.start == sample.end && a == b) {
                    let length = Double(sample.end) - Double(sample.start)
                    total += length > 0 ? Double(sample.steps) * (b - a) / length : Double(sample.steps)
                }
                i += 1
            }
            best = max(best, total)
            // The next source.
            var next = i
            while next < samples.count, samples[next].source == source { next += 1 }
            index = next
        }
        return best >= 1 ? Int(best.rounded()) : nil
    }

    /// How long `bout` is inside `spans` (workouts sorted by start; those longer than a week are not
    /// looked back for).
    static func inside(_ bout: ImportedMotion, _ spans: [ClosedRange<Int64>]) -> Int64 {
        var low = 0, high = spans.count
        let from = bout.startMs - 7 * 86_400_000
        while low < high {
            let mid = (low + high) / 2
            if spans[mid].lowerBound < from { low = mid + 1 } else { high = mid }
        }
        var total: Int64 = 0
        var i = low
        while i < spans.count, spans[i].lowerBound < bout.endMs {
            total += max(0, min(spans[i].upperBound, bout.endMs) - max(spans[i].lowerBound, bout.startMs))
            i += 1
        }
        return total
    }

    /// Walks and runs, outside the given workouts (ms), `format` naming where they came from.
    func bouts(outside workouts: [ClosedRange<Int64>], format: String) -> [ImportedMotion] {
        var found: [ImportedMotion] = []
        var i = 0
        while i < samples.count {
            let source = samples[i].source
            var boutStart: UInt32 = 0, boutEnd: UInt32 = 0
            var steps = 0.0
            var open = false
            func close() {
                guard open else { return }
                open = false
                let minutes = Double(boutEnd - boutStart) / 60
                guard minutes >= 10, steps >= 1_000 else { return }
                found.append(ImportedMotion(startMs: Int64(boutStart) * 1000, endMs: Int64(boutEnd) * 1000, steps: Int(steps.rounded()),
                                            running: steps / minutes >= 140, format: format))
            }
            while i < samples.count, samples[i].source == source {
                let sample = samples[i]
                i += 1
                let minutes = max(Double(sample.end) - Double(sample.start), 60) / 60
                guard Double(sample.steps) / minutes >= 40 else { continue }
                if open, sample.start <= boutEnd &+ 300 {
                    boutEnd = max(boutEnd, sample.end)
                    steps += Double(sample.steps)
                } else {
                    close()
                    open = true
                    boutStart = sample.start
                    boutEnd = max(sample.end, sample.start &+ 60)
                    steps = Double(sample.steps)
                }
            }
            close()
        }
        // One walk where sources overlap: the one that counted most. Overlapping walks are taken a
        // cluster at a time (walks sorted by start, a cluster runs while the next starts before the
        // cluster's end), so a file of many walks costs n log n, not n².
        found.sort { ($0.startMs, $0.endMs) < ($1.startMs, $1.endMs) }
        let spans = workouts.sorted { $0.lowerBound < $1.lowerBound }
        var kept: [ImportedMotion] = []
        var index = 0
        while index < found.count {
            var end = found[index].endMs
            var next = index + 1
            while next < found.count, found[next].startMs < end {
                end = max(end, found[next].endMs)
                next += 1
            }
            var chosen: [ImportedMotion] = []
            for bout in found[index..<next].sorted(by: { ($0.steps, $1.startMs) > ($1.steps, $0.startMs) }) {
                if chosen.contains(where: { $0.startMs < bout.endMs && bout.startMs < $0.endMs }) { continue }
                if Self.inside(bout, spans) * 2 >= bout.endMs - bout.startMs { continue }
                chosen.append(bout)
            }
            kept += chosen
            index = next
        }
        return kept.sorted { $0.startMs < $1.startMs }
    }
}
