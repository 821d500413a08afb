/// The Matrix actor of Listing 3.10: it serialises every write to the result.
actor Matrix {
    private var m: [[Int]]

    init(size: Int) {
        m = [[Int]](repeating: [Int](repeating: 0, count: size), count: size)
    }

    func update(row: Int, column: Int, newValue: Int) {
        m[row][column] = newValue
    }

    func get() -> [[Int]] {
        m
    }
}

extension Matmul {
    /// sc/actor (faithful, Listing 3.9): a task group with one child per cell; each
    /// copies its column and awaits `update` on the one Matrix actor. The timer stops
    /// when the group scope ends; `get()` runs after it, as in the original.
    public static func multiplySC(
        _ left: [[Int]], _ right: [[Int]]
    ) async -> (ns: UInt64, product: [[Int]]) {
        let t0 = monotonicNanos()
        let res = Matrix(size: left.count)
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<left.count {
                for j in 0..<right[0].count {
                    group.addTask {
                        let ownRow = left[i]
                        let otherColumn = right.map { $0[j] }
                        await res.update(
                            row: i, column: j, newValue: dotProduct(ownRow, otherColumn))
                    }
                }
            }
        }
        let t1 = monotonicNanos()
        return (t1 &- t0, await res.get())
    }

    public static func sc(n: Int, iteration t: Int) async -> Sample {
        let s = seed(iteration: t)
        let (a, b) = inputs(n: n, seed: s)
        let (ns, product) = await multiplySC(a, b)
        return Sample(ns: ns, result: result(seed: s, product: product))
    }
}
