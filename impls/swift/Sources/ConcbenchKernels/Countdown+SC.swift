import Synchronization

extension Countdown {
    /// The shapes the spec defines for the sc model; `naive` is the faithful port.
    public enum SCShape: String, CaseIterable, Sendable {
        case naive
        case nodict
        case indexed
    }

    /// One timed sc iteration of `shape` with at most `window` batches outstanding.
    public static func sc(_ shape: SCShape, _ instance: Instance, window: Int) async -> Sample {
        let t0 = monotonicNanos()
        let outcome: Outcome
        switch shape {
        case .naive: outcome = await Naive.run(instance, window: window)
        case .nodict: outcome = await NoDict.run(instance, window: window)
        case .indexed: outcome = await Indexed.run(instance, window: window)
        }
        let t1 = monotonicNanos()
        return sample(ns: t1 &- t0, outcome)
    }

    /// The result-collecting actor: every solution string reaches it through a small
    /// child task of its own, as in the original.
    actor SolutionCollector {
        private var strings: [String] = []

        func add(_ s: String) {
            strings.append(s)
        }

        func gathered() -> [String] {
            strings
        }
    }

    /// The async channel from the main exploration to the driver loop, a rendezvous:
    /// `send` returns only once the driver has taken the batch, so at most one ready
    /// descriptor ever waits and the producer cannot run ahead.
    final class BatchChannel<Batch: Sendable>: Sendable {
        private struct State {
            var offered: (batch: Batch, sender: CheckedContinuation<Void, Never>)?
            var taker: CheckedContinuation<Batch?, Never>?
            var finished = false
        }

        private let state = Mutex(State())

        /// Producer side: suspends until the driver takes `batch`.
        func send(_ batch: Batch) async {
            await withCheckedContinuation { (sender: CheckedContinuation<Void, Never>) in
                let taker = state.withLock { s -> CheckedContinuation<Batch?, Never>? in
                    if let t = s.taker {
                        s.taker = nil
                        return t
                    }
                    s.offered = (batch, sender)
                    return nil
                }
                if let taker {
                    taker.resume(returning: batch)
                    sender.resume()
                }
            }
        }

        /// Driver side: the next batch, or nil once the producer has finished.
        func next() async -> Batch? {
            await withCheckedContinuation { (taker: CheckedContinuation<Batch?, Never>) in
                let offer = state.withLock {
                    s -> (batch: Batch, sender: CheckedContinuation<Void, Never>)?? in
                    if let o = s.offered {
                        s.offered = nil
                        return .some(o)
                    }
                    if s.finished { return .some(nil) }
                    s.taker = taker
                    return nil
                }
                switch offer {
                case .some(.some(let o)):
                    o.sender.resume()
                    taker.resume(returning: o.batch)
                case .some(.none):
                    taker.resume(returning: nil)
                case .none:
                    break
                }
            }
        }

        func finish() {
            let taker = state.withLock { s -> CheckedContinuation<Batch?, Never>? in
                s.finished = true
                defer { s.taker = nil }
                return s.taker
            }
            taker?.resume(returning: nil)
        }
    }

    /// The driver of every sc shape (the original's Computer): the main exploration
    /// runs as a child task feeding the channel; this loop counts outstanding batch
    /// tasks in a task group and, at `window`, awaits `group.next()` before it pulls
    /// the next batch. Even window 1 spawns, caps and waits. Solutions, from the main
    /// or a batch, reach the collector each by a small child task.
    static func capped<Batch: Sendable>(
        window: Int,
        explore: @escaping @Sendable (
            _ channel: BatchChannel<Batch>, _ report: (String) -> Void
        ) async -> Void,
        run: @escaping @Sendable (_ batch: Batch, _ report: (String) -> Void) -> Void
    ) async -> Outcome {
        let collector = SolutionCollector()
        let channel = BatchChannel<Batch>()
        async let explored: Void = produce(channel, collector, explore)
        var batches = 0
        await withTaskGroup(of: Void.self) { group in
            var outstanding = 0
            while true {
                guard outstanding < window else {
                    _ = await group.next()
                    outstanding -= 1
                    continue
                }
                guard let batch = await channel.next() else { break }
                batches += 1
                outstanding += 1
                group.addTask {
                    await withTaskGroup(of: Void.self) { results in
                        run(batch) { s in results.addTask { await collector.add(s) } }
                    }
                }
            }
        }
        await explored
        return Outcome(solutions: await collector.gathered(), batches: batches)
    }

    /// The main exploration inside its own results group; the channel is closed once
    /// it has emitted every batch.
    private static func produce<Batch: Sendable>(
        _ channel: BatchChannel<Batch>, _ collector: SolutionCollector,
        _ explore: @Sendable (BatchChannel<Batch>, (String) -> Void) async -> Void
    ) async {
        await withTaskGroup(of: Void.self) { results in
            await explore(channel) { s in results.addTask { await collector.add(s) } }
        }
        channel.finish()
    }
}
