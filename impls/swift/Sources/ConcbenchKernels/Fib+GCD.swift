import Dispatch
import Synchronization

extension Fib {
    /// gcd/cps (faithful, Listing 3.4): one async dispatch per internal node, and
    /// fib(k-2) starts only inside fib(k-1)'s completion handler, so exactly one
    /// block is queued or running at any time: a sequential chain by construction.
    static func cps<T: SpawnTally>(
        _ k: Int, cutoff: Int, tally: T, _ done: @escaping @Sendable (Int) -> Void
    ) {
        if k < 2 { done(k); return }
        if k < cutoff { done(seqfib(k)); return }
        tally.record(1)
        DispatchQueue.global().async {
            cps(k - 1, cutoff: cutoff, tally: tally) { a in
                cps(k - 2, cutoff: cutoff, tally: tally) { b in
                    done(a + b)
                }
            }
        }
    }

    /// gcd/parallel (added by the spec): both children dispatched; whichever
    /// finishes last continues the parent on its own thread. No group is used,
    /// since a notify would add a third work item per node.
    static func parallel<T: SpawnTally>(
        _ k: Int, cutoff: Int, tally: T, _ done: @escaping @Sendable (Int) -> Void
    ) {
        if k < 2 { done(k); return }
        if k < cutoff { done(seqfib(k)); return }
        tally.record(2)
        let join = FibJoin(done)
        DispatchQueue.global().async {
            parallel(k - 1, cutoff: cutoff, tally: tally) { a in
                join.a = a
                join.arrive()
            }
        }
        DispatchQueue.global().async {
            parallel(k - 2, cutoff: cutoff, tally: tally) { b in
                join.b = b
                join.arrive()
            }
        }
    }

    static func start<T: SpawnTally>(
        _ shape: GCDShape, n: Int, cutoff: Int, tally: T,
        _ done: @escaping @Sendable (Int) -> Void
    ) {
        switch shape {
        case .cps: cps(n, cutoff: cutoff, tally: tally, done)
        case .parallel: parallel(n, cutoff: cutoff, tally: tally, done)
        }
    }

    /// One timed gcd iteration. The caller blocks on a semaphore; t1 is taken inside
    /// the final continuation, as the spec says, not after the wake-up.
    public static func gcd(_ shape: GCDShape, n: Int, cutoff: Int) -> Sample {
        let finished = DispatchSemaphore(value: 0)
        // Written by the final continuation before it signals; read after the wait.
        let out = HandOff((value: 0, t1: UInt64(0)))
        let t0 = monotonicNanos()
        start(shape, n: n, cutoff: cutoff, tally: NoTally()) { r in
            let t1 = monotonicNanos()
            out.value = (r, t1)
            finished.signal()
        }
        finished.wait()
        return Sample(ns: out.value.t1 &- t0, result: String(out.value.value))
    }

    /// Untimed counting pass: the dispatches one gcd iteration really makes.
    public static func gcdSpawnCount(_ shape: GCDShape, n: Int, cutoff: Int) -> Int {
        let finished = DispatchSemaphore(value: 0)
        let tally = CountingTally()
        start(shape, n: n, cutoff: cutoff, tally: tally) { _ in finished.signal() }
        finished.wait()
        return tally.total
    }
}

/// The join record of gcd/parallel. `a` is written only by the first child's
/// continuation and `b` only by the second's; the acquire-release decrement of
/// `pending` orders both writes before the last arriver reads them.
final class FibJoin: @unchecked Sendable {
    var a = 0
    var b = 0
    private let pending = Atomic<Int>(2)
    private let done: @Sendable (Int) -> Void

    init(_ done: @escaping @Sendable (Int) -> Void) {
        self.done = done
    }

    func arrive() {
        if pending.subtract(1, ordering: .acquiringAndReleasing).oldValue == 1 {
            done(a + b)
        }
    }
}
