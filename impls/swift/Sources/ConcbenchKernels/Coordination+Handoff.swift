/// prodcons/sc/best-handoff (not the paper's program; issue 26): the unbounded queue as an actor on
/// a `ThreadExecutor`, and every producer and consumer a child task that prefers that executor and
/// runs its whole loop as a method of the queue. A put or a take is a plain call; an empty take
/// suspends on an `UnsafeContinuation`, and the put that fills it queues the consumer on the same
/// thread. Everything runs on that one thread and no thread is woken.
actor HandoffQueue: ThreadExecutorActor {
    private var buffer = HandOffBuffer<UnsafeContinuation<Int, Never>>()
    nonisolated let executor: ThreadExecutor

    init(executor: ThreadExecutor) {
        self.executor = executor
    }

    func produce(_ p: Int, m: Int) {
        for k in 0..<m {
            buffer.put(Coordination.item(producer: p, index: k, m: m))
        }
    }

    func consume(_ m: Int) async -> Coordination.Consumed {
        var total = Coordination.Consumed()
        for _ in 0..<m {
            if let v = buffer.takeNow() {
                total.add(v)
            } else {
                total.add(await withUnsafeContinuation { buffer.park($0) })
            }
        }
        return total
    }
}

extension Coordination {
    static func prodconsHandoff(n: Int, m: Int) async -> Sample {
        // The executor's thread starts before the timed iteration and ends after it.
        let executor = ThreadExecutor(name: "queue")
        defer { executor.shutdown() }
        return await Sample.timing({
            let queue = HandoffQueue(executor: executor)
            return await prodconsGroup(n: n, on: executor, consume: { await queue.consume(m) },
                                       produce: { await queue.produce($0, m: m) })
        }, format: { prodconsResult(consumed: $0.count, sum: $0.sum) })
    }
}
