/// The SCOOP/Qs paper's coordination workloads (seed 001): mutex, prodcons and
/// condition. n workers (per role or parity) and m operations each; every operation
/// is its own synchronised step, and waiting always suspends or blocks, never polls.
public enum Coordination {
    /// mutex under gcd: `threads` (the default) has n dedicated threads, each taking the serial
    /// queue synchronously for every increment, so all n workers contend as in the paper's
    /// programs; `sync` does the same from `concurrentPerform(n)` iterations (only about as many
    /// run at once as there are cores); `async` submits every increment and reads once with `sync`.
    public enum MutexGCDShape: String, CaseIterable, Sendable {
        case threads
        case sync
        case async
    }

    /// prodcons under gcd: `semaphore` (faithful) has 2n dedicated threads, consumers
    /// blocking on a semaphore that counts the items; `callbacks` parks consumer
    /// closures on the queue, as the sc actor parks continuations.
    public enum ProdConsGCDShape: String, CaseIterable, Sendable {
        case semaphore
        case callbacks
    }

    /// prodcons under sc: `actor` (faithful) is the queue actor every producer and consumer
    /// hops onto; `best-handoff` (not the paper's program; issue 26) is the same queue on an
    /// executor thread of its own, every producer's and consumer's loop isolated to it
    /// (Coordination+Handoff.swift).
    public enum ProdConsSCShape: String, CaseIterable, Sendable {
        case actor
        case bestHandoff = "best-handoff"
    }

    /// condition under gcd: `semaphores` (the default) blocks 2n dedicated threads on per-parity
    /// semaphores, so a worker of the wrong parity waits and is woken as in the paper's
    /// programs; `callbacks` parks each worker's next iteration as a closure on one serial queue
    /// (nothing blocks, nobody is woken).
    public enum ConditionGCDShape: String, CaseIterable, Sendable {
        case semaphores
        case callbacks
    }

    static func mutexResult(_ count: Int) -> String {
        "count=\(count)"
    }

    static func prodconsResult(consumed: Int, sum: UInt64) -> String {
        "consumed=\(consumed) sum=\(sum)"
    }

    static func conditionResult(_ value: Int) -> String {
        "value=\(value)"
    }

    /// Producer p's k-th item: the distinct integers 1...n*m over all producers.
    @inline(__always)
    static func item(producer p: Int, index k: Int, m: Int) -> Int {
        p &* m &+ k &+ 1
    }
}

/// A first-in first-out queue on an array with a moving head: amortised O(1) push and
/// pop without Foundation or swift-collections. Used for items and parked waiters.
struct FIFO<Element> {
    private var storage: [Element] = []
    private var head = 0

    var isEmpty: Bool { head == storage.count }

    mutating func push(_ element: Element) {
        storage.append(element)
    }

    mutating func pop() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        head += 1
        // Drop the consumed prefix once it is most of the array, keeping pops O(1) amortised.
        if head >= 64 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }
}
