extension Big {
    /// The shapes the spec defines for Swift's async tasks; `stream` is the default. `best-handoff`
    /// (not the thesis's program; issue 26): every worker's loop isolated to one actor on an executor
    /// thread of its own, a send a resume or an append (Big+Handoff.swift).
    public enum SCShape: String, CaseIterable, Sendable {
        case stream
        case taskPerMessage = "task-per-message"
        case bestHandoff = "best-handoff"
    }

    public static func sc(_ shape: SCShape, _ config: Config) async -> Sample {
        switch shape {
        case .stream: await stream(config)
        case .taskPerMessage: await taskPerMessage(config)
        case .bestHandoff: await handoff(config)
        }
    }

    /// A worker's mailbox in the `stream` shape.
    enum Message: Sendable {
        case ping(from: Int)
        case pong(from: Int)
    }

    /// sc/stream: each worker is an unstructured Task iterating its own unbounded
    /// AsyncStream; a send is a `yield`, which never waits. The tables are shared per
    /// neighbourhood (arrays of the members' continuations). The sink is one more
    /// Task on a stream of exits; its end is the completion signal.
    static func stream(_ config: Config) async -> Sample {
        let n = config.workers
        let t0 = monotonicNanos()
        // 1. The mailboxes, the sink, the tables, then the workers.
        var mailboxes: [AsyncStream<Message>] = []
        var inboxes: [AsyncStream<Message>.Continuation] = []
        mailboxes.reserveCapacity(n)
        inboxes.reserveCapacity(n)
        for _ in 0..<n {
            let (mailbox, inbox) = AsyncStream.makeStream(of: Message.self, bufferingPolicy: .unbounded)
            mailboxes.append(mailbox)
            inboxes.append(inbox)
        }
        let (exits, sinkInbox) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .unbounded)
        let sink = Task {
            var count = 0
            for await _ in exits {
                count += 1
                if count == n { return }
            }
        }
        var workers: [Task<Counts, Never>] = []
        workers.reserveCapacity(n)
        for hood in config.neighbourhoods {
            let table = Array(inboxes[hood])
            for w in hood {
                let initial = BigWorker(
                    worker: w, localID: w - hood.lowerBound, hoodSize: hood.count, pings: config.pings)
                let mailbox = mailboxes[w]
                workers.append(Task {
                    var state = initial
                    let j = state.localID
                    for await message in mailbox {
                        switch message {
                        case .pong(let from):
                            switch state.pong(from: from) {
                            case .ping(let target): table[target].yield(.ping(from: j))
                            case .exit: sinkInbox.yield(())
                            }
                        case .ping(let from):
                            table[state.ping(from: from)].yield(.pong(from: j))
                        }
                    }
                    return state.counts
                })
            }
        }
        // 2. pong(START) to every worker, in order.
        for inbox in inboxes {
            inbox.yield(.pong(from: start))
        }
        // 3. The sink has all N exits.
        await sink.value
        let t1 = monotonicNanos()
        // Quiescent: end the mailboxes, and each worker's Task returns its counters.
        for inbox in inboxes {
            inbox.finish()
        }
        sinkInbox.finish()
        var counts: [Counts] = []
        counts.reserveCapacity(n)
        for worker in workers {
            counts.append(await worker.value)
        }
        return Sample(ns: t1 &- t0, result: result(counts))
    }

    /// sc/task-per-message: workers and the sink are actors; every send is a new
    /// unstructured Task making one call (`post`), so each message costs a task.
    static func taskPerMessage(_ config: Config) async -> Sample {
        let t0 = monotonicNanos()
        // 1. The sink, the workers and their shared neighbourhood tables.
        let sink = BigSinkActor(workers: config.workers)
        var workers: [BigWorkerActor] = []
        workers.reserveCapacity(config.workers)
        var tables: [Neighbourhood<BigWorkerActor>] = []
        for hood in config.neighbourhoods {
            let table = Neighbourhood<BigWorkerActor>(capacity: hood.count)
            for w in hood {
                let worker = BigWorkerActor(
                    BigWorker(worker: w, localID: w - hood.lowerBound, hoodSize: hood.count, pings: config.pings),
                    table: table, sink: sink)
                table.members.append(worker)
                workers.append(worker)
            }
            tables.append(table)
        }
        // 2. pong(START) to every worker, in order.
        for worker in workers {
            post { await worker.pong(from: start) }
        }
        // 3.
        await sink.allExited()
        let t1 = monotonicNanos()
        // Quiescent: one report call per worker, then break the table cycles.
        var counts: [Counts] = []
        counts.reserveCapacity(workers.count)
        for worker in workers {
            counts.append(await worker.counts())
        }
        for table in tables {
            table.members = []
        }
        return Sample(ns: t1 &- t0, result: result(counts))
    }
}

/// Fire-and-forget: a new unstructured Task that makes one call. Created in this
/// nonisolated function, so the Task never starts on the sender's actor; a `Task {}`
/// written in an actor method that uses `self` would, costing one more hop per message.
@inline(__always)
func post(_ call: @escaping @Sendable () async -> Void) {
    Task(operation: call)
}

actor BigWorkerActor {
    private var state: BigWorker
    private let table: Neighbourhood<BigWorkerActor>
    private let sink: BigSinkActor

    init(_ state: BigWorker, table: Neighbourhood<BigWorkerActor>, sink: BigSinkActor) {
        self.state = state
        self.table = table
        self.sink = sink
    }

    func pong(from: Int) {
        let j = state.localID
        switch state.pong(from: from) {
        case .ping(let target):
            let receiver = table.members[target]
            post { await receiver.ping(from: j) }
        case .exit:
            let sink = sink
            post { await sink.exit() }
        }
    }

    func ping(from: Int) {
        let j = state.localID
        let receiver = table.members[state.ping(from: from)]
        post { await receiver.pong(from: j) }
    }

    func counts() -> Big.Counts {
        state.counts
    }
}

actor BigSinkActor {
    private let workers: Int
    private var exits = 0
    private var waiter: CheckedContinuation<Void, Never>?

    init(workers: Int) {
        self.workers = workers
    }

    func exit() {
        exits += 1
        if exits == workers {
            waiter?.resume()
            waiter = nil
        }
    }

    /// Returns once all N exits are in, whether they came before this call or after.
    func allExited() async {
        if exits == workers { return }
        await withCheckedContinuation { waiter = $0 }
    }
}
