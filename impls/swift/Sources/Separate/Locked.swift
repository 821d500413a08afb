// State under a pthread mutex (Foundation's NSLock). Synchronization's Mutex would do, but on Linux
// it waits on raw futexes, which ThreadSanitizer cannot see, so every access it protects would be
// reported as a race; the library's tests run under TSan.

import Foundation

final class Locked<State>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    init(_ state: State) { self.state = state }

    func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
