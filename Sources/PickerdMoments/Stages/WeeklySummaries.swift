import Foundation
import PickerdStore
import PickerdWire

/// Weekly summaries, from whatever the week holds: its workouts (or a workout group an app gave),
/// its days out, its movement, a few photos, its moods and what it sounded like. A week with only
/// one kind of thing is not summed up (``MomentTuning/weekMinimumKinds``). A summary takes no item:
/// it shows what the week's moments hold.
struct WeeklySummaries: MomentStage {
    func run(_ input: StageInput, claims: inout Claims, found: inout [Moment]) {
        let items = input.timeline.items, time = input.time, tuning = input.tuning
        var summarized = Set<Int64>()
        for group in items where group.kind == .workoutGroup {
            let (start, end, _) = time.week(of: group.endMs, offset: group.utcOffsetSeconds)
            summarized.insert(start)
            found.append(Moment(kind: .weeklySummary, anchor: start, place: "", items: [group] + contents(start, end, input),
                                caption: routine(start, end, input, claims)))
        }
        var weeks = LocalTime.WeekStarts(time)
        for start in Set(items.map { weeks.start(of: $0.startMs, offset: $0.utcOffsetSeconds) }).sorted() where !summarized.contains(start) {
            let contents = contents(start, start + Duration.days(7).ms, input)
            let kinds = Set(contents.map { $0.isPhotoOrVideo ? .photo : $0.kind })
            guard kinds.count >= tuning.weekMinimumKinds,
                  contents.contains(where: { $0.kind == .workout }) || contents.count >= tuning.weekMinimumItems else { continue }
            found.append(Moment(kind: .weeklySummary, anchor: start, place: "", items: contents,
                                caption: routine(start, start + Duration.days(7).ms, input, claims)))
        }
    }

    /// The week's routine workouts counted, as routine visits are, in its title: "18 rides to work,
    /// 96 km" (the distance when they say one), most first, each kind once ("; " between); `nil`
    /// when the week has none.
    func routine(_ start: Int64, _ end: Int64, _ input: StageInput, _ claims: Claims) -> String? {
        var byLabel: [RoutineLabel: (count: Int, metres: Double)] = [:]
        for workout in input.within(start, end - 1, kinds: [.workout]) {
            guard let label = claims.routine[workout.id] else { continue }
            let metres: Double = if case .workout(let w) = workout.asset, let d = w.details?.distance, d.value > 0 {
                d.unit == "km" ? d.value * 1000 : d.value
            } else { 0 }
            byLabel[label, default: (0, 0)].count += 1
            byLabel[label, default: (0, 0)].metres += metres
        }
        guard !byLabel.isEmpty else { return nil }
        return byLabel.sorted { ($0.value.count, $1.key.many) > ($1.value.count, $0.key.many) }.map { label, sum in
            let count = "\(sum.count) \(sum.count == 1 ? label.one : label.many)"
            let km = Int((sum.metres / 1000).rounded())
            return km > 0 ? "\(count), \(km) km" : count
        }.joined(separator: "; ")
    }

    /// What a week's summary shows, from `start` to `end`: its workouts, days out, the most steps,
    /// a few photos spread over it, its first moods, and the artist and the show played most (a
    /// play of each).
    func contents(_ start: Int64, _ end: Int64, _ input: StageInput) -> [LibraryItem] {
        let tuning = input.tuning, items = input.timeline.items
        // One walk through the week, each kind's items in time order.
        var workouts: [LibraryItem] = [], places: [LibraryItem] = [], motion: [LibraryItem] = [], photos: [LibraryItem] = []
        var moods: [LibraryItem] = []
        // Plays counted by artist and by show, with the position of each one's first.
        var songs: [String: (count: Int, first: Int)] = [:], shows: [String: (count: Int, first: Int)] = [:]
        for index in input.timeline.indices(startingIn: start, end - 1) {
            let item = items[index]
            switch item.asset {
            case .workout: workouts.append(item)
            case .locationGroup: places.append(item)
            case .motionActivity: motion.append(item)
            case .photo, .livePhoto, .video: photos.append(item)
            case .stateOfMind: if moods.count < tuning.weekMoods { moods.append(item) }
            case .song(let song): songs[song.artist, default: (0, index)].count += 1
            case .podcast(let podcast): shows[podcast.show, default: (0, index)].count += 1
            default: break
            }
        }
        let spread = photos.count <= tuning.weekPhotos ? photos : (0..<tuning.weekPhotos).map { photos[$0 * photos.count / tuning.weekPhotos] }
        // What the week sounded like: the artist and the show played most, the first name in order
        // when two are played as often (everyday listening is no suggestion of its own,
        // ``ListeningMoments``: it is here).
        let listening = [songs, shows].compactMap { plays in
            plays.max { ($0.value.count, $1.key) < ($1.value.count, $0.key) }.map { items[$0.value.first] }
        }
        return workouts + places + Array(motion.sorted { $0.steps > $1.steps }.prefix(tuning.weekMotion)) + spread + moods + listening
    }
}
