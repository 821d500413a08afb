import Dispatch

/// A gcd/serial-queue worker: its state is only touched in blocks on its own queue.
final class BigQueueWorker: @unchecked Sendable {
    let queue: DispatchQueue
    private var state: BigWorker
    private let table: Neighbourhood<BigQueueWorker>
    private let sink: BigQueueSink

    init(_ state: BigWorker, table: Neighbourhood<BigQueueWorker>, sink: BigQueueSink, target: DispatchQueue?) {
        queue = DispatchQueue(label: "big.worker", target: target)
        self.state = state
        self.table = table
        self.sink = sink
    }

    func pong(from: Int) {
        let j = state.localID
        switch state.pong(from: from) {
        case .ping(let target):
            let receiver = table.members[target]
            receiver.queue.async { receiver.ping(from: j) }
        case .exit:
            let sink = sink
            sink.queue.async { sink.exit() }
        }
    }

    func ping(from: Int) {
        let j = state.localID
        let receiver = table.members[state.ping(from: from)]
        receiver.queue.async { receiver.pong(from: j) }
    }

    /// The report, read with a synchronous block on the worker's queue.
    func counts() -> Big.Counts {
        queue.sync { state.counts }
    }
}

/// The sink: counts exits on its own queue and signals once all N are in.
final class BigQueueSink: @unchecked Sendable {
    let queue: DispatchQueue
    let done = DispatchSemaphore(value: 0)
    private let workers: Int
    private var exits = 0

    init(workers: Int, target: DispatchQueue?) {
        queue = DispatchQueue(label: "big.sink", target: target)
        self.workers = workers
    }

    func exit() {
        exits += 1
        if exits == workers {
            done.signal()
        }
    }
}

extension Big {
    /// The gcd shapes. `serial-queue` uses plain serial queues, which libdispatch
    /// points at its overcommit root queue: a queue with work gets a thread even when
    /// every core is busy, so the pool grows towards its cap. `serial-queue-global`
    /// points every queue at `DispatchQueue.global()`, whose pool stays near the cores.
    public enum GCDShape: String, CaseIterable, Sendable {
        case serialQueue = "serial-queue"
        case serialQueueGlobal = "serial-queue-global"
    }

    /// gcd/serial-queue: a serial queue per worker and one for the sink; a send is an
    /// `async` block on the receiver's queue; completion is the sink's semaphore.
    public static func gcd(_ shape: GCDShape, _ config: Config) -> Sample {
        let target: DispatchQueue? = shape == .serialQueueGlobal ? .global() : nil
        let t0 = monotonicNanos()
        // 1. The sink, the workers and their shared neighbourhood tables.
        let sink = BigQueueSink(workers: config.workers, target: target)
        var workers: [BigQueueWorker] = []
        workers.reserveCapacity(config.workers)
        var tables: [Neighbourhood<BigQueueWorker>] = []
        for hood in config.neighbourhoods {
            let table = Neighbourhood<BigQueueWorker>(capacity: hood.count)
            for w in hood {
                let worker = BigQueueWorker(
                    BigWorker(worker: w, localID: w - hood.lowerBound, hoodSize: hood.count, pings: config.pings),
                    table: table, sink: sink, target: target)
                table.members.append(worker)
                workers.append(worker)
            }
            tables.append(table)
        }
        // 2. pong(START) to every worker, in order.
        for worker in workers {
            worker.queue.async { worker.pong(from: start) }
        }
        // 3.
        sink.done.wait()
        let t1 = monotonicNanos()
        // Quiescent: one report per worker, then break the table cycles.
        let counts = workers.map { $0.counts() }
        for table in tables {
            table.members = []
        }
        return Sample(ns: t1 &- t0, result: result(counts))
    }
}
