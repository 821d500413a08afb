import XCTest
@testable import ConcbenchKernels

/// matmul: every model against a product and checksum computed here from the spec's
/// generator, at several sizes and all four seeds of the cycle.
final class MatmulTests: XCTestCase {
    let sizes = [1, 2, 10, 25]

    /// `seed=S checksum=C` for size n and iteration t: the spec's LCG (A's n² draws
    /// mod 1000 row-major, then B's), a triple loop, and Σ v·(k+1) mod 2^64.
    func expected(_ n: Int, _ t: Int) -> String {
        let seed = UInt32(12345 + t % 4)
        var state = seed
        func draw() -> Int {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Int(state % 1000)
        }
        let a = (0..<n * n).map { _ in draw() }
        let b = (0..<n * n).map { _ in draw() }
        var cs: UInt64 = 0
        for i in 0..<n {
            for j in 0..<n {
                var v = 0
                for k in 0..<n { v += a[i * n + k] * b[k * n + j] }
                cs = cs &+ UInt64(v) &* UInt64(i * n + j + 1)
            }
        }
        return "seed=\(seed) checksum=\(cs)"
    }

    func testSeqLoops() {
        for n in sizes {
            for t in 0..<5 {
                XCTAssertEqual(Matmul.seq(n: n, iteration: t).result, expected(n, t), "n=\(n) t=\(t)")
            }
        }
    }

    func testGCDSerialQueue() {
        for n in sizes {
            for t in 0..<5 {
                XCTAssertEqual(Matmul.gcd(n: n, iteration: t).result, expected(n, t), "n=\(n) t=\(t)")
            }
        }
    }

    func testSCActor() async {
        for n in sizes {
            for t in 0..<5 {
                let sample = await Matmul.sc(n: n, iteration: t)
                XCTAssertEqual(sample.result, expected(n, t), "n=\(n) t=\(t)")
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
