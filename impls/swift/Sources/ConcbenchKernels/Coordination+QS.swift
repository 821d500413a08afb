import Foundation
import Separate

/// The coordination benchmarks as the specs' SCOOP/Qs programs, on the Separate runtime: the shared
/// object lives on its own handler, every worker is a client task on the runtime's threads, and so
/// is main (`runtime.run`).
extension Coordination {
    final class Count { var value = 0 }

    /// prodcons' container: a stack, as the paper's stored program (INT_STACK) had.
    final class Stack { var items: [Int] = [] }

    /// mutex/qs: each worker logs `separate data do data.incr end` m times and never waits; main
    /// joins the workers, then queries from its own block, queued behind every worker's.
    public static nonisolated(nonsending) func mutexQS(_ runtime: Runtime, n: Int, m: Int) async -> Sample {
        await runtime.run { await Sample.timing({
            let data = Handler(Count(), runtime: runtime)
            await runtime.clients(n) { _, client in
                for _ in 0..<m {
                    await client.separate(data) { d in await d.call { $0.value += 1 } }
                }
            }
            return await Client(runtime).separate(data) { d in await d.query { $0.value } }
        }, format: mutexResult) }
    }

    /// prodcons/qs: producers log pushes; a consumer's block waits on `stack.count > 0`, then takes
    /// the top with a query and pops with a call, one atomic step under the block guarantee.
    public static nonisolated(nonsending) func prodconsQS(_ runtime: Runtime, n: Int, m: Int) async -> Sample {
        await runtime.run { await Sample.timing({
            let stack = Handler(Stack(), runtime: runtime)
            let totals = Totals()
            await runtime.clients(2 * n) { index, client in
                if index < n {
                    for k in 0..<m {
                        let value = item(producer: index, index: k, m: m)
                        await client.separate(stack) { s in await s.call(with: value) { $0.items.append($1) } }
                    }
                } else {
                    var count = 0
                    var sum: UInt64 = 0
                    for _ in 0..<m {
                        let value = await client.separate(stack, until: { !$0.items.isEmpty }) { s in
                            let top = await s.query { $0.items.last! }
                            await s.call { $0.items.removeLast() }
                            return top
                        }
                        sum &+= UInt64(value)
                        count += 1
                    }
                    totals.add(count: count, sum: sum)
                }
            }
            return totals.value
        }, format: { prodconsResult(consumed: $0.count, sum: $0.sum) }) }
    }

    /// condition/qs: 2n workers each run m blocks `separate data require data.value \\ 2 = f do
    /// data.incr end`; a false condition gives the reservation back until data changes.
    public static nonisolated(nonsending) func conditionQS(_ runtime: Runtime, n: Int, m: Int) async -> Sample {
        await runtime.run { await Sample.timing({
            let data = Handler(Count(), runtime: runtime)
            await runtime.clients(2 * n) { index, client in
                let parity = index % 2
                for _ in 0..<m {
                    await client.separate(data, until: { $0.value % 2 == parity }) { d in await d.call { $0.value += 1 } }
                }
            }
            return await Client(runtime).separate(data) { d in await d.query { $0.value } }
        }, format: conditionResult) }
    }
}

/// The consumers' counts and sums, added up as each consumer finishes. Under a pthread mutex
/// (NSLock), not Synchronization's Mutex: its futexes are invisible to ThreadSanitizer, which then
/// reports two consumers finishing at once as a race (these kernels' tests run under TSan).
final class Totals: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var sum: UInt64 = 0

    func add(count: Int, sum: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        self.count += count
        self.sum &+= sum
    }

    var value: (count: Int, sum: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        return (count, sum)
    }
}
