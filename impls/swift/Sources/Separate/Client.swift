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
// A call is awaited only because a client whose queue is full waits for room (backpressure); it
// returns as soon as the call is logged.
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

public final class Client: @unchecked Sendable {
    public let runtime: Runtime
    @usableFromInline var recentID: UInt64 = 0
    @usableFromInline var recent: Unmanaged<PrivateQueue>?   // held by `cache`
    @usableFromInline var cache: [UInt64: AnyObject] = [:]
    /// How many handlers this client holds now (blocks reserved and not yet ended).
    @usableFromInline var held = 0

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
        let (qa, qb) = await reserve(a, b)
        let result: R
        do {
            result = try await body(Reserved(a, .passUnretained(qa)), Reserved(b, .passUnretained(qb)))
        } catch {
            await end(qa)
            await end(qb)
            throw error
        }
        await end(qa)
        await end(qb)
        return result
    }

    /// A block on any number of handlers of one type, reserved at once.
    public nonisolated(nonsending) func separate<A, R>(_ handlers: [Handler<A>],
                               _ body: nonisolated(nonsending) ([Reserved<A>]) async throws -> R) async rethrows -> R {
        let queues = await reserve(handlers)
        let result: R
        do {
            result = try await body(zip(handlers, queues).map { Reserved($0, .passUnretained($1)) })
        } catch {
            for queue in queues { await end(queue) }
            throw error
        }
        for queue in queues { await end(queue) }
        return result
    }

    /// A block with a wait condition (SCOOP's `require` on a separate target): it runs once
    /// `condition`, evaluated on the handler's object while the handler is reserved for this
    /// client, holds. The handler tests it when it reaches the reservation and again after every
    /// block that ran calls, and hands itself, synced, to the first waiting client whose condition
    /// holds. (Under `none` and `dynamic` the client tests it itself, gives the lock back while it
    /// is false, and tries again after a block of another client ran calls.)
    @inlinable
    public nonisolated(nonsending) func separate<A, R>(_ a: Handler<A>, until condition: @escaping (A) -> Bool,
                               _ body: nonisolated(nonsending) (Reserved<A>) async throws -> R) async rethrows -> R {
        if a.locksBlocks { return try await separateRetrying(a, until: condition, body) }
        let queue = queue(for: a)
        held += 1
        let erased = Handler<A>.erase(condition)
        await queue.ensureRoom()
        await _unsafeInheritExecutor_withUnsafeContinuation { queue.awaitGrant(erased, $0) }
        queue.synced = true
        return try await run(body, on: a, .passUnretained(queue))
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
            let seen = a.version
            await end(queue)
            await _unsafeInheritExecutor_withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                runtime.pool.whenSuspended { a.onChange(from: seen) { continuation.resume() } }
            }
        }
    }

    // -- the runtime side -----------------------------------------------------------------

    @inlinable
    func queue<A>(for handler: Handler<A>) -> PrivateQueue {
        queueRef(for: handler).takeUnretainedValue()
    }

    /// The client's queue for `handler`, unmanaged (see the extension at the end of PrivateQueue.swift).
    @inlinable @inline(__always)
    func queueRef<A>(for handler: Handler<A>) -> Unmanaged<PrivateQueue> {
        if handler.locksBlocks { return .passUnretained(handler.shared.unsafelyUnwrapped) }
        if recentID == handler.id { return recent.unsafelyUnwrapped }
        return .passUnretained(lookUp(handler))
    }

    @usableFromInline
    func lookUp<A>(_ handler: Handler<A>) -> PrivateQueue {
        let queue: PrivateQueue
        if let known = cache[handler.id] {
            queue = unsafeDowncast(known, to: PrivateQueue.self)
        } else {
            queue = PrivateQueue(handler: handler, client: self)
            cache[handler.id] = queue
        }
        recentID = handler.id
        recent = .passUnretained(queue)
        return queue
    }

    /// SEPARATE on one handler: its block's begin cell enters the handler's queue of queues (or,
    /// under `none` and `dynamic`, the client takes the handler's lock and logs into its queue).
    @inlinable @inline(__always)
    nonisolated(nonsending) func reserve<A>(_ handler: Handler<A>) async -> Unmanaged<PrivateQueue> {
        let queue = queueRef(for: handler)
        held += 1
        if handler.locksBlocks {
            await handler.lockBlock()
            await queue.put(.begin)
        } else {
            await queue.ensureRoom()
            handler.link(queue.with { $0.beginNow(.begin) })
            handler.wakeBetweenBlocks()
        }
        queue.with { $0.synced = false }
        return queue
    }

    /// resMany on two handlers: the reservation locks, taken in handler order and held only for the
    /// links, put the two begin cells in both queues of queues in the same order against any other
    /// multi-reservation (under `none` and `dynamic`, the block locks in handler order).
    @usableFromInline
    nonisolated(nonsending) func reserve<A, B>(_ a: Handler<A>, _ b: Handler<B>) async -> (PrivateQueue, PrivateQueue) {
        precondition(a.id != b.id, "a block reserves each handler once")
        let (qa, qb) = (queue(for: a), queue(for: b))
        held += 2
        let (first, second): (HandlerCore, HandlerCore) = a.id < b.id ? (a, b) : (b, a)
        if a.locksBlocks {
            await first.lockBlock()
            await second.lockBlock()
            await qa.put(.begin)
            await qb.put(.begin)
        } else {
            let (ca, cb) = (await qa.begin(), await qb.begin())
            first.reservation.lock()
            second.reservation.lock()
            a.link(ca)
            b.link(cb)
            second.reservation.unlock()
            first.reservation.unlock()
            a.wakeBetweenBlocks()
            b.wakeBetweenBlocks()
        }
        qa.synced = false
        qb.synced = false
        return (qa, qb)
    }

    /// resMany on any number of handlers of one type.
    nonisolated(nonsending) func reserve<A>(_ handlers: [Handler<A>]) async -> [PrivateQueue] {
        let queues = handlers.map { queue(for: $0) }
        held += handlers.count
        let order = handlers.indices.sorted { handlers[$0].id < handlers[$1].id }
        for (earlier, later) in zip(order, order.dropFirst()) {
            precondition(handlers[earlier].id != handlers[later].id, "a block reserves each handler once")
        }
        if handlers.first?.locksBlocks == true {
            for index in order { await handlers[index].lockBlock() }
            for queue in queues { await queue.put(.begin) }
        } else {
            var cells: [UnsafeMutableRawPointer] = []
            for queue in queues { cells.append(await queue.begin()) }
            for index in order { handlers[index].reservation.lock() }
            for index in order { handlers[index].link(cells[index]) }
            for index in order.reversed() { handlers[index].reservation.unlock() }
            for handler in handlers { handler.wakeBetweenBlocks() }
        }
        for queue in queues { queue.synced = false }
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
            await end(queue)
            throw error
        }
        await end(queue)
        return result
    }

    /// END: the handler moves on to its next client.
    @inlinable @inline(__always)
    nonisolated(nonsending) func end(_ queue: Unmanaged<PrivateQueue>) async {
        await queue.put(.end)
        held -= 1
        let locked = queue.with { queue in
            queue.synced = false
            queue.endsLogged &+= 1
            queue.publish()
            return queue.handler.locksBlocks
        }
        if locked { queue.takeUnretainedValue().handler.blockLock.release() }
        // The queue is held unmanaged, so nothing else keeps this client (and with it its cache of
        // queues) alive to here: a temporary client (`Client(runtime).separate …`) could otherwise be
        // freed after `held -= 1`, retiring a queue this END still touches.
        withExtendedLifetime(self) {}
    }

    @inlinable
    nonisolated(nonsending) func end(_ queue: PrivateQueue) async { await end(.passUnretained(queue)) }
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
        await queue.logCall(.call(Handler<Object>.erase(command)))
    }

    /// A command with one argument, logged beside it: `call(with: i) { $0.push($1) }` is SCOOP's
    /// `stack.push (i)`. A closure that captures its argument instead allocates a context per call
    /// (freed by the handler, often on another thread); one that captures nothing allocates none.
    @inlinable @inline(__always)
    public nonisolated(nonsending) func call(with argument: Int, _ command: @escaping @Sendable (Object, Int) -> Void) async {
        await queue.logCall(.callWith(Handler<Object>.erase(command), argument))
    }

    /// A command that is a client itself: logged and run by the handler in order like any call, it
    /// gets the handler's own Client and may open blocks on other handlers with it. The handler
    /// serves nothing else until it returns. (It must not reserve its own handler: that waits forever.)
    @inlinable
    public nonisolated(nonsending) func call(_ command: @escaping @Sendable (Object, Client) async -> Void) async {
        await queue.logCall(.act(Handler<Object>.erase(command)))
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
