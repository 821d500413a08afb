import Separate
import XCTest
@testable import ConcbenchKernels

/// chameneos: both variants, every model and shape, checked by what holds whatever
/// the schedule: the place counts M meetings, the creatures 2M, no creature meets
/// itself, and the sum of the colours mod 3 never changes (a meeting of a ≠ b turns
/// both into c = 3 − a − b, and 2c ≡ a + b mod 3), so it is the initial sum mod 3.
final class ChameneosTests: XCTestCase {
    /// The spec's initial colours: creature i starts with TEN[i mod 10].
    let ten = [0, 1, 2, 1, 2, 0, 1, 2, 1, 0]

    func colourSum(creatures: Int) -> Int {
        (0..<creatures).reduce(0) { $0 + ten[$1 % 10] } % 3
    }

    /// Every model and shape behind one signature.
    var players: [(name: String, play: (Chameneos.Config) async -> Sample)] {
        Chameneos.GCDShape.allCases.map { shape in ("gcd/\(shape)", { Chameneos.gcd(shape, $0) }) }
            + Chameneos.SCShape.allCases.map { shape in ("sc/\(shape)", { await Chameneos.sc(shape, $0) }) }
            + Self.runtimes.map { runtime in ("qs/\(runtime.configuration)", { await Chameneos.qs(runtime, $0) }) }
    }

    /// qs under every configuration, each runtime kept for the whole test process.
    static let runtimes = Configuration.allCases.map { Runtime(workers: 2, configuration: $0) }

    func value(_ sample: Sample, _ name: String) -> Metric.Value? {
        sample.metrics.first { $0.name == name }?.value
    }

    func testComplementTable() {
        let all: [Chameneos.Colour] = [.blue, .red, .yellow]
        for a in all {
            for b in all {
                let c = Chameneos.complement(a, b)
                if a == b {
                    XCTAssertEqual(c, a)
                } else {
                    XCTAssertNotEqual(c, a)
                    XCTAssertNotEqual(c, b)
                }
                // The invariant the tests below rely on.
                XCTAssertEqual(2 * Int(c.rawValue) % 3, Int(a.rawValue + b.rawValue) % 3)
            }
        }
        XCTAssertEqual((0..<13).map { Int(Chameneos.initialColour($0).rawValue) }, (0..<13).map { ten[$0 % 10] })
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

    /// The spec's sizes and a few edges: fewer meetings than pairs, none at all, the
    /// gate with an odd C, and two creatures.
    func testEncoreVariant() async {
        for (name, play) in players {
            for (c, m) in [(3, 10_000), (10, 10_000), (70, 10_000), (10, 3), (7, 0), (2, 1), (800, 10_000)] {
                let sample = await play(Chameneos.Config(variant: .encore, param: c, meetings: m))
                let label = "\(name) C=\(c) M=\(m)"
                XCTAssertEqual(sample.result, "meetings=\(m) creature_meetings=\(2 * m)", label)
                XCTAssertEqual(value(sample, "self_meetings"), .integer(0), label)
                XCTAssertEqual(value(sample, "colour_sum_mod3"), .integer(colourSum(creatures: c)), label)
                // No meetings, no coefficient of variation: cv is left out, never a stand-in 0.
                XCTAssertEqual(sample.metrics.map(\.name), (m > 0 ? ["fairness_std", "cv"] : ["fairness_std"]) + [
                    "min_meetings", "max_meetings", "self_meetings", "colour_sum_mod3",
                ], label)
            }
        }
    }

    func testReduxVariant() async {
        for (name, play) in players {
            for n in [0, 1, 10_000] {
                let sample = await play(Chameneos.Config(variant: .redux, param: n))
                let label = "\(name) n=\(n)"
                XCTAssertEqual(
                    sample.result,
                    "meetings3=\(n) creature_meetings3=\(2 * n) meetings10=\(n) creature_meetings10=\(2 * n)", label)
                XCTAssertEqual(value(sample, "self_meetings"), .integer(0), label)
                XCTAssertEqual(value(sample, "colour_sum_mod3_3"), .integer(colourSum(creatures: 3)), label)
                XCTAssertEqual(value(sample, "colour_sum_mod3_10"), .integer(colourSum(creatures: 10)), label)
                XCTAssertNotNil(value(sample, "min_meetings_10"), label)
            }
        }
    }
}
