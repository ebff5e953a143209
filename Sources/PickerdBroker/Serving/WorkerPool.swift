import Foundation
import Synchronization

/// A fixed set of threads that run submitted jobs in order of arrival. pickerd's thread count is
/// bounded by these pools, however many connections are open.
final class WorkerPool: Sendable {
    private let jobs = Mutex<Jobs>(Jobs())
    private let available = DispatchSemaphore(value: 0)
    private let threads: Int

    private struct Jobs {
        var waiting: [@Sendable () -> Void] = []
        var stopping = false
    }

    /// Starts `threads` threads named `name`.
    init(name: String, threads: Int) {
        self.threads = threads
        for _ in 0..<threads {
            let thread = Thread { [self] in work() }
            thread.name = name
            thread.start()
        }
    }

    /// Runs `job` on one of the pool's threads.
    func submit(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.waiting.append(job) }
        available.signal()
    }

    /// Lets the threads finish the jobs already submitted, then end.
    func stop() {
        jobs.withLock { $0.stopping = true }
        for _ in 0..<threads { available.signal() }
    }

    private func work() {
        while true {
            available.wait()
            let next = jobs.withLock { jobs -> (@Sendable () -> Void)? in
                jobs.waiting.isEmpty ? nil : jobs.waiting.removeFirst()
            }
            guard let next else {
                if jobs.withLock({ $0.stopping && $0.waiting.isEmpty }) { return }
                continue
            }
            next()
        }
    }
}
