import XCTest
@testable import ConcbenchKernels

/// fib: every shape against fib(n) computed by a loop, and the spawn counts against
/// a count of the call tree's internal nodes.
final class FibTests: XCTestCase {
    let sizes = [0, 1, 2, 3, 5, 10, 15, 20]

    /// fib(n) by iteration.
    func fib(_ n: Int) -> Int {
        var (a, b) = (0, 1)
        for _ in 0..<n { (a, b) = (b, a + b) }
        return a
    }

    /// The calls at or above the cutoff that are internal nodes (k >= 2) of the call
    /// tree: one unit of work each for gcd/cps, two for gcd/parallel and sc.
    func internalNodes(_ n: Int, cutoff: Int) -> Int {
        var nodes = [Int](repeating: 0, count: max(n + 1, 2))
        for k in stride(from: 2, through: n, by: 1) where k >= cutoff {
            nodes[k] = 1 + nodes[k - 1] + nodes[k - 2]
        }
        return nodes[n]
    }

    func testSeqPlain() {
        for n in sizes + [30, 40] {
            XCTAssertEqual(Fib.seqPlain(n: n).result, String(fib(n)), "n=\(n)")
        }
    }

    /// `repeat=k`: the same answer as one call, and a repetition that disagrees is not hidden.
    func testRepeatedKernels() async {
        for n in [0, 5, 20] {
            XCTAssertEqual(Fib.seqPlain(n: n, repeating: 7).result, String(fib(n)), "seq n=\(n)")
            let sc = await Fib.sc(n: n, cutoff: 0, repeating: 3)
            XCTAssertEqual(sc.result, String(fib(n)), "sc n=\(n)")
        }
        var calls = 0
        let mixed = Sample.timing(repeating: 4, input: 1, { input -> Int in
            calls += 1
            return calls == 3 ? input + 1 : input
        }, format: { String($0) })
        XCTAssertEqual(calls, 4)
        XCTAssertEqual(mixed.result, "1|2")
    }

    func testGCDShapes() {
        for n in sizes {
            for cutoff in [0, 5, 12] {
                let label = "n=\(n) cutoff=\(cutoff)"
                XCTAssertEqual(Fib.gcd(.cps, n: n, cutoff: cutoff).result, String(fib(n)), label)
                XCTAssertEqual(Fib.gcd(.parallel, n: n, cutoff: cutoff).result, String(fib(n)), label)
                XCTAssertEqual(Fib.gcdSpawnCount(.cps, n: n, cutoff: cutoff), internalNodes(n, cutoff: cutoff), label)
                XCTAssertEqual(
                    Fib.gcdSpawnCount(.parallel, n: n, cutoff: cutoff), 2 * internalNodes(n, cutoff: cutoff), label)
            }
        }
    }

    func testSCAsyncLet() async {
        for n in sizes {
            for cutoff in [0, 5, 12] {
                let label = "n=\(n) cutoff=\(cutoff)"
                let sample = await Fib.sc(n: n, cutoff: cutoff)
                XCTAssertEqual(sample.result, String(fib(n)), label)
                let spawns = await Fib.scSpawnCount(n: n, cutoff: cutoff)
                XCTAssertEqual(spawns, 2 * internalNodes(n, cutoff: cutoff), label)
            }
        }
    }

    func testCutoffEdges() {
        // A cutoff of 0, 1 or 2 changes nothing; one above n is plain recursion.
        XCTAssertEqual(Fib.gcdSpawnCount(.cps, n: 15, cutoff: 2), Fib.gcdSpawnCount(.cps, n: 15, cutoff: 0))
        XCTAssertEqual(Fib.gcdSpawnCount(.cps, n: 20, cutoff: 21), 0)
        XCTAssertEqual(Fib.gcd(.cps, n: 20, cutoff: 21).result, String(fib(20)))
    }
}
