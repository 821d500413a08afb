import XCTest
@testable import ConcbenchKernels

/// matmul at the spec's `test` sizes, all four seeds of the cycle, every model.
final class MatmulTests: XCTestCase {
    let table: [Int: [String]] = [
        10: ["13606466542", "11062465996", "11204601074", "13870630232"],
        25: ["1224725262980", "1209286095340", "1186073041062", "1225439775914"],
    ]

    func expected(_ n: Int, _ t: Int) -> String {
        "seed=\(12345 + t % 4) checksum=\(table[n]![t % 4])"
    }

    func testSeqLoops() {
        for n in table.keys.sorted() {
            for t in 0..<5 {
                XCTAssertEqual(Matmul.seq(n: n, iteration: t).result, expected(n, t))
            }
        }
    }

    func testGCDSerialQueue() {
        for n in table.keys.sorted() {
            for t in 0..<5 {
                XCTAssertEqual(Matmul.gcd(n: n, iteration: t).result, expected(n, t))
            }
        }
    }

    func testSCActor() async {
        for n in table.keys.sorted() {
            for t in 0..<5 {
                let sample = await Matmul.sc(n: n, iteration: t)
                XCTAssertEqual(sample.result, expected(n, t))
            }
        }
    }

    func testModelsAgreeOnNonSquareProduct() {
        // The GCD and seq kernels take any conforming shapes; check one 2x3 · 3x2.
        let a = [[1, 2, 3], [4, 5, 6]]
        let b = [[7, 8], [9, 10], [11, 12]]
        XCTAssertEqual(Matmul.multiplySeq(a, b), [[58, 64], [139, 154]])
        XCTAssertEqual(Matmul.multiplyGCD(a, b), [[58, 64], [139, 154]])
    }
}
