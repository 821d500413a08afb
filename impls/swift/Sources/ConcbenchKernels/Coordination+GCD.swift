import Dispatch
import Foundation

/// State owned by a serial queue: touched only inside blocks on `queue`.
final class QueueOwned<State>: @unchecked Sendable {
    let queue = DispatchQueue(label: "concbench.coordination")
    var state: State

    init(_ state: State) {
        self.state = state
    }
}

/// Starts `count` dedicated threads (not GCD workers: blocked waiters would use up the
/// pool) running `body(index)`, and returns once all have finished.
func onDedicatedThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for i in 0..<count {
        group.enter()
        Thread {
            body(i)
            group.leave()
        }.start()
    }
    group.wait()
}

/// prodcons/gcd/callbacks: the deque and the parked consumer closures, on one queue.
struct CallbackQueueState {
    var items = FIFO<Int>()
    var parked = FIFO<@Sendable (Int) -> Void>()
}

/// A callbacks consumer: its own serial queue runs its accumulation, so consumers are
/// entities apart from the shared queue; the shared queue only hands values over.
final class CallbackConsumer: @unchecked Sendable {
    let queue = DispatchQueue(label: "concbench.consumer")
    private let shared: QueueOwned<CallbackQueueState>
    private let group: DispatchGroup
    private var remaining: Int
    private(set) var count = 0
    private(set) var sum: UInt64 = 0

    init(shared: QueueOwned<CallbackQueueState>, m: Int, group: DispatchGroup) {
        self.shared = shared
        self.group = group
        remaining = m
    }

    /// Asks for one item: taken at once if there is one, else this consumer's closure
    /// is parked until a put arrives. Always a fresh block, so no stack grows.
    func request() {
        let shared = shared
        shared.queue.async {
            let deliver: @Sendable (Int) -> Void = { v in self.queue.async { self.receive(v) } }
            if let v = shared.state.items.pop() {
                deliver(v)
            } else {
                shared.state.parked.push(deliver)
            }
        }
    }

    func start() {
        if remaining == 0 {
            group.leave()
        } else {
            request()
        }
    }

    private func receive(_ v: Int) {
        sum &+= UInt64(v)
        count += 1
        remaining -= 1
        if remaining == 0 {
            group.leave()
        } else {
            request()
        }
    }
}

/// condition/gcd/callbacks: x and the parked iterations of each parity, on one queue.
final class ConditionCallbacks: @unchecked Sendable {
    let queue = DispatchQueue(label: "concbench.condition")
    private var x = 0
    private var parked = [FIFO<Int>(), FIFO<Int>()]
    private var remaining: [Int]
    private let group: DispatchGroup

    var value: Int { queue.sync { x } }

    init(workers: Int, m: Int, group: DispatchGroup) {
        remaining = Array(repeating: m, count: workers)
        self.group = group
    }

    /// Worker w's next iteration, submitted as a block.
    func submit(_ w: Int) {
        queue.async { self.attempt(w) }
    }

    /// One iteration of worker w, on the queue: park it if x has the wrong parity;
    /// otherwise increment, re-submit the oldest parked iteration of the other parity
    /// (it re-tests when it runs) and this worker's own next one.
    private func attempt(_ w: Int) {
        let f = w % 2
        guard x % 2 == f else {
            parked[f].push(w)
            return
        }
        x += 1
        if let other = parked[1 - f].pop() {
            submit(other)
        }
        remaining[w] -= 1
        if remaining[w] > 0 {
            submit(w)
        } else {
            group.leave()
        }
    }
}

/// condition/gcd/semaphores: the queue guards x and the count of waiters per parity;
/// a waiter blocks on its parity's semaphore, and a signal makes it re-test.
struct ConditionSemaphoreState {
    var x = 0
    var waiting = [0, 0]
}

extension Coordination {
    /// mutex/gcd: n workers on the counter's serial queue (n dedicated threads, or n
    /// `concurrentPerform` iterations), `sync` per increment, or `async` per increment and a
    /// final `sync` read (FIFO puts it behind every increment).
    public static func mutexGCD(_ shape: MutexGCDShape, n: Int, m: Int) -> Sample {
        Sample.timing({
            let counter = QueueOwned(0)
            switch shape {
            case .threads:
                onDedicatedThreads(n) { _ in
                    for _ in 0..<m {
                        counter.queue.sync { counter.state += 1 }
                    }
                }
            case .sync:
                DispatchQueue.concurrentPerform(iterations: n) { _ in
                    for _ in 0..<m {
                        counter.queue.sync { counter.state += 1 }
                    }
                }
            case .async:
                DispatchQueue.concurrentPerform(iterations: n) { _ in
                    for _ in 0..<m {
                        counter.queue.async { counter.state += 1 }
                    }
                }
            }
            return counter.queue.sync { counter.state }
        }, format: mutexResult)
    }

    public static func prodconsGCD(_ shape: ProdConsGCDShape, n: Int, m: Int) -> Sample {
        switch shape {
        case .semaphore: prodconsSemaphore(n: n, m: m)
        case .callbacks: prodconsCallbacks(n: n, m: m)
        }
    }

    /// prodcons/gcd/semaphore: the queue owns the deque and the semaphore counts the
    /// items. A producer appends through the queue and then signals; a consumer waits,
    /// then takes through `sync`. The 2n workers are dedicated threads, consumers first.
    static func prodconsSemaphore(n: Int, m: Int) -> Sample {
        Sample.timing({
            let deque = QueueOwned((items: FIFO<Int>(), count: 0, sum: UInt64(0)))
            let available = DispatchSemaphore(value: 0)
            onDedicatedThreads(2 * n) { i in
                if i < n {
                    var count = 0
                    var sum: UInt64 = 0
                    for _ in 0..<m {
                        available.wait()
                        // The semaphore guarantees an item; the queue makes the take atomic.
                        sum &+= UInt64(deque.queue.sync { deque.state.items.pop()! })
                        count += 1
                    }
                    deque.queue.sync {
                        deque.state.count += count
                        deque.state.sum &+= sum
                    }
                } else {
                    let p = i - n
                    for k in 0..<m {
                        let v = item(producer: p, index: k, m: m)
                        deque.queue.sync { deque.state.items.push(v) }
                        available.signal()
                    }
                }
            }
            return deque.queue.sync { (deque.state.count, deque.state.sum) }
        }, format: { prodconsResult(consumed: $0.0, sum: $0.1) })
    }

    /// prodcons/gcd/callbacks: consumers park closures on the shared queue; a put hands
    /// its value to the oldest parked one or appends it. Producers are global-queue
    /// blocks that only submit `async` puts, so no pool thread ever blocks.
    static func prodconsCallbacks(n: Int, m: Int) -> Sample {
        Sample.timing({
            let shared = QueueOwned(CallbackQueueState())
            let consumersDone = DispatchGroup()
            let consumers = (0..<n).map { _ in CallbackConsumer(shared: shared, m: m, group: consumersDone) }
            for consumer in consumers {
                consumersDone.enter()
                consumer.start()
            }
            for p in 0..<n {
                DispatchQueue.global().async {
                    for k in 0..<m {
                        let v = item(producer: p, index: k, m: m)
                        shared.queue.async {
                            if let consumer = shared.state.parked.pop() {
                                consumer(v)
                            } else {
                                shared.state.items.push(v)
                            }
                        }
                    }
                }
            }
            // Every item is consumed, so every producer block has run to its end too.
            consumersDone.wait()
            var total = (count: 0, sum: UInt64(0))
            for consumer in consumers {
                let part = consumer.queue.sync { (consumer.count, consumer.sum) }
                total.count += part.0
                total.sum &+= part.1
            }
            return total
        }, format: { prodconsResult(consumed: $0.count, sum: $0.sum) })
    }

    public static func conditionGCD(_ shape: ConditionGCDShape, n: Int, m: Int) -> Sample {
        switch shape {
        case .callbacks: conditionCallbacks(n: n, m: m)
        case .semaphores: conditionSemaphores(n: n, m: m)
        }
    }

    /// condition/gcd/callbacks: each of the 2n workers is a chain of blocks on one serial
    /// queue, the GCD analogue of the Erlang coordinator.
    static func conditionCallbacks(n: Int, m: Int) -> Sample {
        Sample.timing({
            let group = DispatchGroup()
            let data = ConditionCallbacks(workers: 2 * n, m: m, group: group)
            if m > 0 {
                for w in 0..<(2 * n) {
                    group.enter()
                    data.submit(w)
                }
            }
            group.wait()
            return data.value
        }, format: conditionResult)
    }

    /// condition/gcd/semaphores: 2n dedicated threads. A worker tests and increments
    /// inside `sync`; on the wrong parity it registers as waiting there and blocks on its
    /// parity's semaphore, which keeps a signal that comes before the wait.
    static func conditionSemaphores(n: Int, m: Int) -> Sample {
        Sample.timing({
            let data = QueueOwned(ConditionSemaphoreState())
            let wake = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
            onDedicatedThreads(2 * n) { w in
                let f = w % 2
                for _ in 0..<m {
                    while true {
                        let done: Bool = data.queue.sync {
                            guard data.state.x % 2 == f else {
                                data.state.waiting[f] += 1
                                return false
                            }
                            data.state.x += 1
                            if data.state.waiting[1 - f] > 0 {
                                data.state.waiting[1 - f] -= 1
                                wake[1 - f].signal()
                            }
                            return true
                        }
                        if done { break }
                        wake[f].wait()
                    }
                }
            }
            return data.queue.sync { data.state.x }
        }, format: conditionResult)
    }
}
