// A runtime: the pool its handlers and clients run on, the configuration of the paper's
// optimisation study (Sec. 4.4, Tables 1 and 2) it runs with, and the runners that carry handlers.

import Synchronization

/// Which of the paper's optimisations are on (Sec. 3.4 and 4.4).
public enum Configuration: String, Sendable, CaseIterable {
    /// The paper's None: one queue per handler, locked by a client for its whole block; every
    /// query syncs; a false wait condition gives the lock back and the client tries again later.
    case none
    /// Queue of queues: clients log without waiting for each other; every query syncs.
    case qoq
    /// The lock of `none`, with dynamic sync coalescing: a synced handler is not synced again.
    case dynamic
    /// The lock of `none`, with static sync coalescing. The paper's is a compiler pass that removes
    /// the syncs it can prove redundant, above all by lifting the sync out of a loop of queries
    /// with no call in it (Sec. 3.4.2). A library has no compiler pass: here it is the query loop
    /// (`Reserved.query(each:into:_:)`) that syncs once and then reads plainly, as the pass leaves
    /// such a loop. Queries outside a query loop sync as under `none`.
    case `static`
    /// Queue of queues and both kinds of sync coalescing.
    case all

    @inlinable public var locksBlocks: Bool { self == .none || self == .dynamic || self == .static }
    @inlinable public var coalescesSyncs: Bool { self == .dynamic || self == .all }
    @inlinable public var liftsSyncs: Bool { self == .static || self == .all }
}

public final class Runtime: @unchecked Sendable {
    public let pool: Pool
    public let configuration: Configuration
    /// Whether the pool is the process's global executor (GlobalExecutor.swift): then client tasks
    /// start with no executor preference, and run on the pool all the same.
    public let ownsGlobalExecutor: Bool
    @usableFromInline let locksBlocks: Bool
    @usableFromInline let coalescesSyncs: Bool
    @usableFromInline let liftsSyncs: Bool
    // Runners with no handler to run, suspended until one is scheduled (Runner.swift).
    private let idle = SpinLock()
    private var idleRunners: [Runner] = []
    private let runnersMade = Atomic<Int>(0)
    private var closed = false
    // Queues of clients that went away before their handlers had run all their blocks.
    private let retired = Locked<[PrivateQueue]>([])
    let census = Census()

    /// How many private queues exist now: one per client and handler it used, and those kept for
    /// clients gone before their handlers finished their blocks (a reading for tests).
    public var liveQueues: Int { census.count.load(ordering: .relaxed) }

    /// `workers` threads (default: one per core) run every handler and every client task. With
    /// `global`, the pool also becomes the process's global executor, so that every task without an
    /// actor or an executor preference runs on it, until `shutdown` (if no other runtime's pool is
    /// it already: `ownsGlobalExecutor` says).
    public init(workers: Int, configuration: Configuration = .all, global: Bool = false) {
        pool = Pool(width: workers)
        self.configuration = configuration
        locksBlocks = configuration.locksBlocks
        coalescesSyncs = configuration.coalescesSyncs
        liftsSyncs = configuration.liftsSyncs
        ownsGlobalExecutor = global && GlobalExecutor.own(pool)
    }

    // Where the pool is the global executor, the tasks this runtime starts get no executor
    // preference at all, not a nil one: a task made with a preference that is nil only at run time
    // still gets a preference record, looked up under its lock at every resumption.

    /// Runs `body` as a client task on this runtime's threads (where the pool is the global
    /// executor, on the calling task, which is on them from its next resumption at the latest).
    public nonisolated(nonsending) func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async rethrows -> T {
        if ownsGlobalExecutor { return try await body() }
        return try await withTaskExecutorPreference(pool, operation: body)
    }

    /// Starts a task on this runtime's threads.
    @discardableResult
    public func task<T: Sendable>(_ body: sending @escaping @isolated(any) () async -> T) -> Task<T, Never> {
        ownsGlobalExecutor ? Task(operation: body) : Task(executorPreference: pool, operation: body)
    }

    /// Runs `count` client tasks on this runtime's threads, each with its own Client and its index,
    /// and returns when all have finished.
    public nonisolated(nonsending) func clients(_ count: Int, _ body: nonisolated(nonsending) @escaping @Sendable (Int, Client) async -> Void) async {
        await withDiscardingTaskGroup { group in
            for index in 0..<count {
                if ownsGlobalExecutor {
                    group.addTask { await body(index, Client(self)) }
                } else {
                    group.addTask(executorPreference: pool) { await body(index, Client(self)) }
                }
            }
        }
    }

    /// How many runners (tasks that carry handlers through acts) this runtime has started (a reading
    /// for tests).
    var runnersStarted: Int { runnersMade.load(ordering: .relaxed) }

    /// Keeps `queue`, whose client is gone, until its handler has finished its blocks (looked at
    /// whenever another client goes away, and at shutdown; the handler itself never frees a queue).
    func retire(_ queue: PrivateQueue) { sweep(keeping: queue.isFinished ? nil : queue) }

    /// Frees the kept queues whose handlers have finished with them, and keeps `queue`.
    private func sweep(keeping queue: PrivateQueue? = nil) {
        let done = retired.withLock { queues -> [PrivateQueue] in
            var done: [PrivateQueue] = []
            queues.removeAll { kept in
                guard kept.isFinished else { return false }
                done.append(kept)
                return true
            }
            if let queue { queues.append(queue) }
            return done
        }
        _ = done   // freed here, after the lock: freeing may end what a queue's requests held
    }

    /// Stops the runners and the threads (after the work already queued).
    public func shutdown() {
        idle.lock()
        closed = true
        let runners = idleRunners
        idleRunners.removeAll()
        idle.unlock()
        for runner in runners { runner.resume(with: nil) }
        pool.shutdown()
        sweep()
    }

    // -- runners --------------------------------------------------------------------------

    /// Carries `handler` through `act` and on, on an idle runner or on a new one.
    func carry(_ handler: HandlerCore, _ act: Act) {
        idle.lock()
        let runner = idleRunners.popLast()
        idle.unlock()
        if let runner {
            runner.resume(with: (handler, act))
        } else {
            runnersMade.wrappingAdd(1, ordering: .relaxed)
            let runner = Runner(runtime: self, first: (handler, act))
            task { await runner.serve() }
        }
    }

    /// Keeps `runner`, suspended, for the next handler scheduled.
    func keep(_ runner: Runner) {
        idle.lock()
        if closed {
            idle.unlock()
            return runner.resume(with: nil)
        }
        idleRunners.append(runner)
        idle.unlock()
    }
}

/// How many private queues a runtime has (each queue counts itself in and out).
final class Census: Sendable {
    let count = Atomic<Int>(0)
}
