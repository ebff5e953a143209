import Foundation
import PickerdDemoLibrary
import PickerdStore
import PickerdTestKit

/// One shared store seeded with the demo library, for the read-only engine tests (seeding takes a moment).
enum Seeded {
    static let shared: TemporaryStore = {
        let temporary = try! TemporaryStore()
        try! DemoLibrary.seed(into: temporary.store)
        return temporary
    }()
}
