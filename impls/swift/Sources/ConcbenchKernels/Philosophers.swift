import Foundation
import Separate

/// philosophers (docs/benchmarks/philosophers.md): n philosophers round n forks each eat m times
/// holding both neighbouring forks at once. Every fork checks, on its own synchronised path, that
/// nobody else holds it when it is taken: the overlaps prove exclusion.
public enum Philosophers {
    static func result(meals: Int, uses: Int, overlaps: Int) -> String {
        "meals=\(meals) fork_uses=\(uses) overlaps=\(overlaps)"
    }

    static func sample(ns: UInt64, meals: [Int], uses: Int, overlaps: Int) -> Sample {
        Sample(ns: ns, result: result(meals: meals.reduce(0, +), uses: uses, overlaps: overlaps),
               metrics: [Metric("min_meals", meals.min() ?? 0), Metric("max_meals", meals.max() ?? 0)])
    }

    static let nobody = -1

    /// A fork's state; touched only on its model's path (its handler, its actor).
    final class Fork {
        var holder = nobody
        var uses = 0
        var overlaps = 0

        func take(_ i: Int) {
            if holder != nobody { overlaps += 1 }
            holder = i
        }

        func handBack(_ i: Int) {
            if holder == i { uses += 1 } else { overlaps += 1 }
            holder = nobody
        }
    }

    /// qs: one block reserving both forks (resMany); the queries make the philosopher wait until
    /// both handlers serve its block, from then until the block ends it holds both forks.
    public static nonisolated(nonsending) func qs(_ runtime: Runtime, n: Int, m: Int) async -> Sample {
        await runtime.run { await qsOnRuntime(runtime, n: n, m: m) }   // main is a client too
    }

    static nonisolated(nonsending) func qsOnRuntime(_ runtime: Runtime, n: Int, m: Int) async -> Sample {
        let t0 = monotonicNanos()
        let forks = (0..<n).map { _ in Handler(Fork(), runtime: runtime) }
        let meals = MealBook(n)
        await runtime.clients(n) { i, client in
            let (left, right) = (forks[i], forks[(i + 1) % n])
            var eaten = 0
            for _ in 0..<m {
                await client.separate(left, right) { l, r in
                    await l.call(with: i) { $0.take($1) }
                    await r.call(with: i) { $0.take($1) }
                    _ = await l.query { $0.holder }
                    _ = await r.query { $0.holder }
                    eaten += 1
                    await l.call(with: i) { $0.handBack($1) }
                    await r.call(with: i) { $0.handBack($1) }
                }
            }
            meals.record(i, eaten)
        }
        let main = Client(runtime)
        var uses = 0, overlaps = 0
        for fork in forks {
            let (u, o) = await main.separate(fork) { f in await f.query { ($0.uses, $0.overlaps) } }
            uses += u
            overlaps += o
        }
        let t1 = monotonicNanos()
        return sample(ns: t1 &- t0, meals: meals.all, uses: uses, overlaps: overlaps)
    }
}

/// Each philosopher's own count, recorded once when it has finished.
final class MealBook: @unchecked Sendable {
    // Slot i is written by philosopher i only, once; the array is one variable, so the writes of
    // different philosophers still take turns under the lock.
    private let lock = NSLock()
    private var meals: [Int]
    init(_ n: Int) { meals = Array(repeating: 0, count: n) }
    func record(_ i: Int, _ count: Int) { lock.lock(); meals[i] = count; lock.unlock() }
    var all: [Int] { lock.lock(); defer { lock.unlock() }; return meals }
}
