// A handler (SCOOP's processor): it owns objects and runs, one at a time and in order, the calls
// its clients log. Its request queue is a queue of queues (Sec. 2, Fig. 4): clients put private
// queues in it; the handler takes them in order and runs each one's calls until its END
// (Fig. 7, the RUN and END rules).
//
// A handler is not a thread. It runs on its runtime's pool only while it has work: every push into
// its queue of queues or into one of its private queues counts one in `pending`, and the push that
// takes `pending` from 0 to 1 submits the handler to the pool. The loop drains what it can and then
// gives back what it has seen; it keeps going only if more came meanwhile. So exactly one run is
// ever in flight and a handler waiting for its current client to log more costs no thread.

import Foundation
import Synchronization

enum Request {
    case call(@Sendable () -> Void)
    /// A call that is a client itself: it may reserve other handlers, so it may suspend.
    case act(@Sendable (Client) async -> Void)
    case sync(UnsafeContinuation<Void, Never>)
    case end
}

/// One client's queue for one handler: the client logs, the handler runs.
final class PrivateQueue: @unchecked Sendable {
    let requests = SPSCQueue<Request>()
    let core: HandlerCore
    // Client side only: the handler has run everything logged so far and waits on this queue
    // (dynamic sync coalescing, Sec. 3.4.1).
    var synced = false
    // Released by the handler before it resumes a client from a sync, acquired by the client after:
    // what the handler's calls wrote happens before the client's query reads it. (The resumption
    // orders them too, inside the concurrency runtime, where ThreadSanitizer cannot see it.)
    let handedOver = Atomic<Int>(0)

    init(core: HandlerCore) { self.core = core }

    func log(_ request: Request) {
        requests.push(request)
        core.wake()
    }
}

/// What a handler is, whatever the type of the object it owns.
public final class HandlerCore: @unchecked Sendable {
    public let id: Int
    let runtime: Runtime
    let queues = MPSCQueue<PrivateQueue>()
    private let pending = Atomic<Int>(0)
    // Held while a multi-reservation puts its private queues in several queues of queues, so two
    // of them are in the same order everywhere (Sec. 3.3).
    let reservation = NSLock()
    // The `none` configuration: one client at a time for a whole block.
    let blockLock = AsyncLock()
    // Wait conditions: a version that changes whenever a block ran calls here, and the clients
    // waiting for it to change.
    private let changes = Locked<(version: Int, waiters: [@Sendable () -> Void])>((0, []))
    // Only the running loop touches these.
    private var current: PrivateQueue?
    private var ranCalls = false
    // The handler as a client of other handlers (SCOOP: a processor's calls are its own clients),
    // made at its first `act`; one act runs at a time, so one identity and its cache serve them all.
    private var asClient: Client?

    init(id: Int, runtime: Runtime) {
        self.id = id
        self.runtime = runtime
    }

    /// A push happened (into the queue of queues or a private queue): run if not running.
    func wake() {
        if pending.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0 {
            runtime.pool.submit(.handler(self))
        }
    }

    func enqueue(_ queue: PrivateQueue) {
        queues.push(queue)
        wake()
    }

    /// The handler loop: called by the pool, one run at a time.
    func run() { proceed(seen: pending.load(ordering: .acquiring)) }

    /// Drains and gives back what it has seen, until nothing more came. An `act` pauses the loop:
    /// it runs as a task of its own, the pushes seen so far stay counted (so no push can start a
    /// second run), and the task goes on with the loop from here once the act returns.
    private func proceed(seen start: Int) {
        var seen = start
        while true {
            if let act = drain() {
                let client = asClient ?? Client(runtime)
                asClient = client
                let resumeFrom = seen
                Task(executorPreference: runtime.pool) {
                    await act(client)
                    self.proceed(seen: resumeFrom)
                }
                return
            }
            let left = pending.wrappingSubtract(seen, ordering: .acquiringAndReleasing).newValue
            if left == 0 { return }
            seen = left
        }
    }

    /// Runs requests until none is left, or returns the first act met (already taken off its queue).
    private func drain() -> (@Sendable (Client) async -> Void)? {
        while true {
            if current == nil {
                guard let next = queues.pop() else { return nil }
                current = next
            }
            guard let request = current!.requests.pop() else { return nil }   // the client logs more later
            switch request {
            case .call(let call):
                call()
                ranCalls = true
            case .act(let act):
                ranCalls = true
                return act
            case .sync(let client):
                current!.handedOver.wrappingAdd(1, ordering: .releasing)
                runtime.pool.handingOff { client.resume() }
            case .end:
                current = nil
                if ranCalls {
                    ranCalls = false
                    changed()
                }
            }
        }
    }

    // -- wait conditions ------------------------------------------------------------------

    var version: Int { changes.withLock { $0.version } }

    private func changed() {
        let waiters = changes.withLock { state -> [@Sendable () -> Void] in
            state.version &+= 1
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter() }
    }

    /// Calls `wake` once the version differs from `seen` (at once if it already does).
    func onChange(from seen: Int, _ wake: @escaping @Sendable () -> Void) {
        let now = changes.withLock { state -> Bool in
            if state.version != seen { return true }
            state.waiters.append(wake)
            return false
        }
        if now { wake() }
    }
}

/// A handler owning one object of type `Object`. The object is touched only by the handler's calls
/// and, while a client holds the handler synced, by that client's queries.
public final class Handler<Object: AnyObject>: @unchecked Sendable {
    public let core: HandlerCore
    let object: Object

    public init(_ object: Object, runtime: Runtime) {
        self.object = object
        core = runtime.newCore()
    }
}

/// A FIFO lock a task waits for by suspending (never by blocking its thread).
final class AsyncLock: @unchecked Sendable {
    private let state = Locked<(locked: Bool, waiters: [UnsafeContinuation<Void, Never>])>((false, []))

    func acquire(on pool: Pool) async {
        let free = state.withLock { state -> Bool in
            if state.locked { return false }
            state.locked = true
            return true
        }
        if free { return }
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            pool.whenSuspended {
                let now = self.state.withLock { state -> Bool in
                    if !state.locked {
                        state.locked = true
                        return true
                    }
                    state.waiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }

    func release() {
        let next = state.withLock { state -> UnsafeContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.locked = false
                return nil
            }
            return state.waiters.removeFirst()   // the lock passes to it
        }
        next?.resume()
    }
}
