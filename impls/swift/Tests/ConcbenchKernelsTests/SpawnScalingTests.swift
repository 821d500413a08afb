import XCTest
@testable import ConcbenchKernels

/// spawn-scaling at the spec's `test` sizes, every model and shape.
final class SpawnScalingTests: XCTestCase {
    let table: [(n: Int, result: String)] = [
        (64, "tasks=64 sum=30816"), (2048, "tasks=2048 sum=1024384"),
    ]

    func testWorkMatchesTheSpecValues() {
        XCTAssertEqual((0..<5).map(SpawnScaling.work), [25, 274, 523, 772, 21])
        // The same 32 steps through the portable LCG32.
        for i in [0, 1, 999, 123_456] {
            var g = LCG32(seed: UInt32(i))
            for _ in 0..<31 { _ = g.step() }
            XCTAssertEqual(SpawnScaling.work(i), Int(g.draw(1000)) + 1)
        }
    }

    func testSeqLoop() {
        for row in table {
            XCTAssertEqual(SpawnScaling.seqLoop(tasks: row.n).result, row.result)
        }
        XCTAssertEqual(SpawnScaling.seqLoop(tasks: 0).result, "tasks=0 sum=0")
    }

    func testGCDGroup() {
        for row in table {
            XCTAssertEqual(SpawnScaling.gcdGroup(tasks: row.n).result, row.result)
        }
    }

    func testSCShapes() async {
        for shape in SpawnScaling.SCShape.allCases {
            for row in table {
                let sample = await SpawnScaling.sc(shape, tasks: row.n)
                XCTAssertEqual(sample.result, row.result, "\(shape)")
            }
        }
    }
}
