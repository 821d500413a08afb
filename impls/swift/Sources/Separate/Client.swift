// A client: the side of a `separate` block (Sec. 2 and 3.2–3.3, Figs. 8 and 11). It reserves one or
// several handlers, logs commands that run asynchronously on them in order, and runs queries
// itself once the handler has caught up (client-side query execution, Fig. 10b).
//
//     let client = Client(runtime)
//     await client.separate(account) { a in
//         await a.call { $0.deposit(10) }      // logged; runs on the handler
//         let balance = await a.query { $0.balance }
//     }
//     await client.separate(from, to) { a, b in  // both reserved at once: no other client's calls
//         await a.call { $0.withdraw(5) }      // run on either between these two
//         await b.call { $0.deposit(5) }
//     }
//
// A call never waits: it returns as soon as it is logged (its queue grows as needed), and wakes the
// handler if that parked on the block. A block on a handler the client already holds is part of the
// block that holds it: its calls join the outer block's, and only the outer END ends it.
//
// Guarantees: the calls of one block run in the order logged with no other client's call between
// them on that handler; a block on several handlers is ordered the same way on all of them
// against every other multi-handler block, so it sees their state consistently; reserving never
// waits for another client (except under `none` and `dynamic`), so nested blocks in opposite orders
// cannot deadlock. What can deadlock is a cycle of queries: a client that, inside a block on x,
// queries y while y's current client waits on a query to x. SCOOP has the same hole.
//
// A client suspends (a wait condition, a sync, waiting for room or a lock; a runner between acts)
// through `_unsafeInheritExecutor_withUnsafeContinuation`: the standard `withUnsafeContinuation`
// takes an `isolated` parameter, and entering it hops to the caller's isolation, which for a task
// preferring the pool takes the concurrency runtime's status-record lock just before suspending.
// The hop the compiler places after the `await` still returns an isolated caller to its actor.
//
// A Client is one task's identity: use it from one task at a time, like the processor it stands
// for. It keeps one private queue per handler it has used (the paper's cache of queues), keyed by
// the handler's process-wide id.

import Synchronization

public final class Client: @unchecked Sendable {
    public let runtime: Runtime
    @usableFromInline var recentID: UInt64 = 0
    @usableFromInline var recent: Unmanaged<PrivateQueue>?   // held by `cache`
    @usableFromInline var cache: [UInt64: AnyObject] = [:]
    /// This client as the holder of a shared queue (`none`, `dynamic`, `static`): its address, never 0.
    @usableFromInline var identity: UInt { UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()) }

    public init(_ runtime: Runtime) { self.runtime = runtime }

    deinit {
        // The handlers may still have blocks of this client to run: the runtime keeps those queues.
        for queue in cache.values { runtime.retire(unsafeDowncast(queue, to: PrivateQueue.self)) }
    }

    // -- blocks ---------------------------------------------------------------------------

    @inlinable @inline(__always)
    public nonisolated(nonsending) func separate<A, R>(_ a: Handler<A>, _ body: nonisolated(nonsending) (Reserved<A>) async throws -> R) async rethrows -> R {
        let queue = await reserve(a)
        return try await run(body, on: a, queue)
    }

    @inlinable
    public nonisolated(nonsending) func separate<A, B, R>(_ a: Handler<A>, _ b: Handler<B>,
                                  _ body: nonisolated(nonsending) (Reserved<A>, Reserved<B>) async throws -> R) async rethrows -> R {
        let queues = await reserve([a, b] as [HandlerCore])
        let result: R
        do {
            result = try await body(Reserved(a, queues[0]), Reserved(b, queues[1]))
        } catch {
            for queue in queues { end(queue) }
            throw error
        }
        for queue in queues { end(queue) }
        return result
    }

    /// A block on any number of handlers of one type, reserved at once.
    public nonisolated(nonsending) func separate<A, R>(_ handlers: [Handler<A>],
                               _ body: nonisolated(nonsending) ([Reserved<A>]) async throws -> R) async rethrows -> R {
        let queues = await reserve(handlers as [HandlerCore])
        let result: R
        do {
            result = try await body(zip(handlers, queues).map { Reserved($0, $1) })
        } catch {
            for queue in queues { end(queue) }
            throw error
        }
        for queue in queues { end(queue) }
        return result
    }

    /// A block with a wait condition (SCOOP's `require` on a separate target): it runs once
    /// `condition`, evaluated on the handler's object while the handler is reserved for this
    /// client, holds. The handler tests it when it reaches the reservation and again after every
    /// block that may have changed the object, and hands itself, synced, to the first waiting client
    /// whose condition holds; on a handler parked between blocks the client tests it itself, first before
    /// it suspends (where it holds, it goes on at once). (Under `none` and `dynamic` the client tests it itself, gives the lock back while it
    /// is false, and tries again after a block of another client changed the object.) On a handler
    /// this client holds already, nothing else can change the object: the condition must hold.
    @inlinable
    public nonisolated(nonsending) func separate<A, R>(_ a: Handler<A>, until condition: @escaping (A) -> Bool,
                               _ body: nonisolated(nonsending) (Reserved<A>) async throws -> R) async rethrows -> R {
        let ref = queueRef(for: a)
        if ref.with({ $0.isHeld(by: identity) }) {
            enter(ref)
            await ref.sync()
            precondition(condition(a.object), "a wait condition on a handler the client holds must hold: it would wait for itself")
            return try await run(body, on: a, ref)
        }
        if a.locksBlocks { return try await separateRetrying(a, until: condition, body) }
        let queue = ref.takeUnretainedValue()
        queue.depth = 1
        let erased = Handler<A>.erase(condition)
        queue.ensureRoom()
        if !a.grantInPlace(queue, erased) {
            await _unsafeInheritExecutor_withUnsafeContinuation { queue.awaitGrant(erased, $0) }
        }
        queue.synced = true
        return try await run(body, on: a, ref)
    }

    @usableFromInline
    nonisolated(nonsending) func separateRetrying<A, R>(_ a: Handler<A>, until condition: (A) -> Bool,
                                        _ body: nonisolated(nonsending) (Reserved<A>) async throws -> R) async rethrows -> R {
        while true {
            let queue = await reserve(a)
            await queue.sync()
            if condition(a.object) {
                return try await run(body, on: a, queue)
            }
            let locked = a.locked.unsafelyUnwrapped
            let seen = locked.version
            end(queue, .endTested)
            await _unsafeInheritExecutor_withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                runtime.pool.whenSuspended { locked.onChange(from: seen) { continuation.resume() } }
            }
        }
    }

    // -- the runtime side -----------------------------------------------------------------

    /// The client's queue for `handler`, unmanaged (see the extension at the end of PrivateQueue.swift).
    @inlinable @inline(__always)
    func queueRef(for handler: HandlerCore) -> Unmanaged<PrivateQueue> {
        if handler.locksBlocks { return .passUnretained(handler.shared.unsafelyUnwrapped) }
        if recentID == handler.id { return recent.unsafelyUnwrapped }
        return .passUnretained(lookUp(handler))
    }

    @usableFromInline
    func lookUp(_ handler: HandlerCore) -> PrivateQueue {
        let queue: PrivateQueue
        if let known = cache[handler.id] {
            queue = unsafeDowncast(known, to: PrivateQueue.self)
        } else {
            queue = PrivateQueue(handler: handler, shared: false)
            cache[handler.id] = queue
        }
        recentID = handler.id
        recent = .passUnretained(queue)
        return queue
    }

    /// SEPARATE on one handler: its block's begin cell enters the handler's queue of queues (or,
    /// under `none` and `dynamic`, the client takes the handler's lock and logs into its queue). On
    /// a handler the client holds already, the block goes on in the one that holds it.
    @inlinable @inline(__always)
    nonisolated(nonsending) func reserve(_ handler: HandlerCore) async -> Unmanaged<PrivateQueue> {
        let queue = queueRef(for: handler)
        if handler.locksBlocks {
            if queue.with({ $0.isHeld(by: identity) }) { return enter(queue) }
            await handler.lockBlock()
            queue.with { $0.beginHeld(by: identity) }
        } else {
            return reserveLinking(handler)
        }
        queue.with { queue in
            queue.depth = 1
            queue.synced = false
        }
        return queue
    }

    /// SEPARATE on one handler under the queue of queues, which never waits: the block's begin cell
    /// linked (or, on a handler the client holds already, the block that holds it entered).
    @inlinable @inline(__always)
    func reserveLinking(_ handler: HandlerCore) -> Unmanaged<PrivateQueue> {
        let queue = queueRef(for: handler)
        if queue.with({ $0.depth > 0 }) { return enter(queue) }
        handler.link(queue.with { $0.begin() })
        handler.wakeBetweenBlocks()
        queue.with { queue in
            queue.depth = 1
            queue.synced = false
        }
        return queue
    }

    /// A block inside one this client holds on the same handler.
    @inlinable @discardableResult
    func enter(_ queue: Unmanaged<PrivateQueue>) -> Unmanaged<PrivateQueue> {
        queue.with { $0.depth += 1 }
        return queue
    }

    /// resMany: the reservation locks, taken in handler order and held only for the links, put the
    /// begin cells in every queue of queues in the same order against any other multi-reservation
    /// (under `none` and `dynamic`, the block locks in handler order). Handlers the client holds
    /// already are left as they are: their blocks go on.
    @usableFromInline
    nonisolated(nonsending) func reserve(_ handlers: [HandlerCore]) async -> [Unmanaged<PrivateQueue>] {
        let order = handlers.indices.sorted { handlers[$0].id < handlers[$1].id }
        for (earlier, later) in zip(order, order.dropFirst()) {
            precondition(handlers[earlier].id != handlers[later].id, "a block reserves each handler once")
        }
        let queues = handlers.map { queueRef(for: $0) }
        let fresh = order.filter { !queues[$0].with { $0.isHeld(by: identity) } }
        if handlers.first?.locksBlocks == true {
            for index in fresh { await handlers[index].lockBlock() }
            for index in fresh { queues[index].with { $0.beginHeld(by: identity) } }
        } else {
            let cells = fresh.map { queues[$0].with { $0.begin() } }
            for index in fresh { handlers[index].reservation.lock() }
            for (index, cell) in zip(fresh, cells) { handlers[index].link(cell) }
            for index in fresh.reversed() { handlers[index].reservation.unlock() }
            for index in fresh { handlers[index].wakeBetweenBlocks() }
        }
        for queue in queues {
            queue.with { queue in
                queue.depth += 1
                queue.synced = false
            }
        }
        return queues
    }

    /// Runs a block's body on one reserved handler, then its END, whether the body returns or
    /// throws. (No closures around the body: each would cost a check of the executor at its entry.)
    @inlinable @inline(__always)
    nonisolated(nonsending) func run<A, R>(_ body: nonisolated(nonsending) (Reserved<A>) async throws -> R,
                                           on handler: Handler<A>, _ queue: Unmanaged<PrivateQueue>) async rethrows -> R {
        let result: R
        do {
            result = try await body(Reserved(handler, queue))
        } catch {
            end(queue)
            throw error
        }
        end(queue)
        return result
    }

    /// END: the handler moves on to its next client (an inner block on a handler held already
    /// only closes itself).
    @inlinable @inline(__always)
    func end(_ queue: Unmanaged<PrivateQueue>, _ request: Request = .end) {
        let locked = queue.with { queue -> Bool in
            queue.depth -= 1
            if queue.depth > 0 { return false }
            queue.put(request)
            queue.synced = false
            queue.endsLogged &+= 1
            if queue.isShared { queue.holder.store(0, ordering: .relaxed) }
            queue.publish()
            return queue.isShared
        }
        if locked { queue.takeUnretainedValue().handler.locked.unsafelyUnwrapped.lock.release() }
        // The queue is held unmanaged, so nothing else keeps this client (and with it its cache of
        // queues) alive to here: a temporary client (`Client(runtime).separate …`) could otherwise be
        // freed before the END is logged, retiring a queue it still touches.
        withExtendedLifetime(self) {}
    }
}

/// A handler as reserved by one block: what the block may do with it. Do not keep it beyond the block.
public struct Reserved<Object: AnyObject> {
    @usableFromInline let handler: Handler<Object>
    @usableFromInline let queue: Unmanaged<PrivateQueue>   // the client's cache keeps it

    @inlinable
    init(_ handler: Handler<Object>, _ queue: Unmanaged<PrivateQueue>) {
        self.handler = handler
        self.queue = queue
    }

    /// A command: logged and run later by the handler, in order, on its object.
    @inlinable @inline(__always)
    public nonisolated(nonsending) func call(_ command: @escaping @Sendable (Object) -> Void) async {
        queue.logCall(.call(Handler<Object>.erase(command)))
    }

    /// A command with one argument, logged beside it: `call(with: i) { $0.push($1) }` is SCOOP's
    /// `stack.push (i)`. A closure that captures its argument instead allocates a context per call
    /// (freed by the handler, often on another thread); one that captures nothing allocates none.
    @inlinable @inline(__always)
    public nonisolated(nonsending) func call(with argument: Int, _ command: @escaping @Sendable (Object, Int) -> Void) async {
        queue.logCall(.callWith(Handler<Object>.erase(command), argument))
    }

    /// A command that is a client itself: logged and run by the handler in order like any call, it
    /// gets the handler's own Client and may open blocks on other handlers with it. The handler
    /// serves nothing else until it returns. (It must not reserve its own handler: that waits forever.)
    @inlinable
    public nonisolated(nonsending) func call(_ command: @escaping @Sendable (Object, Client) async -> Void) async {
        queue.logCall(.act(Handler<Object>.erase(command)))
    }

    /// A command that is a client itself but only logs: it opens blocks on other handlers with the
    /// handler's own Client and logs calls in them (Logging.swift). Under the queue of queues the
    /// handler runs it in its loop like a plain call; under the block lock, like an act.
    @inlinable
    public nonisolated(nonsending) func call(logging command: @escaping @Sendable (Object, Logger) -> Void) async {
        queue.logCall(.logs(Handler<Object>.erase(command)))
    }

    /// A query: waits until the handler has run every call logged before it, then runs `read` here,
    /// on the client, while the handler waits on this block. Once synced, a query is a plain read.
    @inlinable @inline(__always)
    public nonisolated(nonsending) func query<T>(_ read: (Object) throws -> T) async rethrows -> T {
        await queue.sync()
        return try read(handler.object)
    }

    /// A query that needs no wait: the plain read `query` does once the block is synced, here without
    /// the await, so that a loop of queries stays an ordinary loop; nil where `query` would sync
    /// (not synced yet, or a configuration that syncs every query).
    @inlinable @inline(__always)
    public func queryIfSynced<T>(_ read: (Object) throws -> T) rethrows -> T? {
        guard queue.with({ $0.coalesces && $0.synced }) else { return nil }
        return try read(handler.object)
    }

    /// A loop of queries, one per index and with no call between them: `read(object, k)` for each
    /// k in `indices`, appended to `out` (how the paper's programs copy an array out of a separate
    /// object). Each sees every call logged before the loop, as a query does. Under static sync
    /// coalescing (`static`, `all`) the loop syncs once and its queries are plain reads, which is
    /// what SCOOP/Qs's compiler pass leaves of such a loop; otherwise each is a `query` (under
    /// `dynamic`, every one after the first is a check of the synced flag and a read).
    @inlinable
    public nonisolated(nonsending) func query<T>(each indices: Range<Int>, into out: inout [T],
                                                 _ read: (Object, Int) throws -> T) async rethrows {
        guard !indices.isEmpty else { return }
        if handler.runtime.liftsSyncs {
            await queue.sync()
            let object = handler.object
            for k in indices { out.append(try read(object, k)) }
            return
        }
        var k = indices.lowerBound
        while k < indices.upperBound {
            out.append(try await query { try read($0, k) })
            k += 1
            // The queries after a sync are plain reads: no await, so the loop keeps its state in registers.
            while k < indices.upperBound, let value = try queryIfSynced({ try read($0, k) }) {
                out.append(value)
                k += 1
            }
        }
    }

    /// Waits until the handler has run every call logged so far.
    @inlinable
    public nonisolated(nonsending) func sync() async { await queue.sync() }
}
