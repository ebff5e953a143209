/// Every threshold and weight of the moments engine's stages and ranking, named, with its reason, in
/// one value (the article, Sources/PickerdMoments/README.md, lists them as its method). The engine
/// runs with ``standard``; tests may build with other values to see a rule alone.
///
/// Known places (home, work, frequent places) keep theirs in ``KnownPlaces`` and stays from photos in
/// ``PhotoStays``, where their method is described; how rotation lowers what was shown and released is
/// the store's (`Store.Rotation`), because the store ranks its candidates by it in SQL.
public struct MomentTuning: Sendable, Hashable {
    // MARK: Moments

    /// The most items a suggestion holds (as Apple's picker).
    public var maxItems = 13
    /// How far from home a day counts as away (a trip's day), in metres: farther than a day's outing
    /// in town, as the stay-point literature's trips and Apple's "trip" suggestions are.
    public var awayDistance = 50_000.0
    /// The fewest consecutive days away that make a trip.
    public var minimumTripDays = 2
    /// How long before the first thing far from home, or after the last, the stay at a known place it
    /// left from or came back to may end or begin and still bound a trip.
    public var tripEdge = Duration.hours(6)
    /// How far before or after a workout its photos, music and mood may lie and still be part of it.
    public var workoutMargin = Duration.minutes(10)
    /// How far back a visit that holds a workout may have begun (the night's stay it started from).
    public var workoutVisitLookback = Duration.hours(12)
    /// How far back a workout that holds a visit may have begun (a visit during a workout is the
    /// workout's, never an outing of its own).
    public var visitWorkoutLookback = Duration.hours(6)
    /// How far before or after a stay its photos, people and music may lie (outside any other stay).
    public var stayMargin = Duration.minutes(15)
    /// How long a stay at a place that is not routine makes an outing by itself (an evening at a bar
    /// with no photo is still one).
    public var outingAlone = Duration.minutes(45)
    /// How long nothing happens at home before what follows is another moment (a cake in the oven is
    /// still the same afternoon).
    public var homePause = Duration.hours(3)
    /// The fewest photos and videos that make a run of them a moment of its own.
    public var minimumPhotoRun = 3
    /// The longest pause within a run of photos near home (within ``nearHome`` of it): the person's
    /// usual, an hour.
    public var photoPauseNearHome = Duration.hours(1)
    /// The longest pause within a run of photos away: three hours (a day out has long gaps).
    public var photoPauseAway = Duration.hours(3)
    /// How far the person moves, in metres, before the next photo starts another run.
    public var photoRunMove = 2_000.0
    /// How far from a known place's centre a visit is still there, in metres: the places are clusters
    /// of visits by distance, so the bar round the corner is not home and the café visited every
    /// morning is routine however its fixes scatter.
    public var knownPlaceRadius = 150.0
    // MARK: Routine workouts and listening

    /// A workout is a **routine route** when its route runs between two different known places
    /// (home, work, a frequent place: the commute) and the same activity between the same two places
    /// was done on at least this many distinct days ("several days": three rides to work in six
    /// weeks are the way to work, one is an outing).
    public var routineRouteDays = 3
    /// A workout is a **routine session** when it was at a frequent place or work (a visit there holds
    /// most of it: the gym, the climbing wall) and the same activity was done there on at least
    /// ``routineSessionDays`` distinct days in at least ``routineSessionWeeks`` distinct weeks
    /// ("most weeks": the frequent places' four days, and not one holiday week's).
    public var routineSessionDays = 4, routineSessionWeeks = 2
    /// How far either side of a workout its repeats are counted: never more than the engine reads
    /// around a window (``MomentEngine``'s 21 days), so a workout is routine or not whichever window
    /// builds it.
    public var routineLookaround = Duration.days(21)
    /// How far from a known place's centre a route may start or end and still be from or to it, in
    /// metres: a bike is unlocked in the street, a watch finds its fix a block away (twice the
    /// visits' ``knownPlaceRadius``).
    public var routeEndRadius = 300.0
    /// A routine workout this many times as long as the route's usual (the median of its repeats: by
    /// distance where known, else by time) is notable again: the long way home.
    public var routineLonger = 1.5
    /// A person met in this many distinct weeks within ``routineLookaround`` is routine (the
    /// colleague at the weekly meeting): no moment of their own, alone or as a calendar event's only
    /// people; they still join an outing, an evening or photos they were part of.
    public var routinePersonWeeks = 3
    /// A week's listening of one album is an album played through when this many of its tracks were
    /// played within ``albumSitting`` of each other.
    public var albumTracks = 5, albumSitting = Duration.hours(2)
    /// A week's listening of one artist (or show) is of someone **new to the person** when it holds at
    /// least ``newArtistPlays`` plays and none in the ``newArtistLookback`` before the week, while
    /// those days hold at least ``newArtistHistory`` plays of others, one of them in the lookback's
    /// first week (in a library's first weeks every artist is new, and none stands out). The lookback
    /// is within what the engine reads around a window.
    public var newArtistPlays = 3, newArtistLookback = Duration.days(21), newArtistHistory = 10

    /// A week's summary: how many of its photos it spreads over the week, how many days with the most
    /// steps, how many moods.
    public var weekPhotos = 4, weekMotion = 3, weekMoods = 2
    /// A week is summed up when it holds at least this many kinds of thing, and a workout or
    /// ``weekMinimumItems`` things: a week with only one kind of thing is not.
    public var weekMinimumKinds = 2, weekMinimumItems = 5

    // MARK: Ranking

    /// How meaningful each kind of moment is before its contents: trips most, then weekly summaries,
    /// outings (more with someone), workouts (more with photos), runs of photos (more the more
    /// photos: up to one more at a hundred), time at home, reflections, people, listening, moods, motion.
    public var kindScores = KindScores()
    /// What each kind of item in a moment adds: a moment of photos, a place and a person is richer
    /// than one of photos alone.
    public var varietyPerKind = 0.25
    /// What a calendar event naming a moment adds: the person marked it as worth keeping.
    public var eventBonus = 1.0
    /// What recency adds at most, for a moment that ended with the library's newest.
    public var recencyWeight = 2.0
    /// Recency's scale: it falls by e every this many days before the library's newest moment (half in
    /// about five days).
    public var recencyDays = 7.0
    /// What a kind already among Recommended's last ``repeatWindow`` picks costs, each time: kinds mix.
    public var repeatPenalty = 1.5
    /// How many of Recommended's last picks ``repeatPenalty`` looks back over.
    public var repeatWindow = 3
    /// The most suggestions Recommended holds: a short list a person scrolls, not the library.
    public var recommendedLimit = 24
    /// Whether Recommended holds highlights only (``SuggestionBuilder/isHighlight(_:)``): a trip, a
    /// week, a person, a prompt, a moment of two categories or more. Off, it chooses among every kind
    /// as before issue 42 (`Tools/bench-moments` measures both from one store).
    public var recommendHighlightsOnly = true
    /// The most suggestions of one kind Recommended holds.
    public var recommendedPerKind = 3
    /// How many candidates of each kind Recommended considers (best by rank, and newest).
    public var candidatesPerKind = 12
    /// "On this day": a moment on today's date at least this many days ago (so, in an earlier year)…
    public var onThisDayAge = Duration.days(300)
    /// …up to this many of them…
    public var onThisDayLimit = 3
    /// …each with this added to its score.
    public var onThisDayBonus = 2.5

    /// The base score of each kind of moment (``kindScores``).
    public struct KindScores: Sendable, Hashable {
        /// A trip; a week's summary.
        public var trip = 5.0, weeklySummary = 3.5
        /// An outing; one with someone.
        public var outing = 3.0, outingWithSomeone = 4.0
        /// A workout; one with photos.
        public var workout = 2.5, workoutWithPhotos = 3.0
        /// A run of photos: this, plus up to ``photosForMore`` more as log10(photos) / 2.
        public var photos = 2.0, photosForMore = 1.0
        /// Time at home, a reflection prompt, a person, listening or reading, a mood, anything else.
        public var timeAtHome = 1.8, reflection = 1.6, contact = 1.4, media = 1.2, stateOfMind = 1.0, other = 0.8

        /// The engine's scores.
        public init() {}
    }

    /// The engine's values (``standard``), to change one or two.
    public init() {}

    /// The engine's values.
    public static let standard = MomentTuning()
}
