// A handler without a queue of queues, under `none`, `dynamic` and `static` (the paper's None): one
// queue, which a client holds for its whole block under the block lock (AsyncLock.swift), and wait
// conditions tested by the client itself: it gives the lock back while its condition is false and
// tries again once a block that may have changed the object has ended (the version below moved).

@usableFromInline
final class LockedBlocks: @unchecked Sendable {
    /// The handler's one queue: its clients take turns to log into it, one block at a time.
    @usableFromInline let queue: PrivateQueue
    @usableFromInline let lock = AsyncLock()
    // A version that changes after every block that may have changed the object, with the clients
    // waiting for it to change.
    private let changes = Locked<(version: Int, waiters: [@Sendable () -> Void])>((0, []))

    init(_ queue: PrivateQueue) { self.queue = queue }

    /// Takes the block lock: at once where it is free, else by suspending until it is granted.
    @inlinable @inline(__always)
    func take(on pool: Pool) async {
        if !lock.tryAcquire() { await lock.acquire(on: pool) }
    }

    var version: Int { changes.withLock { $0.version } }

    /// Calls `wake` once the version differs from `seen` (at once if it already does).
    func onChange(from seen: Int, _ wake: @escaping @Sendable () -> Void) {
        let now = changes.withLock { state -> Bool in
            if state.version != seen { return true }
            state.waiters.append(wake)
            return false
        }
        if now { wake() }
    }

    /// A block that may have changed the object has ended: a new version, and every waiter woken.
    func changed() {
        let waiters = changes.withLock { state -> [@Sendable () -> Void] in
            state.version &+= 1
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter() }
    }
}
