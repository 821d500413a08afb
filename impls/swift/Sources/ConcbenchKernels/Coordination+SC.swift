/// mutex/sc: the spec's counter actor; every increment is one awaited actor hop.
actor MutexCounter {
    private(set) var value = 0

    func incr() {
        value += 1
    }
}

/// prodcons/sc: the unbounded queue as an actor holding the items and a FIFO of
/// suspended consumers. No method blocks a thread: an empty `take` parks its
/// continuation, and `put` hands its value straight to the oldest one.
actor ProdConsQueue {
    private var items = FIFO<Int>()
    private var consumers = FIFO<CheckedContinuation<Int, Never>>()

    func put(_ v: Int) {
        if let consumer = consumers.pop() {
            consumer.resume(returning: v)
        } else {
            items.push(v)
        }
    }

    func take() async -> Int {
        if let v = items.pop() { return v }
        // The body runs on this actor before any other call gets in, so no put is missed.
        return await withCheckedContinuation { consumers.push($0) }
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

    /// prodcons/sc/actor: n producer and n consumer children of one group, all added
    /// before the group is awaited; each consumer returns its own count and sum.
    public static func prodconsSC(n: Int, m: Int) async -> Sample {
        await Sample.timing({
            let queue = ProdConsQueue()
            return await withTaskGroup(of: (count: Int, sum: UInt64).self) { group in
                for _ in 0..<n {
                    group.addTask {
                        var count = 0
                        var sum: UInt64 = 0
                        for _ in 0..<m {
                            sum &+= UInt64(await queue.take())
                            count += 1
                        }
                        return (count, sum)
                    }
                }
                for p in 0..<n {
                    group.addTask {
                        for k in 0..<m {
                            await queue.put(item(producer: p, index: k, m: m))
                        }
                        return (0, 0)
                    }
                }
                var total = (count: 0, sum: UInt64(0))
                for await part in group {
                    total.count += part.count
                    total.sum &+= part.sum
                }
                return total
            }
        }, format: { prodconsResult(consumed: $0.count, sum: $0.sum) })
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
