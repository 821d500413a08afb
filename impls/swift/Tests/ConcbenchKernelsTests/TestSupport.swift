import Dispatch
import Foundation

/// Hands a value from the helper thread to the waiter; written before the signal,
/// read after it.
private final class Outbox<T>: @unchecked Sendable {
    var value: T?
}

/// Runs a blocking kernel on a thread of its own (not a GCD worker, which would
/// take one from the pool under test) and waits at most `seconds`. Returns nil if
/// it did not finish: the kernel cannot be cancelled, so its thread is left behind.
func finishing<T: Sendable>(within seconds: Double, _ body: @escaping @Sendable () -> T) -> T? {
    let box = Outbox<T>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.value = body()
        done.signal()
    }
    thread.start()
    guard done.wait(timeout: .now() + seconds) == .success else { return nil }
    return box.value
}
