import XCTest
@testable import ConcbenchKernels

/// big at the spec's `test` sizes, every model and shape, and its deterministic parts.
final class BigTests: XCTestCase {
    let table: [(config: Big.Config, result: String)] = [
        (Big.Config(workers: 20, pings: 200, hood: 1000), "messages=8000 checksum=42660"),
        (Big.Config(workers: 50, pings: 100, hood: 20), "messages=10000 checksum=128266"),
    ]

    func testNeighbourhoodsAreRagged() {
        XCTAssertEqual(Big.Config(workers: 50, pings: 1, hood: 20).neighbourhoods, [0..<20, 20..<40, 40..<50])
        XCTAssertEqual(Big.Config(workers: 20, pings: 1, hood: 1000).neighbourhoods, [0..<20])
    }

    /// The targets drawn directly, without messages: the spec's min/max pings received.
    func testDrawnTargetsMatchTheSpecTable() {
        for (config, low, high) in [
            (table[0].config, 172, 225), (table[1].config, 81, 128),
        ] {
            var received = [Int](repeating: 0, count: config.workers)
            for hood in config.neighbourhoods {
                for w in hood {
                    var g = LCG32(seed: UInt32(w))
                    for _ in 0..<config.pings {
                        received[hood.lowerBound + Int(g.draw(UInt32(hood.count)))] += 1
                    }
                }
            }
            XCTAssertEqual(received.min(), low)
            XCTAssertEqual(received.max(), high)
            let counts = received.map { Big.Counts(pingsReceived: $0, pongsReceived: config.pings) }
            XCTAssertTrue(table.contains { $0.result == Big.result(counts) })
        }
    }

    func testWorkerHandlers() {
        var w = BigWorker(worker: 0, localID: 0, hoodSize: 20, pings: 2)
        // LCG32 from seed 0: 1013904223 mod 20 = 3.
        guard case .ping(let first) = w.pong(from: Big.start) else { return XCTFail("expected a ping") }
        XCTAssertEqual(first, 3)
        XCTAssertEqual(w.ping(from: 7), 7)
        guard case .ping = w.pong(from: first) else { return XCTFail("expected a second ping") }
        XCTAssertEqual(w.counts.pongsReceived, 1)
        XCTAssertEqual(w.counts.pingsReceived, 1)
    }

    func testGCDShapes() {
        for shape in Big.GCDShape.allCases {
            for row in table {
                XCTAssertEqual(Big.gcd(shape, row.config).result, row.result, "\(shape)")
            }
            // P = 0: every worker exits on its START pong.
            let idle = Big.gcd(shape, Big.Config(workers: 3, pings: 0, hood: 2))
            XCTAssertEqual(idle.result, "messages=0 checksum=0", "\(shape)")
        }
    }

    func testSCShapes() async {
        for shape in Big.SCShape.allCases {
            for row in table {
                let sample = await Big.sc(shape, row.config)
                XCTAssertEqual(sample.result, row.result, "\(shape)")
            }
            let idle = await Big.sc(shape, Big.Config(workers: 1, pings: 0, hood: 1))
            XCTAssertEqual(idle.result, "messages=0 checksum=0", "\(shape)")
        }
    }
}
