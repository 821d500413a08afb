// A handler without a queue of queues, under `none`, `dynamic` and `static` (the paper's None): its
// one queue (HandlerCore.shared) is held by a client for its whole block under the block lock
// (AsyncLock.swift), and wait conditions are tested by the client itself: it gives the lock back
// while its condition is false and tries again once a block that may have changed the object has
// ended (the version below moved). Held by the handler in a `let`: the clients reach the lock with
// no reference counted, as they would through a `var`.

@usableFromInline
final class LockedBlocks: @unchecked Sendable {
    @usableFromInline let lock = AsyncLock()
    // A version that changes after every block that may have changed the object, with the clients
    // waiting for it to change.
    private let changes = Locked<(version: Int, waiters: [@Sendable () -> Void])>((0, []))

    init() {}

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
