import Foundation
import PickerdLibrary
import PickerdStore
import PickerdTestKit

/// One shared seeded store for the read-only library tests (seeding takes a moment).
enum Seeded {
    static let shared: TemporaryStore = {
        let temporary = try! TemporaryStore()
        try! DemoLibrary.seed(into: temporary.store)
        return temporary
    }()
}
