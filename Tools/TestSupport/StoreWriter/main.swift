// pickerd-store-writer: a test helper. Writes batches of items into a store, one transaction per
// batch, and prints "ack N" after batch N has committed, until killed. The store tests kill it with
// SIGKILL mid-stream and check that every acknowledged batch survived.

import Foundation
import PickerdStore
import PickerdWire

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: pickerd-store-writer DATA-DIR\n".utf8))
    exit(2)
}

let store = try Store(dataDirectory: CommandLine.arguments[1])

/// The id of item `index` of batch `batch`: the test computes the same ids.
func itemID(batch: Int, index: Int) -> UUID {
    UUID(uuidString: String(format: "00000000-0000-4000-8000-%06x%06x", batch, index))!
}

for batch in 0..<100_000 {
    let items = (0..<50).map { index in
        LibraryItem(id: itemID(batch: batch, index: index),
                    asset: .reflection(Reflection(prompt: String(repeating: "batch \(batch) item \(index) ", count: 20),
                                                  color: Color(red: 0.5, green: 0.5, blue: 0.5, alpha: 1))),
                    startMs: Int64(batch * 1000 + index))
    }
    try store.insert(items)
    FileHandle.standardOutput.write(Data("ack \(batch)\n".utf8))
}
