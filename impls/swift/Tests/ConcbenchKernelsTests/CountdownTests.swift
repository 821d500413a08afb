import Synchronization
import XCTest
@testable import ConcbenchKernels

/// countdown: every shape and window against two independent computations in
/// CountdownReference (the declarative definition by brute force, and the spec's
/// enumeration transliterated for the batch counts), plus the pieces of the result.
final class CountdownTests: XCTestCase {
    func instance(_ name: String) throws -> Countdown.Instance {
        try Countdown.Instance.parse(name)
    }

    /// The spec's test instances plus a few of our own (duplicates, 1s, 5 and 6
    /// numbers), each with both reference computations, run once for all tests.
    static let references: [(instance: Countdown.Instance, brute: [String], enumerated: [String], batches: Int)] =
        ["t4a", "t4b", "t5", "t6a", "t6b", "10:2-3-5-7-1", "7:1-1-2-2-3", "36:3-3-4-6-1-2"].map { name in
            let instance = try! Countdown.Instance.parse(name)
            let goal = UInt64(instance.goal)
            let numbers = instance.numbers.map(UInt64.init)
            let enumerated = CountdownReference.enumerate(goal: goal, numbers: numbers)
            return (
                instance, CountdownReference.bruteForce(goal: goal, numbers: numbers), enumerated.solutions,
                enumerated.batches
            )
        }

    /// The two references find the same multiset of solution strings.
    func testReferencesAgree() {
        for row in Self.references {
            XCTAssertEqual(
                row.brute.sorted(by: CountdownReference.precedes),
                row.enumerated.sorted(by: CountdownReference.precedes), "\(row.instance)")
        }
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

    /// The spec's FNV-1a example values, and the kernel's result text against the
    /// reference's on the same strings.
    func testChecksumPieces() {
        let t4a = ["(1+2+3)*4", "(1+3)*(2+4)", "1*2*3*4", "2*3*4/1"]
        XCTAssertEqual(
            t4a.map(Countdown.fnv1a64),
            [6_882_250_495_578_843_230, 16_412_771_540_748_997_029, 7_504_977_892_915_594_393,
             13_216_764_978_865_346_232])
        XCTAssertEqual(Countdown.result(t4a.reversed()), CountdownReference.result(t4a))
        XCTAssertEqual(Countdown.result(t4a + t4a), CountdownReference.result(t4a + t4a))
        XCTAssertEqual(Countdown.canonical(.multiplicative, forward: [], reverse: ["1", "1"]), "/1/1")
        XCTAssertEqual(Countdown.canonical(.additive, forward: ["b", "B", "(a)"], reverse: ["z", "1"]), "(a)+B+b-1-z")
    }

    /// The reference itself on the spec's examples.
    func testReferenceFindsTheSpecExamples() throws {
        let t4a = try instance("t4a")
        XCTAssertEqual(
            CountdownReference.bruteForce(goal: UInt64(t4a.goal), numbers: t4a.numbers.map(UInt64.init))
                .sorted(by: CountdownReference.precedes),
            ["(1+2+3)*4", "(1+3)*(2+4)", "1*2*3*4", "2*3*4/1"])
        // With fewer than 5 numbers the main does all the work.
        XCTAssertEqual(CountdownReference.enumerate(goal: 24, numbers: [1, 2, 3, 4]).batches, 0)
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

    func testSCShapesAgainstTheReference() async {
        for row in Self.references {
            let result = CountdownReference.result(row.brute)
            for shape in Countdown.SCShape.allCases {
                for window in [1, 2] {
                    let sample = await Countdown.sc(shape, row.instance, window: window)
                    let label = "\(shape) \(row.instance) window=\(window)"
                    XCTAssertEqual(sample.result, result, label)
                    XCTAssertEqual(sample.metrics, [Metric("batches", row.batches)], label)
                }
            }
        }
    }

    func testSeqPlainAgainstTheReference() {
        for row in Self.references {
            let sample = Countdown.seqPlain(row.instance)
            XCTAssertEqual(sample.result, CountdownReference.result(row.brute), "\(row.instance)")
            XCTAssertEqual(sample.metrics, [])
        }
    }

    /// One quick-size instance: the fastest parallel shape against the sequential one
    /// (about two seconds in a debug build).
    func testIndexedQ7AgreesWithSeqPlain() async throws {
        let q7 = try instance("q7")
        let parallel = await Countdown.sc(.indexed, q7, window: 2)
        XCTAssertEqual(parallel.result, Countdown.seqPlain(q7).result)
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
