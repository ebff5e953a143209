// The one choke point for system calls (as swift-nio's `syscall(blocking:)` and swift-system's
// `valueOrErrno(retryOnInterrupt:)`): retries EINTR, throws errors carrying `Errno`, and traps on
// EBADF and EFAULT, which only a bug in this process can cause.

import SystemPackage


import Glibc




/// Runs a system call that returns -1 and sets `errno` on failure.
/// - Parameters:
///   - name: the call's name, for the error message.
///   - retryOnInterrupt: whether EINTR restarts the call.
///   - body: the call.
/// - Returns: the call's non-negative result.
/// - Throws: `TransportError` `.systemCall` with the `Errno`.
@discardableResult
func syscall<Result: FixedWidthInteger>(
    _ name: String, retryOnInterrupt: Bool = true, _ body: () -> Result
) throws(TransportError) -> Result {
    while true {
        let result = body()
        guard result == -1 else { return result }
        let error = Errno(rawValue: errno)
        if error == .interrupted && retryOnInterrupt { continue }
        if error == .badFileDescriptor || error == .badAddress {
            preconditionFailure("\(name) failed with \(error): a descriptor or buffer bug in this process")
        }
        throw TransportError(.systemCall, "\(name) failed: \(error) (errno \(error.rawValue))", errno: error)
    }
}
