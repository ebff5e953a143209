/// A walk or a run found in step counts (Apple Health's `StepCount` samples, a Gadgetbridge
/// device's minute samples): it becomes a MotionActivity item, as Core Motion's activity segments do.
public struct ImportedMotion: Sendable, Hashable {
    /// When it began, ms since 1970.
    public var startMs: Int64
    /// When it ended, ms since 1970.
    public var endMs: Int64
    /// Steps taken.
    public var steps: Int
    /// Whether its pace was a run's (140 steps a minute or more); otherwise a walk.
    public var running: Bool
    /// The format it came from: `apple-health`, `gadgetbridge`.
    public var format: String

    /// Creates a walk or run.
    public init(startMs: Int64, endMs: Int64, steps: Int, running: Bool, format: String) {
        self.startMs = startMs
        self.endMs = endMs
        self.steps = steps
        self.running = running
        self.format = format
    }
}

/// Step-count samples as an export holds them, kept compactly (16 bytes each, to
/// ``maximumSamples``), and what is made of them:
/// - a workout's steps: per source, each sample counted by the share of it inside the workout,
///   and the source that counted most taken (a phone and a watch both count the same steps; Apple's
///   Health app picks one source too, rather than adding them);
/// - walks and runs: per source, moving samples (40 steps a minute or more) with gaps of at most
///   5 minutes between them, at least 10 minutes and 1,000 steps long; where two sources' walks
///   overlap, the one with more steps; those at least half inside a workout are left to the workout.
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
        // One walk where sources overlap: the one that counted most.
        var kept: [ImportedMotion] = []
        for bout in found.sorted(by: { ($0.steps, $1.startMs) > ($1.steps, $0.startMs) }) {
            if kept.contains(where: { $0.startMs < bout.endMs && bout.startMs < $0.endMs }) { continue }
            let inside = workouts.reduce(Int64(0)) { $0 + max(0, min($1.upperBound, bout.endMs) - max($1.lowerBound, bout.startMs)) }
            if inside * 2 >= bout.endMs - bout.startMs { continue }
            kept.append(bout)
        }
        return kept.sorted { $0.startMs < $1.startMs }
    }
}
