// The lock a block holds on its handler under `none`, `dynamic` and `static` (the paper's None:
// one queue per handler, locked by a client for its whole block). A task waits for it by
// suspending, never by blocking its thread.
//
// It is not first come, first served. A client that ends a block and reserves the handler again
// at once may take the lock back before a waiter woken meanwhile runs, as with a pthread mutex or
// Go's sync.Mutex: handing the lock to the next waiter at every release makes each block of a busy
// handler cost a task switch (a convoy). One waiter at a time is woken to try
// again; one that finds the lock taken waits again at the head of the line. And once the lock has
// been taken `takesOverWaiters` times over waiting clients' heads, the next release hands it to the first
// of them, so none starves, not even behind a client that never suspends.

@usableFromInline
final class AsyncLock: @unchecked Sendable {
    /// Takes over waiting clients' heads before the lock is handed to the first of them.
    static var takesOverWaiters: Int { 16 }

    private let guardLock = SpinLock()
    private var locked = false
    /// Waiting, first at `head`; each resumed with true when handed the lock, false to try again.
    private var waiters: [UnsafeContinuation<Bool, Never>] = []
    private var head = 0
    /// A waiter has been woken to try again and has not yet: no other is woken meanwhile.
    private var woken = false
    /// Takes since the lock was last handed over, while clients waited.
    private var barged = 0
    /// The lock is handed to the waiter woken to try again, which has not run yet.
    private var keptForWoken = false

    init() {}

    private var hasWaiters: Bool { woken || head < waiters.count }

    /// How many clients wait for the lock (a reading for tests).
    var waiting: Int {
        guardLock.lock()
        defer { guardLock.unlock() }
        return waiters.count - head + (woken ? 1 : 0)
    }

    /// Takes the lock if it is free (`retrying`: as the waiter woken to try again).
    private func tryLock(retrying: Bool) -> Bool {
        guardLock.lock()
        defer { guardLock.unlock() }
        if retrying {
            woken = false
            if keptForWoken {   // `locked` is set already, for this waiter
                keptForWoken = false
                return true
            }
        }
        return takeIfFree()
    }

    /// Takes the lock if it is free, counting a take over waiting clients' heads; `guardLock` held.
    private func takeIfFree() -> Bool {
        if locked { return false }
        locked = true
        if hasWaiters { barged += 1 }
        return true
    }

    /// Takes the lock if it is free, without suspending: the common path, inlined into the client
    /// (`acquire` is `@concurrent`, and a call to it costs its executor check even when the lock is free).
    @usableFromInline
    func tryAcquire() -> Bool { tryLock(retrying: false) }

    @usableFromInline
    @concurrent func acquire(on pool: Pool) async {
        if tryLock(retrying: false) { return }
        var retrying = false
        while true {
            let handed = await _unsafeInheritExecutor_withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
                pool.whenSuspended { [retrying] in self.wait(continuation, atHead: retrying) }
            }
            if handed || tryLock(retrying: true) { return }
            retrying = true
        }
    }

    /// Once the waiting task is off its thread: takes the lock if it came free meanwhile, else
    /// joins the waiters (at the head if it was woken and found the lock taken).
    private func wait(_ continuation: UnsafeContinuation<Bool, Never>, atHead: Bool) {
        guardLock.lock()
        if takeIfFree() {
            guardLock.unlock()
            continuation.resume(returning: true)
            return
        }
        if !atHead {
            waiters.append(continuation)
        } else if head > 0 {
            head -= 1
            waiters[head] = continuation
        } else {
            waiters.insert(continuation, at: 0)
        }
        guardLock.unlock()
    }

    @usableFromInline
    func release() {
        guardLock.lock()
        if !hasWaiters {
            locked = false
            barged = 0
            guardLock.unlock()
            return
        }
        // Handing over, `locked` stays set: the lock passes to the waiter.
        if barged >= AsyncLock.takesOverWaiters {
            barged = 0
            if woken {   // the waiter already woken is the first: it takes the lock when it runs
                keptForWoken = true
                guardLock.unlock()
                return
            }
            let first = popFirst()
            guardLock.unlock()
            first.resume(returning: true)
            return
        }
        locked = false
        if woken {   // the one woken will try
            guardLock.unlock()
            return
        }
        woken = true
        let first = popFirst()
        guardLock.unlock()
        first.resume(returning: false)
    }

    private func popFirst() -> UnsafeContinuation<Bool, Never> {
        let first = waiters[head]
        head += 1
        if head == waiters.count {
            waiters.removeAll(keepingCapacity: true)
            head = 0
        }
        return first
    }
}
