import Foundation
import XCTest
@testable import concbench_swift
import ConcbenchKernels

/// The generic domain checks and the table they read, as plain functions (the
/// protocol itself is exercised by the harness, not here).
final class CatalogTests: XCTestCase {
    func args(_ line: String) throws(UsageError) -> Arguments {
        try Arguments.parse(line.split(separator: " ").map(String.init))
    }

    func rejects(_ line: String, file: StaticString = #filePath, line number: UInt = #line) {
        do {
            _ = try Catalog.check(try args(line))
            XCTFail("accepted: \(line)", file: file, line: number)
        } catch {
            XCTAssertFalse(error.message.contains("\n"), "one line only: \(line)", file: file, line: number)
        }
    }

    func testIntDomain() {
        let d = Domain.int(min: -2, max: 10)
        for good in ["-2", "0", "7", "10", "-0", "007"] { XCTAssertTrue(d.accepts(good), good) }
        for bad in ["-3", "11", "", "-", "+5", " 5", "5 ", "1a", "0x1", "1e1", "99999999999999999999"] {
            XCTAssertFalse(d.accepts(bad), bad)
        }
        XCTAssertTrue(Domain.int(min: 1).accepts(String(Int.max)))
        XCTAssertFalse(Domain.int(min: 1).accepts("0"))
        XCTAssertEqual(Domain.integer("-42"), -42)
    }

    func testValuesDomain() {
        let d = Domain.values(["0", "1"])
        XCTAssertTrue(d.accepts("1"))
        for bad in ["2", "01", "", " 1"] { XCTAssertFalse(d.accepts(bad), bad) }
    }

    func testCountdownPattern() throws {
        let d = Catalog.countdownInstance
        for good in Countdown.Instance.named.map(\.key) + ["317:3-7-8-50-75-4", "0:1", "999999999:999999999"] {
            XCTAssertTrue(d.accepts(good), good)
            // Everything the pattern admits parses, unless the 32-bit bound over all
            // the numbers together refuses it.
            XCTAssertNoThrow(try Countdown.Instance.parse(good), good)
        }
        for bad in [
            "q9", "t4", "t4ab", "xt4a", "", "317", "317:", ":3", "317:3--4", "317:3-4-", "317:0-4", "317:03",
            "01:3", "1234567890:1", "317: 3", "317:3-4:5", "+3:4",
        ] {
            XCTAssertFalse(d.accepts(bad), bad)
        }
        XCTAssertTrue(d.accepts("952:100-75-50-25-10-5-1-2-1"))
        XCTAssertThrowsError(try Countdown.Instance.parse("952:100-75-50-25-10-5-1-2-1"))
        rejects("countdown --model sc --param 952:100-75-50-25-10-5-1-2-1 --iterations 1")
    }

    /// The table's own consistency: patterns compile, defaults lie in their domains (or stand
    /// for `--param`), a reason comes only with an integer bound, every model has a shape, and
    /// no key is listed twice.
    func testTableIsConsistent() throws {
        XCTAssertEqual(Set(Catalog.models.map(\.name)).count, Catalog.models.count)
        for benchmark in Catalog.benchmarks {
            if case .pattern(let p) = benchmark.param { XCTAssertNoThrow(try Regex(p)) }
            for model in benchmark.models {
                XCTAssertTrue(Catalog.models.contains { $0.name == model.name })
                XCTAssertFalse(model.shapes.isEmpty, "\(benchmark.name)/\(model.name)")
                XCTAssertEqual(Set(model.options.map(\.key)).count, model.options.count)
                XCTAssertFalse(model.options.contains { $0.key == "shape" })
                for option in model.options {
                    if let value = option.defaultValue, value != OptionSpec.param {
                        XCTAssertTrue(option.domain.accepts(value), "\(benchmark.name) \(option.key)")
                    }
                    if option.defaultValue == OptionSpec.param, case .int(let low?, _) = benchmark.param {
                        // Every --param the benchmark takes is a value of the option.
                        XCTAssertTrue(option.domain.accepts(String(low)), "\(benchmark.name) \(option.key)")
                    } else if option.defaultValue == OptionSpec.param {
                        XCTFail("\(benchmark.name) \(option.key): a default of --param that is no integer")
                    }
                    if let reason = option.reason {
                        XCTAssertFalse(reason.isEmpty)
                        guard case .int(_, _?) = option.domain else {
                            return XCTFail("\(benchmark.name)/\(model.name) \(option.key): a reason without a bound")
                        }
                    }
                }
            }
        }
    }

    /// Every shape of the table builds a plan of its model's driver kind, with every
    /// option at its domain's lower bound (where it has one).
    func testEveryShapeBuildsAPlan() throws {
        for benchmark in Catalog.benchmarks {
            for model in benchmark.models {
                let param = benchmark.name == "countdown" ? "t4a" : "2"
                let options = model.options.compactMap { option -> String? in
                    switch option.domain {
                    case .int(let min?, _): " --option \(option.key)=\(min)"
                    case .values(let list): " --option \(option.key)=\(list[0])"
                    default: nil
                    }
                }.joined()
                for shape in model.shapes {
                    let line = "\(benchmark.name) --model \(model.name) --param \(param) --iterations 1"
                        + " --option shape=\(shape)" + options
                    switch (model.name, Catalog.makePlan(try Catalog.check(try args(line)))) {
                    case ("sc", .suspending), ("qs", .suspending), ("gcd", .blocking), ("seq", .blocking):
                        break
                    default:
                        XCTFail("\(line): wrong driver kind")
                    }
                }
            }
        }
    }

    func testChecksApplyTheTable() throws {
        rejects("bogus --model sc --param 1 --iterations 1")
        rejects("fib --model threads --param 1 --iterations 1")
        rejects("fib --model gcd --param 1 --iterations 1 --option shape=foo")
        rejects("fib --model sc --param 1 --iterations 1 --option wait_ms=3")
        rejects("fib --model sc --param 93 --iterations 1")
        rejects("fib --model sc --param x --iterations 1")
        rejects("fib --model sc --param 1 --iterations 1 --option count_spawns=2")
        rejects("nqueens --model sc --param 4 --iterations 1 --option driver=pool")
        rejects("spawn-actors --model seq --param 10 --iterations 1")
        rejects("big --model sc --param 20 --iterations 1 --option hood=0")
        rejects("chameneos --model sc --param 1 --iterations 1")
        rejects("chameneos --model qs --param 3 --iterations 1 --option meetings=0")
        rejects("chameneos --model gcd --param 0 --iterations 1 --option variant=redux --option meetings=0")
        rejects("chameneos --model sc --param 1 --iterations 1 --option variant=encore")
        rejects("fib --model sc --param 1 --iterations -1")
        rejects("fib --model sc --param 1 --iterations 0")
        rejects("fib --model sc --param 1")

        let fib = try Catalog.check(try args("fib --model gcd --param 20 --iterations 3 --option shape=parallel"))
        XCTAssertEqual([fib.shape, fib.value("cutoff"), fib.value("driver")], ["parallel", "0", "main"])
        XCTAssertEqual(fib.n, 20)
        let redux = try Catalog.check(
            try args("chameneos --model gcd --param 0 --iterations 1 --option variant=redux --option meetings=5"))
        XCTAssertEqual(redux.value("variant"), "redux")
        // countdown's window: the option, else --workers, else the cores.
        let countdown = try Catalog.check(try args("countdown --model sc --param q7 --iterations 1 --workers 3"))
        XCTAssertNil(countdown.value("window"))
        XCTAssertEqual(countdown.workers, 3)
        XCTAssertGreaterThanOrEqual(Catalog.availableCores(), 1)
    }

    /// The bounds narrower than the benchmarks' declarations, each with its reason, and the
    /// counts bounded by nothing but their type.
    func testBounds() throws {
        // gcd's default coordination shapes start an OS thread per worker (2n for prodcons, condition).
        for name in ["mutex", "prodcons", "condition"] {
            let line = "\(name) --model gcd --param 1 --iterations 1 --option n="
            XCTAssertNoThrow(try Catalog.check(try args(line + "4096")))
            rejects(line + "4097")
        }
        // 2n workers counted in an Int (condition/sc, and prodcons and condition under qs).
        for line in ["condition --model sc", "condition --model qs", "prodcons --model qs"] {
            XCTAssertNoThrow(try Catalog.check(try args("\(line) --param 1 --iterations 1 --option n=\(Int.max / 2)")))
            rejects("\(line) --param 1 --iterations 1 --option n=\(Int.max / 2 + 1)")
        }
        for line in [
            "mutex --model sc --option n=", "mutex --model qs --option n=", "prodcons --model sc --option n=",
            "philosophers --model sc --option n=", "philosophers --model qs --option n=",
            "threadring --model gcd --option ring=", "threadring --model sc --option ring=",
            "threadring --model qs --option ring=", "big --model gcd --option hood=", "big --model sc --option hood=",
        ] {
            XCTAssertNoThrow(try Catalog.check(try args("\(line)\(Int.max) --param 1 --iterations 1")), line)
        }
    }

    /// The Cowichan family: p, nelts and seed for every model, n within its bound, nelts
    /// absent meaning n and W absent meaning the cores.
    func testCowichanOptions() throws {
        for name in Cowichan.Benchmark.allCases.map(\.rawValue) {
            rejects("\(name) --model sc --param 0 --iterations 1")
            rejects("\(name) --model sc --param \(Cowichan.maxN + 1) --iterations 1")
            rejects("\(name) --model gcd --param 5 --iterations 1 --option p=101")
            rejects("\(name) --model gcd --param 5 --iterations 1 --option p=-1")
            rejects("\(name) --model seq --param 5 --iterations 1 --option nelts=0")
            rejects("\(name) --model seq --param 5 --iterations 1 --option seed=4294967296")
            rejects("\(name) --model sc --param 5 --iterations 1 --option seed=-1")
            rejects("\(name) --model seq --param 5 --iterations 1 --option driver=main")
            rejects("\(name) --model sc --param 5 --iterations 1 --option shape=row-channel")
        }
        let defaults = try Catalog.check(try args("winnow --model sc --param 9 --iterations 1 --workers 3"))
        XCTAssertEqual(
            Catalog.cowichanConfig(defaults), Cowichan.Config(n: 9, percent: 1, nelts: 9, seed: 0, workers: 3))
        let given = try Catalog.check(
            try args("chain --model gcd --param 9 --iterations 1 --option p=0 --option nelts=4 --option seed=4294967295"))
        XCTAssertEqual(
            Catalog.cowichanConfig(given),
            Cowichan.Config(n: 9, percent: 0, nelts: 4, seed: .max, workers: Catalog.availableCores()))
    }

    func testDescriptionIsOneJSONLine() throws {
        let line = ProtocolWriter.line(Catalog.description())
        XCTAssertFalse(line.contains("\n"))
        let object = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let describe = try XCTUnwrap(object["describe"] as? [String: Any])
        let benchmarks = try XCTUnwrap(describe["benchmarks"] as? [String: Any])
        XCTAssertEqual(Set(benchmarks.keys), Set(Catalog.benchmarks.map(\.name)))
        let fannkuch = try XCTUnwrap(benchmarks["fannkuch"] as? [String: Any])
        XCTAssertEqual(fannkuch["param"] as? [String: [String: Int]], ["int": ["min": 1, "max": Fannkuch.maxN]])
        // A reason where a bound is narrowed, none elsewhere; nelts' default stands for --param.
        func option(_ benchmark: String, _ model: String, _ key: String) throws -> [String: Any] {
            let entry = try XCTUnwrap(benchmarks[benchmark] as? [String: Any])
            let models = try XCTUnwrap(entry["models"] as? [String: Any])
            let options = try XCTUnwrap((models[model] as? [String: Any])?["options"] as? [String: Any])
            return try XCTUnwrap(options[key] as? [String: Any])
        }
        let threads = try option("mutex", "gcd", "n")
        XCTAssertEqual(threads["int"] as? [String: Int], ["min": 1, "max": 4096])
        XCTAssertEqual(threads["reason"] as? String, "one OS thread per worker (gcd/threads, the default shape)")
        XCTAssertNil(try option("mutex", "sc", "n")["reason"])
        XCTAssertEqual(try option("winnow", "qs", "nelts")["default"] as? String, "{param}")
        XCTAssertEqual(try option("chameneos", "sc", "meetings")["int"] as? [String: Int], ["min": 1])
    }
}
