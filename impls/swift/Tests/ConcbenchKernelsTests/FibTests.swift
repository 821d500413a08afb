import XCTest
@testable import ConcbenchKernels

/// fib at the spec's `test` sizes, every shape, with the spawn counts of its table.
final class FibTests: XCTestCase {
    /// (n, result, internal nodes I) from spec fib.md, cutoff 0.
    let table: [(n: Int, value: String, internal: Int)] = [
        (5, "5", 7), (10, "55", 88), (15, "610", 986), (20, "6765", 10945),
    ]

    func testSeqPlain() {
        for row in table {
            XCTAssertEqual(Fib.seqPlain(n: row.n).result, row.value)
        }
    }

    func testGCDShapes() {
        for row in table {
            XCTAssertEqual(Fib.gcd(.cps, n: row.n, cutoff: 0).result, row.value)
            XCTAssertEqual(Fib.gcd(.parallel, n: row.n, cutoff: 0).result, row.value)
            XCTAssertEqual(Fib.gcdSpawnCount(.cps, n: row.n, cutoff: 0), row.internal)
            XCTAssertEqual(Fib.gcdSpawnCount(.parallel, n: row.n, cutoff: 0), 2 * row.internal)
        }
    }

    func testSCAsyncLet() async {
        for row in table {
            let sample = await Fib.sc(n: row.n, cutoff: 0)
            XCTAssertEqual(sample.result, row.value)
            let spawns = await Fib.scSpawnCount(n: row.n, cutoff: 0)
            XCTAssertEqual(spawns, 2 * row.internal)
        }
    }

    func testSmallIndicesAndCutoff() async {
        // Leaves answer without creating work; a cutoff above n is pure seqfib.
        for n in 0...1 {
            XCTAssertEqual(Fib.gcd(.cps, n: n, cutoff: 0).result, String(n))
            XCTAssertEqual(Fib.gcdSpawnCount(.parallel, n: n, cutoff: 0), 0)
        }
        XCTAssertEqual(Fib.gcdSpawnCount(.cps, n: 20, cutoff: 21), 0)
        // A cutoff of 0, 1 or 2 changes nothing.
        XCTAssertEqual(Fib.gcdSpawnCount(.cps, n: 15, cutoff: 2), 986)
        let cut = await Fib.sc(n: 20, cutoff: 10)
        XCTAssertEqual(cut.result, "6765")
        XCTAssertEqual(Fib.gcd(.parallel, n: 20, cutoff: 10).result, "6765")
    }
}
