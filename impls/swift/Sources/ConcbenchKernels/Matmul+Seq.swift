extension Matmul {
    /// seq/loops: a plain i-j-k triple loop, no tasks and no column copy.
    public static func multiplySeq(_ left: [[Int]], _ right: [[Int]]) -> [[Int]] {
        let n = left.count
        let m = right[0].count
        var res = [[Int]](repeating: [Int](repeating: 0, count: m), count: n)
        for i in 0..<n {
            for j in 0..<m {
                var v = 0
                for k in 0..<right.count {
                    v += left[i][k] * right[k][j]
                }
                res[i][j] = v
            }
        }
        return res
    }

    public static func seq(n: Int, iteration t: Int) -> Sample {
        iteration(n: n, t: t, multiplySeq)
    }
}
