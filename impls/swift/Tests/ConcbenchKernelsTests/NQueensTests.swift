import XCTest
@testable import ConcbenchKernels

/// nqueens at the spec's `test` sizes (1, 4, 5, 8) with its child-task counts.
final class NQueensTests: XCTestCase {
    let table: [(n: Int, value: String, children: Int)] = [
        (1, "1", 1), (2, "0", 2), (3, "0", 5), (4, "2", 16), (5, "10", 53), (8, "92", 2056),
    ]

    func testSeqPlain() {
        for row in table {
            XCTAssertEqual(NQueens.seqPlain(n: row.n).result, row.value)
        }
    }

    func testSCGroup() async {
        for row in table {
            let sample = await NQueens.sc(n: row.n)
            XCTAssertEqual(sample.result, row.value)
            let spawns = await NQueens.scSpawnCount(n: row.n)
            XCTAssertEqual(spawns, row.children)
        }
    }

    /// gcd/group-wait blocks a pool thread in every waiting call. On Linux the pool
    /// starts with one worker per CPU and adds one per second while all are blocked,
    /// so N = 4 needs several seconds on 2 cores and N = 5 about half a minute:
    /// test only N <= 4, each with a 30 s limit. Per the spec a stall is an accepted
    /// outcome (skip), a wrong count never is.
    func testGCDGroupWaitSmallBoards() throws {
        for row in table where row.n <= 4 {
            guard let (sample, spawns) = finishing(within: 30, {
                (NQueens.gcd(n: row.n), NQueens.gcdSpawnCount(n: row.n))
            }) else {
                throw XCTSkip("gcd/group-wait stalled at N = \(row.n) (accepted outcome)")
            }
            XCTAssertEqual(sample.result, row.value)
            XCTAssertEqual(spawns, row.children)
        }
    }
}
