import Synchronization

/// spawn-scaling: start N tiny tasks, then collect all N values; per-task cost as N grows.
public enum SpawnScaling {
    /// The LCG constants, kept where the optimiser cannot see them: with literal
    /// constants LLVM unrolls the 32 steps and folds them into one affine map, which
    /// the spec forbids. A relaxed load is a plain load; the 32 dependent mul-adds stay.
    private static let multiplier = Atomic<UInt32>(1_664_525)
    private static let increment = Atomic<UInt32>(1_013_904_223)

    /// work(i): 32 LCG32 steps from state i, then a value in [1, 1000]. Out of line so
    /// that every shape, seq included, runs this very body once per task (the seq loop
    /// cannot be vectorised across i).
    @inline(never)
    static func work(_ i: Int) -> Int {
        let a = multiplier.load(ordering: .relaxed)
        let c = increment.load(ordering: .relaxed)
        var s = UInt32(truncatingIfNeeded: i)
        for _ in 0..<32 {
            s = a &* s &+ c
        }
        return Int(s % 1000) + 1
    }

    static func result(tasks: Int, sum: Int) -> String {
        "tasks=\(tasks) sum=\(sum)"
    }
}
