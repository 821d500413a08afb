import XCTest
@testable import ConcbenchKernels

/// nqueens: every shape against a brute force that counts the solutions and the
/// valid partial boards (one child task or block each).
final class NQueensTests: XCTestCase {
    /// (solutions, valid partial boards with 1...n queens) by backtracking over
    /// occupied rows and diagonals, one queen per column.
    static func bruteForce(_ n: Int) -> (solutions: Int, children: Int) {
        var solutions = 0
        var children = 0
        var rows = [Bool](repeating: false, count: n)
        var up = [Bool](repeating: false, count: 2 * n)
        var down = [Bool](repeating: false, count: 2 * n)
        func place(_ col: Int) {
            if col == n {
                solutions += 1
                return
            }
            for row in 0..<n where !rows[row] && !up[row + col] && !down[row - col + n] {
                children += 1
                rows[row] = true
                up[row + col] = true
                down[row - col + n] = true
                place(col + 1)
                rows[row] = false
                up[row + col] = false
                down[row - col + n] = false
            }
        }
        place(0)
        return (solutions, children)
    }

    let sizes = [0, 1, 2, 3, 4, 5, 6, 8]

    /// The backtracking count against every permutation of rows checked for diagonals.
    func testBruteForceAgreesWithPermutations() {
        func permutations(_ items: [Int]) -> [[Int]] {
            items.isEmpty ? [[]] : items.indices.flatMap { i in
                permutations(Array(items[..<i] + items[(i + 1)...])).map { [items[i]] + $0 }
            }
        }
        for n in 0...7 {
            let count = permutations(Array(0..<n)).filter { p in
                p.indices.allSatisfy { a in p.indices.allSatisfy { b in a == b || abs(p[a] - p[b]) != abs(a - b) } }
            }.count
            XCTAssertEqual(Self.bruteForce(n).solutions, count, "n=\(n)")
        }
    }

    func testSeqPlain() {
        for n in sizes {
            XCTAssertEqual(NQueens.seqPlain(n: n).result, String(Self.bruteForce(n).solutions), "n=\(n)")
        }
    }

    func testSCGroup() async {
        for n in sizes {
            let expected = Self.bruteForce(n)
            let sample = await NQueens.sc(n: n)
            XCTAssertEqual(sample.result, String(expected.solutions), "n=\(n)")
            let spawns = await NQueens.scSpawnCount(n: n)
            XCTAssertEqual(spawns, expected.children, "n=\(n)")
        }
    }

    /// gcd/group-wait blocks a pool thread in every waiting call. On Linux the pool
    /// starts with one worker per CPU and adds one per second while all are blocked,
    /// so N = 4 needs several seconds on 2 cores and N = 5 about half a minute:
    /// test only N <= 4, each with a 30 s limit. Per the spec a stall is an accepted
    /// outcome (skip), a wrong count never is.
    func testGCDGroupWaitSmallBoards() throws {
        for n in sizes where n <= 4 {
            let expected = Self.bruteForce(n)
            guard let (sample, spawns) = finishing(within: 30, {
                (NQueens.gcd(n: n), NQueens.gcdSpawnCount(n: n))
            }) else {
                throw XCTSkip("gcd/group-wait stalled at N = \(n) (accepted outcome)")
            }
            XCTAssertEqual(sample.result, String(expected.solutions), "n=\(n)")
            XCTAssertEqual(spawns, expected.children, "n=\(n)")
        }
    }
}
