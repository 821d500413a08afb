/// big/sc/best-handoff (not the thesis's program; issue 26): every worker a child task that prefers one
/// `ThreadExecutor` and lives its whole loop isolated to one `BigHall` actor on that executor, which holds
/// each worker's mailbox (its messages, or its waiting continuation). A send appends to the receiver's
/// mailbox or resumes it where it waits; the resumed worker runs on the same thread as soon as the sender
/// suspends for its own next message. No stream, no task per message, no thread woken.
actor BigHall: ThreadExecutorActor {
    private struct Mailbox {
        var messages = FIFO<Big.Message>()
        var waiting: UnsafeContinuation<Big.Message?, Never>?
    }

    private var mailboxes: [Mailbox]
    private var exits = 0
    private var everyExit: UnsafeContinuation<Void, Never>?
    private var stopped = false
    nonisolated let executor: ThreadExecutor

    init(workers: Int, executor: ThreadExecutor) {
        mailboxes = Array(repeating: Mailbox(), count: workers)
        self.executor = executor
    }

    /// Worker w's whole life: each message handled as the thesis's worker does; its counters once stopped.
    func worker(_ initial: BigWorker, at w: Int, hood: Range<Int>) async -> Big.Counts {
        var state = initial
        let j = state.localID
        while let message = await receive(w) {
            switch message {
            case .pong(let from):
                switch state.pong(from: from) {
                case .ping(let target): send(.ping(from: j), to: hood.lowerBound + target)
                case .exit: exited()
                }
            case .ping(let from):
                send(.pong(from: j), to: hood.lowerBound + state.ping(from: from))
            }
        }
        return state.counts
    }

    /// pong(START) to every worker, in order.
    func start() {
        for w in mailboxes.indices {
            send(.pong(from: Big.start), to: w)
        }
    }

    /// Returns once all N exits are in.
    func allExited() async {
        if exits == mailboxes.count { return }
        await withUnsafeContinuation { everyExit = $0 }
    }

    /// Quiescent (every ping answered once all have exited): each worker's loop ends.
    func stop() {
        stopped = true
        for w in mailboxes.indices {
            mailboxes[w].waiting?.resume(returning: nil)
            mailboxes[w].waiting = nil
        }
    }

    private func receive(_ w: Int) async -> Big.Message? {
        if let message = mailboxes[w].messages.pop() { return message }
        if stopped { return nil }
        return await withUnsafeContinuation { mailboxes[w].waiting = $0 }
    }

    private func send(_ message: Big.Message, to w: Int) {
        if let waiting = mailboxes[w].waiting {
            mailboxes[w].waiting = nil
            waiting.resume(returning: message)
        } else {
            mailboxes[w].messages.push(message)
        }
    }

    private func exited() {
        exits += 1
        if exits == mailboxes.count {
            everyExit?.resume()
            everyExit = nil
        }
    }
}

extension Big {
    static func handoff(_ config: Config) async -> Sample {
        // The executor's thread starts before the clock and ends after it.
        let executor = ThreadExecutor(name: "hall")
        defer { executor.shutdown() }
        let t0 = monotonicNanos()
        let hall = BigHall(workers: config.workers, executor: executor)
        return await withTaskGroup(of: (Int, Counts).self) { group in
            for hood in config.neighbourhoods {
                for w in hood {
                    let initial = BigWorker(worker: w, localID: w - hood.lowerBound, hoodSize: hood.count,
                                            pings: config.pings)
                    group.addTask(executorPreference: executor) { (w, await hall.worker(initial, at: w, hood: hood)) }
                }
            }
            await hall.start()
            await hall.allExited()
            let t1 = monotonicNanos()
            await hall.stop()
            var counts = Array(repeating: Counts(), count: config.workers)
            for await (w, c) in group {
                counts[w] = c
            }
            return Sample(ns: t1 &- t0, result: result(counts))
        }
    }
}
