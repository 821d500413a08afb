import Synchronization
import XCTest
@testable import ConcbenchKernels

/// countdown at the spec's `test` instances with windows 1 and 2, q7 once, and the
/// pieces the result is built from.
final class CountdownTests: XCTestCase {
    let table: [(name: String, result: String, batches: Int)] = [
        ("t4a", "solutions=4 checksum=4409322729027695699", 0),
        ("t4b", "solutions=166 checksum=4409275845280706500", 0),
        ("t5", "solutions=5 checksum=1711197073787650478", 2),
        ("t6a", "solutions=2 checksum=3051973255031385959", 178),
        ("t6b", "solutions=130 checksum=3005263727367393819", 174),
    ]

    func instance(_ name: String) throws -> Countdown.Instance {
        try Countdown.Instance.parse(name)
    }

    func testInstances() throws {
        XCTAssertEqual(try instance("q7").numbers, [100, 75, 50, 25, 10, 5, 1])
        XCTAssertEqual(
            try instance("317:3-7-8-50-75-4"), Countdown.Instance(goal: 317, numbers: [3, 7, 8, 50, 75, 4]))
        XCTAssertEqual(try instance("0:1"), Countdown.Instance(goal: 0, numbers: [1]))
        for bad in [
            "q8", "", "317", "317:", ":3-4", "317:3--4", "317:3-4-", "317:-3", "317:0-4", "x:3-4",
            "317:3-4:5", "+3:4", "317:3-+4", "317: 3", "4294967296:1", "317:4294967296",
            // prod(n + 1) above 2^32 could overflow a 32-bit accumulator.
            "952:100-75-50-25-10-5-1-2-1", "1:65536-65536",
        ] {
            XCTAssertThrowsError(try instance(bad), bad)
        }
        // p8 is the largest named one: prod(n + 1) = 4 030 636 896 still fits.
        XCTAssertNoThrow(try instance("952:100-75-50-25-10-5-1-2"))
        XCTAssertNoThrow(try instance("1:65535-65535"))
    }

    func testChecksumPieces() {
        let t4a = ["(1+2+3)*4", "(1+3)*(2+4)", "1*2*3*4", "2*3*4/1"]
        XCTAssertEqual(
            t4a.map(Countdown.fnv1a64),
            [6_882_250_495_578_843_230, 16_412_771_540_748_997_029, 7_504_977_892_915_594_393,
             13_216_764_978_865_346_232])
        XCTAssertEqual(Countdown.result(t4a.reversed()), table[0].result)
        XCTAssertEqual(Countdown.canonical(.multiplicative, forward: [], reverse: ["1", "1"]), "/1/1")
        XCTAssertEqual(Countdown.canonical(.additive, forward: ["b", "B", "(a)"], reverse: ["z", "1"]), "(a)+B+b-1-z")
    }

    /// The exact canonical strings of the spec's examples, from every shape.
    func testSolutionStrings() async throws {
        let t4a = try instance("t4a")
        let t4b = try instance("t4b")
        let t6a = try instance("t6a")
        for shape in Countdown.SCShape.allCases {
            let a = await outcome(shape, t4a, window: 1)
            XCTAssertEqual(
                a.solutions.sorted(by: Countdown.bytewise),
                ["(1+2+3)*4", "(1+3)*(2+4)", "1*2*3*4", "2*3*4/1"], "\(shape)")
            let b = await outcome(shape, t4b, window: 1)
            XCTAssertTrue(b.solutions.contains("/1/1/1/1"), "\(shape)")
            XCTAssertTrue(b.solutions.contains("(/1/1)+1-1"), "\(shape)")
            let c = await outcome(shape, t6a, window: 2)
            XCTAssertEqual(
                c.solutions.sorted(by: Countdown.bytewise),
                ["(((100+6)*3*75)-50)/25", "((100+3)*6*75/50)+25"], "\(shape)")
        }
    }

    func outcome(_ shape: Countdown.SCShape, _ instance: Countdown.Instance, window: Int) async -> Countdown.Outcome {
        switch shape {
        case .naive: await Countdown.Naive.run(instance, window: window)
        case .nodict: await Countdown.NoDict.run(instance, window: window)
        case .indexed: await Countdown.Indexed.run(instance, window: window)
        }
    }

    func testSCShapesAtTestSizes() async throws {
        for shape in Countdown.SCShape.allCases {
            for row in table {
                for window in [1, 2] {
                    let sample = await Countdown.sc(shape, try instance(row.name), window: window)
                    let label = "\(shape) \(row.name) window=\(window)"
                    XCTAssertEqual(sample.result, row.result, label)
                    XCTAssertEqual(sample.metrics, [Metric("batches", row.batches)], label)
                }
            }
        }
    }

    func testSeqPlain() throws {
        for row in table {
            let sample = Countdown.seqPlain(try instance(row.name))
            XCTAssertEqual(sample.result, row.result)
            XCTAssertEqual(sample.metrics, [])
        }
    }

    /// One quick-size run of the fastest shape (about a second in a debug build).
    func testIndexedQ7() async throws {
        let sample = await Countdown.sc(.indexed, try instance("q7"), window: 2)
        XCTAssertEqual(sample.result, "solutions=140 checksum=8199592220404143260")
        XCTAssertEqual(sample.metrics, [Metric("batches", 5723)])
    }

    /// The driver rule on a synthetic load: at most `window` batches started and
    /// unfinished, every batch run once, and a producer that never runs ahead: when
    /// `send` returns, its batch has been taken and at most `window` are unfinished.
    func testCappedDriverHonoursTheWindow() async {
        for window in [1, 2, 3] {
            let probe = WindowProbe()
            let total = 60
            let outcome = await Countdown.capped(
                window: window,
                explore: { (channel: Countdown.BatchChannel<Int>, report: (String) -> Void) async in
                    for i in 0..<total {
                        await channel.send(i)
                        probe.sent(window: window)
                    }
                    report("main")
                },
                run: { (batch: Int, report: (String) -> Void) in
                    probe.begin()
                    // A little work, so that batches overlap when the window allows it.
                    var x = UInt64(batch)
                    for _ in 0..<20_000 { x = x &* 6_364_136_223_846_793_005 &+ 1 }
                    if x == 42 { report("never") }
                    report("batch \(batch)")
                    probe.end()
                })
            XCTAssertEqual(outcome.batches, total)
            XCTAssertEqual(outcome.solutions.count, total + 1)
            XCTAssertEqual(Set(outcome.solutions).count, total + 1)
            XCTAssertLessThanOrEqual(probe.maxRunning, window, "window \(window)")
            XCTAssertFalse(probe.ranAhead, "window \(window)")
        }
    }
}

/// Counts running batches for the driver test.
private final class WindowProbe: Sendable {
    private struct State {
        var handed = 0
        var started = 0
        var finished = 0
        var maxRunning = 0
        var ranAhead = false
    }

    private let state = Mutex(State())

    func begin() {
        state.withLock {
            $0.started += 1
            $0.maxRunning = max($0.maxRunning, $0.started - $0.finished)
        }
    }

    func end() {
        state.withLock { $0.finished += 1 }
    }

    /// After a send returns, at most `window` batches may be handed over and unfinished.
    func sent(window: Int) {
        state.withLock {
            $0.handed += 1
            if $0.handed - $0.finished > window { $0.ranAhead = true }
        }
    }

    var maxRunning: Int { state.withLock { $0.maxRunning } }
    var ranAhead: Bool { state.withLock { $0.ranAhead } }
}
