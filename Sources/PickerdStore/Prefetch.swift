import Dispatch
import Synchronization

/// Work started on another thread while the caller goes on with its own: the next file of an import
/// read by its reader while this one is written, the next span of a rebuild read from the store
/// while this one is built. Two cores, two halves of one job.
public final class Prefetch<Value: Sendable>: Sendable {
    private let result = Mutex<Result<Value, StoreError>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Starts `work` on another thread.
    /// - Parameter work: what to do; what it returns, or throws, is ``value()``'s.
    public init(_ work: @escaping @Sendable () throws(StoreError) -> Value) {
        DispatchQueue.global().async { [self] in
            let outcome: Result<Value, StoreError>
            do throws(StoreError) { outcome = .success(try work()) } catch { outcome = .failure(error) }
            finish(outcome)
        }
    }

    private func finish(_ outcome: Result<Value, StoreError>) {
        result.withLock { $0 = outcome }
        done.signal()
    }

    /// What the work returned, once it is done (waits for it).
    /// - Throws: what the work threw.
    public func value() throws(StoreError) -> Value {
        done.wait()
        done.signal()  // a second call does not wait for ever
        return try result.withLock { $0! }.get()
    }
}
