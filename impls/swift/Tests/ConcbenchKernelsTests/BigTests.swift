import XCTest
@testable import ConcbenchKernels

/// big: every model and shape against the result computed here without messages.
/// Whatever the schedule, each worker sends exactly P pings and gets P pongs, and the
/// targets it draws are fixed by its seed, so M = 2·N·P and the checksum follows
/// from the drawn targets alone.
final class BigTests: XCTestCase {
    let configs = [
        Big.Config(workers: 20, pings: 200, hood: 1000), Big.Config(workers: 50, pings: 100, hood: 20),
        Big.Config(workers: 7, pings: 5, hood: 3), Big.Config(workers: 1, pings: 3, hood: 1),
        Big.Config(workers: 3, pings: 0, hood: 2),
    ]

    /// The spec's draws: worker w (seed w) pings lo + draw(size) of its own
    /// neighbourhood [lo, lo + size), P times.
    func expected(_ config: Big.Config) -> String {
        var received = [Int](repeating: 0, count: config.workers)
        for lo in stride(from: 0, to: config.workers, by: config.hood) {
            let size = min(config.hood, config.workers - lo)
            for w in lo..<lo + size {
                var g = LCG32(seed: UInt32(w))
                for _ in 0..<config.pings {
                    received[lo + Int(g.draw(UInt32(size)))] += 1
                }
            }
        }
        var checksum: UInt64 = 0
        for (w, count) in received.enumerated() {
            checksum = checksum &+ UInt64(count) &* UInt64(w + 1)
        }
        return "messages=\(2 * config.workers * config.pings) checksum=\(checksum)"
    }

    func testNeighbourhoodsAreRagged() {
        XCTAssertEqual(Big.Config(workers: 50, pings: 1, hood: 20).neighbourhoods, [0..<20, 20..<40, 40..<50])
        XCTAssertEqual(Big.Config(workers: 20, pings: 1, hood: 1000).neighbourhoods, [0..<20])
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
            for config in configs {
                XCTAssertEqual(Big.gcd(shape, config).result, expected(config), "\(shape) \(config)")
            }
        }
    }

    func testSCShapes() async {
        for shape in Big.SCShape.allCases {
            for config in configs {
                let sample = await Big.sc(shape, config)
                XCTAssertEqual(sample.result, expected(config), "\(shape) \(config)")
            }
        }
    }
}
