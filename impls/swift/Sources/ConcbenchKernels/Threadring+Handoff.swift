/// threadring/sc/best-handoff: the ring on one actor, run by a `ThreadExecutor` (one thread of its
/// own). Each entity is a task that prefers that executor and waits, isolated to the ring actor, for
/// its token in a slot; a hop puts the token in the successor's slot and, if the successor is
/// waiting, resumes it. The resumed task is queued on the same thread and runs once the sender
/// suspends for its own next token: a hop is a resume and a suspend, no thread wakes. (The Swift
/// counterpart of the fastest public threadring programs: lightweight threads on one scheduler with
/// direct hand-off.) On the default actor executor the same program wakes pool threads: the actor
/// goes back to the global pool whenever its queue runs dry.
actor ThreadringRing: ThreadExecutorActor {
    /// One entity's mailbox: the token delivered before it waited, or its waiting continuation.
    private struct Slot {
        var token: Int?
        var waiting: UnsafeContinuation<Int, Never>?
    }

    private var slots: [Slot]
    nonisolated let executor: ThreadExecutor

    init(size: Int, executor: ThreadExecutor) {
        slots = Array(repeating: Slot(), count: size)
        self.executor = executor
    }

    /// Entity k's next token (a negative one ends its loop).
    func take(_ k: Int) async -> Int {
        if let token = slots[k].token {
            slots[k].token = nil
            return token
        }
        return await withUnsafeContinuation { slots[k].waiting = $0 }
    }

    /// Hands `token` to entity k.
    func give(_ token: Int, to k: Int) {
        if let waiting = slots[k].waiting {
            slots[k].waiting = nil
            waiting.resume(returning: token)
        } else {
            slots[k].token = token
        }
    }

    /// Entity k's whole life: receive, pass on decremented, report the id that receives 0.
    func entity(_ k: Int, report: AsyncStream<Int>.Continuation) async {
        let next = (k + 1) % slots.count
        while true {
            let t = await take(k)
            if t < 0 {
                return
            }
            if t == 0 {
                report.yield(k + 1)
            } else {
                give(t - 1, to: next)
            }
        }
    }
}

extension Threadring {
    static func handoff(tokens: Int, ring: Int, on executor: ThreadExecutor) async -> (id: Int, t1: UInt64) {
        let (reports, report) = AsyncStream.makeStream(of: Int.self)
        let actor = ThreadringRing(size: ring, executor: executor)
        return await withDiscardingTaskGroup { group in
            for k in 0..<ring {
                group.addTask(executorPreference: executor) { await actor.entity(k, report: report) }
            }
            await actor.give(tokens, to: 0)
            var answers = reports.makeAsyncIterator()
            let id = await answers.next()!
            let t1 = monotonicNanos()
            // Untimed teardown: a negative token ends every entity's loop, and the group joins them.
            for k in 0..<ring {
                await actor.give(-1, to: k)
            }
            return (id, t1)
        }
    }
}
