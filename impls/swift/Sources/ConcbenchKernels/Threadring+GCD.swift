import Dispatch

/// threadring/gcd: one entity, a serial queue. A hop is one `async` block on the
/// successor's queue, so no block waits and the stack never grows.
final class ThreadringQueue: @unchecked Sendable {
    let queue = DispatchQueue(label: "concbench.threadring")
    let id: Int
    /// Set once while the ring is built, before the token is handed out.
    var next: ThreadringQueue!
    private let finish: ThreadringFinish

    init(id: Int, finish: ThreadringFinish) {
        self.id = id
        self.finish = finish
    }

    func pass(_ t: Int) {
        queue.async {
            if t == 0 {
                self.finish.report(self.id)
            } else {
                self.next.pass(t - 1)
            }
        }
    }
}

/// The report: written by the entity that receives 0, read after the semaphore.
final class ThreadringFinish: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    var id = 0

    func report(_ id: Int) {
        self.id = id
        done.signal()
    }
}

extension Threadring {
    public static func gcd(_ shape: GCDShape, tokens: Int, ring: Int) -> Sample {
        let t0 = monotonicNanos()
        let finish = ThreadringFinish()
        let nodes = (0..<ring).map { ThreadringQueue(id: $0 + 1, finish: finish) }
        for k in 0..<ring {
            nodes[k].next = nodes[(k + 1) % ring]
        }
        nodes[0].pass(tokens)
        finish.done.wait()
        let t1 = monotonicNanos()
        // Untimed teardown: the queues are idle; break the ring's reference cycle.
        for node in nodes {
            node.next = nil
        }
        return Sample(ns: t1 &- t0, result: result(finish.id))
    }
}
