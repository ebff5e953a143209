import Logging
import PickerdStore
import PickerdWire
import Synchronization

/// Says in pickerd's log, once per run, that the library is empty and how to fill it: the sentence
/// every picker shows then (``ReviewRequest/emptyLibrarySentence``, which PickerKit's
/// `PickerWords.emptyLibrary` is), so the journal says what the person saw.
///
/// At start when the store holds no suggestions and no source is waiting to be scanned; otherwise at
/// the first presentation that finds the library empty. Never again in that run, however many
/// presentations follow.
final class FirstRunNotice: Sendable {
    private let said = Atomic<Bool>(false)

    /// At start: says it when the store holds no suggestions and has no sources (a source's first
    /// scan may be about to fill it).
    func sayAtStart(store: Store, logger: Logger) {
        guard (try? store.suggestionCount()) == 0, (try? store.sources().isEmpty) == true else { return }
        say(logger)
    }

    /// Says it, unless it was said already in this run.
    func say(_ logger: Logger) {
        guard !said.exchange(true, ordering: .acquiringAndReleasing) else { return }
        logger.notice("\(ReviewRequest.emptyLibrarySentence)")
    }
}
