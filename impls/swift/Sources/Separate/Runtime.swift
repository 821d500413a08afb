// A runtime: the pool its handlers and clients run on, and the configuration of the paper's
// optimisation study (Sec. 4.4, Tables 1 and 2) it runs with.

import Synchronization

/// Which of the paper's optimisations are on. Static sync coalescing is a compiler pass over
/// Eiffel code and has no counterpart in a library: there is no `static` configuration.
public enum Configuration: String, Sendable, CaseIterable {
    /// One lock per handler, held by a client for its whole block; every query syncs.
    case none
    /// Queue of queues: clients log without waiting for each other; every query syncs.
    case qoq
    /// The lock of `none`, with dynamic sync coalescing: a synced handler is not synced again.
    case dynamic
    /// Queue of queues and dynamic sync coalescing.
    case all

    var locksBlocks: Bool { self == .none || self == .dynamic }
    var coalescesSyncs: Bool { self == .dynamic || self == .all }
}

public final class Runtime: Sendable {
    public let pool: Pool
    public let configuration: Configuration
    private let handlers = Atomic<Int>(0)

    /// `workers` threads (default: one per core) run every handler and every client task.
    public init(workers: Int, configuration: Configuration = .all) {
        pool = Pool(width: workers)
        self.configuration = configuration
    }

    func newCore() -> HandlerCore {
        HandlerCore(id: handlers.wrappingAdd(1, ordering: .relaxed).oldValue, runtime: self)
    }

    /// Runs `body` as a client task on this runtime's threads.
    public func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async rethrows -> T {
        try await withTaskExecutorPreference(pool, operation: body)
    }

    /// Runs `count` client tasks on this runtime's threads, each with its own Client and its index,
    /// and returns when all have finished.
    public func clients(_ count: Int, _ body: @escaping @Sendable (Int, Client) async -> Void) async {
        await withDiscardingTaskGroup { group in
            for index in 0..<count {
                group.addTask(executorPreference: pool) { await body(index, Client(self)) }
            }
        }
    }

    /// Stops the threads (after the work already queued).
    public func shutdown() { pool.shutdown() }
}
