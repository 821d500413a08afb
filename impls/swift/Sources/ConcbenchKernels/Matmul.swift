/// matmul: one task per output cell, every write through one guard.
public enum Matmul {
    /// Iteration t uses the input pair seeded 12345 + (t mod 4).
    public static func seed(iteration t: Int) -> UInt32 {
        12345 + UInt32(t % 4)
    }

    /// Fresh A and B from one LCG32: A's N² draws mod 1000 row-major, then B's.
    public static func inputs(n: Int, seed: UInt32) -> (a: [[Int]], b: [[Int]]) {
        var g = LCG32(seed: seed)
        let a = (0..<n).map { _ in (0..<n).map { _ in Int(g.draw(1000)) } }
        let b = (0..<n).map { _ in (0..<n).map { _ in Int(g.draw(1000)) } }
        return (a, b)
    }

    static func result(seed: UInt32, product: [[Int]]) -> String {
        "seed=\(seed) checksum=\(checksum(rows: product))"
    }

    /// The dot product of one cell's row and freshly copied column.
    @inline(__always)
    static func dotProduct(_ row: [Int], _ column: [Int]) -> Int {
        var v = 0
        for k in 0..<row.count {
            v += row[k] * column[k]
        }
        return v
    }

    /// One iteration of a blocking model: inputs, then the timed kernel, then the
    /// checksum; only `multiply` is inside the timer.
    static func iteration(
        n: Int, t: Int, _ multiply: ([[Int]], [[Int]]) -> [[Int]]
    ) -> Sample {
        let s = seed(iteration: t)
        let (a, b) = inputs(n: n, seed: s)
        return Sample.timing({ multiply(a, b) }, format: { result(seed: s, product: $0) })
    }
}
