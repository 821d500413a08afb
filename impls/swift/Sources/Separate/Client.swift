// A client: the side of a `separate` block (Sec. 2 and 3.2–3.3, Figs. 8 and 11). It reserves one or
// several handlers, logs commands that run asynchronously on them in order, and runs queries
// itself once the handler has caught up (client-side query execution, Fig. 10b).
//
//     let client = Client(runtime)
//     await client.separate(account) { a in
//         a.call { $0.deposit(10) }            // logged; runs on the handler
//         let balance = await a.query { $0.balance }
//     }
//     await client.separate(from, to) { a, b in  // both reserved at once: no other client's calls
//         a.call { $0.withdraw(5) }            // run on either between these two
//         b.call { $0.deposit(5) }
//     }
//
// Guarantees: the calls of one block run in the order logged with no other client's call between
// them on that handler; a block on several handlers is ordered the same way on all of them
// against every other multi-handler block, so it sees their state consistently; reserving never
// waits for another client (except under `none`), so nested blocks in opposite orders cannot
// deadlock. What can deadlock is a cycle of queries: a client that, inside a block on x, queries
// y while y's current client waits on a query to x. SCOOP has the same hole.
//
// A Client is one task's identity: use it from one task at a time, like the processor it stands
// for. It keeps one private queue per handler it has used (the paper's cache of queues).


public final class Client: @unchecked Sendable {
    public let runtime: Runtime
    private var cache: [Int: PrivateQueue] = [:]

    public init(_ runtime: Runtime) { self.runtime = runtime }

    // -- blocks ---------------------------------------------------------------------------

    public func separate<A, R>(_ a: Handler<A>,
                               _ body: (Reserved<A>) async throws -> R) async rethrows -> R {
        let queue = await reserve(a.core)
        return try await finishing({ end(queue) }) { try await body(Reserved(a, queue, self)) }
    }

    public func separate<A, B, R>(_ a: Handler<A>, _ b: Handler<B>,
                                  _ body: (Reserved<A>, Reserved<B>) async throws -> R) async rethrows -> R {
        let queues = await reserve([a.core, b.core])
        return try await finish(queues) {
            try await body(Reserved(a, queues[0], self), Reserved(b, queues[1], self))
        }
    }

    /// A block on any number of handlers of one type, reserved at once.
    public func separate<A, R>(_ handlers: [Handler<A>],
                               _ body: ([Reserved<A>]) async throws -> R) async rethrows -> R {
        let queues = await reserve(handlers.map(\.core))
        return try await finish(queues) {
            try await body(zip(handlers, queues).map { Reserved($0, $1, self) })
        }
    }

    /// A block with a wait condition (SCOOP's `require` on separate targets): it runs once
    /// `condition`, evaluated with the handler reserved and synced, holds. Until then the
    /// reservation is given back and the client waits, suspended, for a block of another client
    /// to run calls on the handler, then tries again.
    public func separate<A, R>(_ a: Handler<A>, until condition: (A) -> Bool,
                               _ body: (Reserved<A>) async throws -> R) async rethrows -> R {
        while true {
            let queue = await reserve(a.core)
            await sync(queue)
            if condition(a.object) {
                return try await finishing({ end(queue) }) { try await body(Reserved(a, queue, self)) }
            }
            let seen = a.core.version
            end(queue)
            await waitForChange([a.core], from: [seen])
        }
    }

    /// A wait condition over two handlers, reserved together.
    public func separate<A, B, R>(_ a: Handler<A>, _ b: Handler<B>, until condition: (A, B) -> Bool,
                                  _ body: (Reserved<A>, Reserved<B>) async throws -> R) async rethrows -> R {
        while true {
            let queues = await reserve([a.core, b.core])
            await sync(queues[0])
            await sync(queues[1])
            if condition(a.object, b.object) {
                return try await finish(queues) {
                    try await body(Reserved(a, queues[0], self), Reserved(b, queues[1], self))
                }
            }
            let seen = [a.core.version, b.core.version]
            end(queues)
            await waitForChange([a.core, b.core], from: seen)
        }
    }

    // -- the runtime side -----------------------------------------------------------------

    private func queue(for core: HandlerCore) -> PrivateQueue {
        if let queue = cache[core.id] { return queue }
        let queue = PrivateQueue(core: core)
        cache[core.id] = queue
        return queue
    }

    /// SEPARATE on one handler: its private queue enters the handler's queue of queues.
    private func reserve(_ core: HandlerCore) async -> PrivateQueue {
        let queue = queue(for: core)
        if runtime.configuration.locksBlocks { await core.blockLock.acquire(on: runtime.pool) }
        core.enqueue(queue)
        queue.synced = false
        return queue
    }

    /// SEPARATE: the private queues enter the handlers' queues of queues, all at once (resMany).
    private func reserve(_ cores: [HandlerCore]) async -> [PrivateQueue] {
        let queues = cores.map { queue(for: $0) }
        precondition(Set(cores.map(\.id)).count == cores.count, "a block reserves each handler once")
        let ordered = zip(cores, queues).sorted { $0.0.id < $1.0.id }
        if runtime.configuration.locksBlocks {
            for (core, _) in ordered { await core.blockLock.acquire(on: runtime.pool) }
        }
        if ordered.count == 1 {
            ordered[0].0.enqueue(ordered[0].1)
        } else {
            Client.pushTogether(ordered)
        }
        for queue in queues { queue.synced = false }
        return queues
    }

    /// resMany: the reservation locks, taken in handler order and held only for the pushes, put the
    /// private queues in every queue of queues in the same order against any other multi-reservation.
    private static func pushTogether(_ ordered: [(HandlerCore, PrivateQueue)]) {
        for (core, _) in ordered { core.reservation.lock() }
        for (core, queue) in ordered { core.queues.push(queue) }
        for (core, _) in ordered.reversed() { core.reservation.unlock() }
        for (core, _) in ordered { core.wake() }
    }

    private func finish<R>(_ queues: [PrivateQueue], _ body: () async throws -> R) async rethrows -> R {
        try await finishing({ end(queues) }, body)
    }

    /// Runs a block's body and then `ending` (its END), whether the body returns or throws.
    private func finishing<R>(_ ending: () -> Void, _ body: () async throws -> R) async rethrows -> R {
        do {
            let result = try await body()
            ending()
            return result
        } catch {
            ending()
            throw error
        }
    }

    /// END: the handlers move on to their next clients.
    private func end(_ queues: [PrivateQueue]) {
        for queue in queues { end(queue) }
    }

    private func end(_ queue: PrivateQueue) {
        queue.log(.end)
        queue.synced = false
        if runtime.configuration.locksBlocks { queue.core.blockLock.release() }
    }

    /// SYNC: returns when the handler has run everything logged so far and waits on this queue.
    func sync(_ queue: PrivateQueue) async {
        if runtime.configuration.coalescesSyncs && queue.synced { return }
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            runtime.pool.whenSuspended { queue.log(.sync(continuation)) }
        }
        _ = queue.handedOver.load(ordering: .acquiring)
        queue.synced = true
    }

    func log(_ queue: PrivateQueue, _ request: Request) {
        queue.log(request)
        queue.synced = false
    }

    private func waitForChange(_ cores: [HandlerCore], from seen: [Int]) async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            runtime.pool.whenSuspended {
                let once = Once(continuation)
                for (core, version) in zip(cores, seen) {
                    core.onChange(from: version) { once.resume() }
                }
            }
        }
    }
}

/// Resumes a continuation the first time it is asked to, and ignores the rest.
private final class Once: Sendable {
    private let continuation: Locked<UnsafeContinuation<Void, Never>?>

    init(_ continuation: UnsafeContinuation<Void, Never>) { self.continuation = Locked(continuation) }

    func resume() {
        continuation.withLock { c -> UnsafeContinuation<Void, Never>? in
            defer { c = nil }
            return c
        }?.resume()
    }
}

/// A handler as reserved by one block: what the block may do with it. Do not keep it beyond the block.
public struct Reserved<Object: AnyObject> {
    let handler: Handler<Object>
    let queue: PrivateQueue
    let client: Client

    init(_ handler: Handler<Object>, _ queue: PrivateQueue, _ client: Client) {
        self.handler = handler
        self.queue = queue
        self.client = client
    }

    /// A command: logged and run later by the handler, in order, on its object.
    public func call(_ command: @escaping @Sendable (Object) -> Void) {
        let object = UncheckedBox(handler.object)
        client.log(queue, .call { command(object.value) })
    }

    /// A command that is a client itself: logged and run by the handler in order like any call, it
    /// gets the handler's own Client and may open blocks on other handlers with it. The handler
    /// serves nothing else until it returns. (It must not reserve its own handler: that waits forever.)
    public func call(_ command: @escaping @Sendable (Object, Client) async -> Void) {
        let object = UncheckedBox(handler.object)
        client.log(queue, .act { client in await command(object.value, client) })
    }

    /// A query: waits until the handler has run every call logged before it, then runs `read` here,
    /// on the client, while the handler waits on this block.
    public func query<T>(_ read: (Object) throws -> T) async rethrows -> T {
        await client.sync(queue)
        return try read(handler.object)
    }

    /// Waits until the handler has run every call logged so far.
    public func sync() async { await client.sync(queue) }
}

/// The handler's object travels to its own handler inside a call: only that handler touches it then.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
