import XCTest
@testable import ConcbenchKernels

/// chameneos at the spec's `test` sizes, both variants, every model and shape: the
/// result and the metrics that must hold whatever the schedule.
final class ChameneosTests: XCTestCase {
    /// (C, colour_sum_mod3) from the spec's table; M = 10 000.
    let encore: [(creatures: Int, colourSum: Int)] = [(3, 0), (10, 1), (70, 1)]
    let encoreResult = "meetings=10000 creature_meetings=20000"
    let reduxResult = "meetings3=10000 creature_meetings3=20000 meetings10=10000 creature_meetings10=20000"

    /// Every model and shape behind one signature.
    var players: [(name: String, play: (Chameneos.Config) async -> Sample)] {
        Chameneos.GCDShape.allCases.map { shape in ("gcd/\(shape)", { Chameneos.gcd(shape, $0) }) }
            + Chameneos.SCShape.allCases.map { shape in ("sc/\(shape)", { await Chameneos.sc(shape, $0) }) }
    }

    func value(_ sample: Sample, _ name: String) -> Metric.Value? {
        sample.metrics.first { $0.name == name }?.value
    }

    func testComplementTable() {
        let all: [Chameneos.Colour] = [.blue, .red, .yellow]
        let expected: [[Chameneos.Colour]] = [
            [.blue, .yellow, .red], [.yellow, .red, .blue], [.red, .blue, .yellow],
        ]
        for (i, a) in all.enumerated() {
            for (j, b) in all.enumerated() {
                XCTAssertEqual(Chameneos.complement(a, b), expected[i][j], "\(a) + \(b)")
            }
        }
        XCTAssertEqual((0..<3).map(Chameneos.initialColour), [.blue, .red, .yellow])
        XCTAssertEqual(Chameneos.initialColour(13), .red)
    }

    func testFairnessFigures() {
        let reports = [4, 2, 0].map { Chameneos.Report(meetings: $0, selfMeetings: 0, colour: .red) }
        let sample = Chameneos.sample(
            Chameneos.Config(variant: .encore, param: 3, meetings: 3), ns: 1,
            [Chameneos.Outcome(meetings: 3, reports: reports)])
        XCTAssertEqual(sample.result, "meetings=3 creature_meetings=6")
        // Around the mean 2: (4 + 0 + 4) / 3.
        XCTAssertEqual(sample.metrics, [
            Metric("fairness_std", (8.0 / 3).squareRoot()), Metric("cv", (8.0 / 3).squareRoot() / 2),
            Metric("min_meetings", 0), Metric("max_meetings", 4), Metric("self_meetings", 0),
            Metric("colour_sum_mod3", 0),
        ])
    }

    func testEncoreVariant() async {
        for (name, play) in players {
            for row in encore {
                let sample = await play(Chameneos.Config(variant: .encore, param: row.creatures, meetings: 10_000))
                let label = "\(name) C=\(row.creatures)"
                XCTAssertEqual(sample.result, encoreResult, label)
                XCTAssertEqual(value(sample, "self_meetings"), .integer(0), label)
                XCTAssertEqual(value(sample, "colour_sum_mod3"), .integer(row.colourSum), label)
                XCTAssertEqual(sample.metrics.map(\.name), [
                    "fairness_std", "cv", "min_meetings", "max_meetings", "self_meetings", "colour_sum_mod3",
                ], label)
            }
        }
    }

    func testReduxVariant() async {
        for (name, play) in players {
            let sample = await play(Chameneos.Config(variant: .redux, param: 10_000))
            XCTAssertEqual(sample.result, reduxResult, name)
            XCTAssertEqual(value(sample, "self_meetings"), .integer(0), name)
            XCTAssertEqual(value(sample, "colour_sum_mod3_3"), .integer(0), name)
            XCTAssertEqual(value(sample, "colour_sum_mod3_10"), .integer(1), name)
            XCTAssertNotNil(value(sample, "min_meetings_10"), name)
        }
    }

    /// Fewer meetings than pairs, none at all, and the gate with an odd C: every
    /// creature is still refused exactly once and reports.
    func testEdgeCounts() async {
        for (name, play) in players {
            // (C, M, colour_sum_mod3); C = 800 is the spec's case with sum 2.
            for (c, m, colourSum) in [(10, 3, 1), (7, 0, 1), (2, 1, 1), (800, 10_000, 2)] {
                let sample = await play(Chameneos.Config(variant: .encore, param: c, meetings: m))
                let label = "\(name) C=\(c) M=\(m)"
                XCTAssertEqual(sample.result, "meetings=\(m) creature_meetings=\(2 * m)", label)
                XCTAssertEqual(value(sample, "colour_sum_mod3"), .integer(colourSum), label)
                XCTAssertEqual(value(sample, "self_meetings"), .integer(0), label)
            }
        }
    }
}
