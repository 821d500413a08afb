import XCTest
@testable import ConcbenchKernels

/// The shared conventions of spec/benchmarks/README.md.
final class ConventionTests: XCTestCase {
    func testLCG32CheckValues() {
        var zero = LCG32(seed: 0)
        XCTAssertEqual(zero.step(), 1_013_904_223)
        var zeroDraw = LCG32(seed: 0)
        XCTAssertEqual(zeroDraw.draw(100), 23)

        var g = LCG32(seed: 12345)
        let states = (0..<5).map { _ in g.step() }
        XCTAssertEqual(states, [87_628_868, 71_072_467, 2_332_836_374, 2_726_892_157, 3_908_547_000])
    }

    func testMatmulInputsBeginWithTheSpecDraws() {
        let (a, _) = Matmul.inputs(n: 5, seed: 12345)
        XCTAssertEqual(a[0], [868, 467, 374, 157, 0])
    }

    func testMatmulSeedCyclesOverFour() {
        XCTAssertEqual((0..<6).map { Matmul.seed(iteration: $0) }, [12345, 12346, 12347, 12348, 12345, 12346])
    }

    func testChecksumWeightsAndWrapping() {
        XCTAssertEqual(checksum(rows: [[1, 2], [3, 4]]), 1 + 4 + 9 + 16)
        // A negative value enters as its two's-complement pattern and wraps.
        XCTAssertEqual(checksum(rows: [[-1]]), UInt64.max)
    }
}
