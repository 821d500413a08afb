import Dispatch

/// The result matrix of gcd/serial-queue; only touched inside blocks on its
/// serial queue, and read after the group wait.
final class GuardedMatrix: @unchecked Sendable {
    var m: [[Int]]

    init(rows: Int, columns: Int) {
        m = [[Int]](repeating: [Int](repeating: 0, count: columns), count: rows)
    }
}

extension Matmul {
    /// gcd/serial-queue (faithful, Listing 3.8): a group, a zeroed result and a
    /// private serial queue; one async block per cell copies its column, computes
    /// the dot product and writes with a *synchronous* block on the serial queue.
    /// Every write ends before its block does, so no drain follows the group wait.
    public static func multiplyGCD(_ left: [[Int]], _ right: [[Int]]) -> [[Int]] {
        let group = DispatchGroup()
        let res = GuardedMatrix(rows: left.count, columns: right[0].count)
        let resUpdateQueue = DispatchQueue(label: "resUpdateQueue")
        for i in 0..<left.count {
            for j in 0..<right[0].count {
                DispatchQueue.global().async(group: group) {
                    let ownRow = left[i]
                    let otherColumn = right.map { $0[j] }
                    let cellRes = dotProduct(ownRow, otherColumn)
                    resUpdateQueue.sync {
                        res.m[i][j] = cellRes
                    }
                }
            }
        }
        group.wait()
        return res.m
    }

    public static func gcd(n: Int, iteration t: Int) -> Sample {
        iteration(n: n, t: t, multiplyGCD)
    }
}
