import XCTest
@testable import ConcbenchKernels

/// spawn-scaling: every model and shape against sums computed here from the spec's
/// work(i) (32 LCG steps from state i, then a value in 1...1000).
final class SpawnScalingTests: XCTestCase {
    let sizes = [0, 1, 64, 2048]

    func work(_ i: Int) -> Int {
        var s = UInt32(truncatingIfNeeded: i)
        for _ in 0..<32 { s = s &* 1_664_525 &+ 1_013_904_223 }
        return Int(s % 1000) + 1
    }

    func expected(_ n: Int) -> String {
        "tasks=\(n) sum=\((0..<n).reduce(0) { $0 + work($1) })"
    }

    func testWork() {
        for i in [0, 1, 2, 999, 123_456, Int(UInt32.max)] {
            XCTAssertEqual(SpawnScaling.work(i), work(i), "i=\(i)")
        }
    }

    func testSeqLoop() {
        for n in sizes {
            XCTAssertEqual(SpawnScaling.seqLoop(tasks: n).result, expected(n))
        }
    }

    func testGCDGroup() {
        for n in sizes {
            XCTAssertEqual(SpawnScaling.gcdGroup(tasks: n).result, expected(n))
        }
    }

    func testSCShapes() async {
        for shape in SpawnScaling.SCShape.allCases {
            for n in sizes {
                let sample = await SpawnScaling.sc(shape, tasks: n)
                XCTAssertEqual(sample.result, expected(n), "\(shape) n=\(n)")
            }
        }
    }
}
