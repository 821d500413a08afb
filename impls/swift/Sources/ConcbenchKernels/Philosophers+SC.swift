/// philosophers/sc: each fork an actor with a FIFO of parked continuations; a philosopher takes
/// the lower-numbered of its forks first (an actor cannot be held together with another).
actor ForkActor {
    private let fork = Philosophers.Fork()
    private var waiting = FIFO<(Int, CheckedContinuation<Void, Never>)>()

    func acquire(_ i: Int) async {
        if fork.holder == Philosophers.nobody {
            fork.take(i)
            return
        }
        await withCheckedContinuation { waiting.push((i, $0)) }
    }

    func release(_ i: Int) {
        fork.handBack(i)
        if let (next, continuation) = waiting.pop() {
            fork.take(next)                  // the fork passes straight to the oldest waiter
            continuation.resume()
        }
    }

    var counts: (uses: Int, overlaps: Int) { (fork.uses, fork.overlaps) }
}

extension Philosophers {
    public static func sc(n: Int, m: Int) async -> Sample {
        let t0 = monotonicNanos()
        let forks = (0..<n).map { _ in ForkActor() }
        let meals = await withTaskGroup(of: (Int, Int).self) { group in
            for i in 0..<n {
                group.addTask {
                    let (left, right) = (i, (i + 1) % n)
                    let (first, second) = (forks[min(left, right)], forks[max(left, right)])
                    var eaten = 0
                    for _ in 0..<m {
                        await first.acquire(i)
                        await second.acquire(i)
                        eaten += 1
                        await forks[left].release(i)
                        await forks[right].release(i)
                    }
                    return (i, eaten)
                }
            }
            var meals = Array(repeating: 0, count: n)
            for await (i, eaten) in group { meals[i] = eaten }
            return meals
        }
        var uses = 0, overlaps = 0
        for fork in forks {
            let counts = await fork.counts
            uses += counts.uses
            overlaps += counts.overlaps
        }
        let t1 = monotonicNanos()
        return sample(ns: t1 &- t0, meals: meals, uses: uses, overlaps: overlaps)
    }
}
