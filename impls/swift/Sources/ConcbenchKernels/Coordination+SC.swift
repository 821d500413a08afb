/// mutex/sc: the spec's counter actor; every increment is one awaited actor hop.
actor MutexCounter {
    private(set) var value = 0

    func incr() {
        value += 1
    }
}

/// The unbounded queue's state, whichever actor holds it: the items and a FIFO of suspended
/// consumers; `put` hands its value straight to the oldest one.
struct HandOffBuffer<Consumer: Resumable> where Consumer.Value == Int {
    private var items = FIFO<Int>()
    private var consumers = FIFO<Consumer>()

    mutating func put(_ v: Int) {
        if let consumer = consumers.pop() {
            consumer.resume(returning: v)
        } else {
            items.push(v)
        }
    }

    mutating func takeNow() -> Int? {
        items.pop()
    }

    mutating func park(_ consumer: Consumer) {
        consumers.push(consumer)
    }
}

/// prodcons/sc: the unbounded queue as an actor. No method blocks a thread: an empty
/// `take` parks its continuation.
actor ProdConsQueue {
    private var buffer = HandOffBuffer<CheckedContinuation<Int, Never>>()

    func put(_ v: Int) {
        buffer.put(v)
    }

    func take() async -> Int {
        if let v = buffer.takeNow() { return v }
        // The body runs on this actor before any other call gets in, so no put is missed.
        return await withCheckedContinuation { buffer.park($0) }
    }
}

/// condition/sc: x and one FIFO of parked continuations per parity. A resumed worker
/// re-tests on the actor (it is never incremented for), so a stale wake-up only parks
/// it again.
actor ConditionValue {
    private(set) var x = 0
    private var parked = [FIFO<CheckedContinuation<Void, Never>>(), FIFO<CheckedContinuation<Void, Never>>()]

    func step(_ f: Int) async {
        while x % 2 != f {
            await withCheckedContinuation { parked[f].push($0) }
        }
        x += 1
        // x now has the other parity: wake that parity's oldest waiter, if any.
        parked[1 - f].pop()?.resume()
    }
}

extension Coordination {
    /// mutex/sc/actor: a TaskGroup of n children, each awaiting `incr` m times; the
    /// group's end orders the final read after every increment.
    public static func mutexSC(n: Int, m: Int) async -> Sample {
        await Sample.timing({
            let counter = MutexCounter()
            await withDiscardingTaskGroup { group in
                for _ in 0..<n {
                    group.addTask {
                        for _ in 0..<m {
                            await counter.incr()
                        }
                    }
                }
            }
            return await counter.value
        }, format: mutexResult)
    }

    public static func prodconsSC(_ shape: ProdConsSCShape, n: Int, m: Int) async -> Sample {
        switch shape {
        case .actor: await prodconsActor(n: n, m: m)
        case .bestHandoff: await prodconsHandoff(n: n, m: m)
        }
    }

    /// prodcons/sc/actor: n producer and n consumer children of one group, all added
    /// before the group is awaited; each consumer returns its own count and sum.
    static func prodconsActor(n: Int, m: Int) async -> Sample {
        await Sample.timing({
            let queue = ProdConsQueue()
            return await prodconsGroup(n: n, consume: {
                var total = Consumed()
                for _ in 0..<m {
                    total.add(await queue.take())
                }
                return total
            }, produce: { p in
                for k in 0..<m {
                    await queue.put(item(producer: p, index: k, m: m))
                }
            })
        }, format: { prodconsResult(consumed: $0.count, sum: $0.sum) })
    }

    /// What consumers took: how many items and their sum.
    struct Consumed: Sendable {
        private(set) var count = 0
        private(set) var sum: UInt64 = 0

        mutating func add(_ v: Int) {
            count += 1
            sum &+= UInt64(v)
        }

        mutating func add(_ other: Consumed) {
            count += other.count
            sum &+= other.sum
        }
    }

    /// n consumers and n producers as children of one group (on `executor` where given), all
    /// added before the group is awaited; the consumers' totals added up.
    static func prodconsGroup(n: Int, on executor: (any TaskExecutor)? = nil,
                              consume: @escaping @Sendable () async -> Consumed,
                              produce: @escaping @Sendable (Int) async -> Void) async -> Consumed {
        await withTaskGroup(of: Consumed.self) { group in
            for _ in 0..<n {
                group.addTask(executorPreference: executor) { await consume() }
            }
            for p in 0..<n {
                group.addTask(executorPreference: executor) {
                    await produce(p)
                    return Consumed()
                }
            }
            var total = Consumed()
            for await part in group {
                total.add(part)
            }
            return total
        }
    }

    /// condition/sc/actor: 2n children, worker w of parity w mod 2, each stepping m times.
    public static func conditionSC(n: Int, m: Int) async -> Sample {
        await Sample.timing({
            let data = ConditionValue()
            await withDiscardingTaskGroup { group in
                for w in 0..<(2 * n) {
                    group.addTask {
                        for _ in 0..<m {
                            await data.step(w % 2)
                        }
                    }
                }
            }
            return await data.x
        }, format: conditionResult)
    }
}
