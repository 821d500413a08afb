import Foundation
import XCTest
@testable import concbench_swift
import ConcbenchKernels

/// The binding command line: what parses, what every catalog entry builds, and
/// which mistakes are usage errors (exit status 2).
final class CommandLineTests: XCTestCase {
    func parse(_ line: String) throws(UsageError) -> Arguments {
        try Arguments.parse(line.split(separator: " ").map(String.init))
    }

    func usageError(_ line: String, file: StaticString = #filePath, line number: UInt = #line) -> String? {
        do {
            _ = try Catalog.plan(for: try parse(line))
            XCTFail("accepted: \(line)", file: file, line: number)
            return nil
        } catch {
            return error.message
        }
    }

    func testFullCommandLine() throws {
        let args = try parse(
            "fib --model gcd --param 20 --iterations 3 --workers 2 --option shape=parallel --option cutoff=5")
        XCTAssertEqual(args.benchmark, "fib")
        XCTAssertEqual(args.model, "gcd")
        XCTAssertEqual(args.param, "20")
        XCTAssertEqual(args.iterations, 3)
        XCTAssertEqual(args.workers, 2)
        XCTAssertEqual(args.options.map(\.key), ["shape", "cutoff"])
        XCTAssertEqual(args.options.map(\.value), ["parallel", "5"])
    }

    func testEveryCatalogShapeBuildsAPlan() throws {
        for (benchmark, entry) in Catalog.benchmarks {
            for (model, shapes) in entry.models {
                for shape in shapes {
                    // countdown takes an instance; chameneos (encore) at least two creatures.
                    let param = benchmark == "countdown" ? "t4a" : benchmark == "chameneos" ? "2" : "1"
                    let args = try parse(
                        "\(benchmark) --model \(model) --param \(param) --iterations 1 --option shape=\(shape)")
                    let plan = try Catalog.plan(for: args)
                    switch (model, plan) {
                    case ("sc", .suspending), ("gcd", .blocking), ("seq", .blocking):
                        break
                    default:
                        XCTFail("\(benchmark)/\(model)/\(shape) has the wrong driver kind")
                    }
                }
            }
        }
    }

    func testDriverPoolOnlyForGCD() throws {
        guard case .blocking(let onPool, _, _) = try Catalog.plan(
            for: try parse("nqueens --model gcd --param 4 --iterations 1 --option driver=pool"))
        else { return XCTFail("gcd must be blocking") }
        XCTAssertTrue(onPool)
        XCTAssertNotNil(usageError("nqueens --model sc --param 4 --iterations 1 --option driver=pool"))
    }

    func testSeqIsNotServedForGroupAndActors() {
        XCTAssertNotNil(usageError("spawn-waiting-group --model seq --param 10 --iterations 1"))
        XCTAssertNotNil(usageError("spawn-actors --model seq --param 10 --iterations 1"))
    }

    func testUsageErrors() {
        let cases: [(String, String)] = [
            ("bogus --model sc --param 1 --iterations 1", "unknown benchmark 'bogus'"),
            ("fib --model threads --param 1 --iterations 1", "unknown model 'threads' for fib"),
            ("fib --model gcd --param 1 --iterations 1 --option shape=foo",
             "unknown shape 'foo' for fib/gcd (known: cps, parallel)"),
            ("fib --model sc --param 1 --iterations 1 --option wait_ms=3", "unknown option 'wait_ms'"),
            ("fib --model sc --param x --iterations 1", "bad value 'x' for --param"),
            ("fib --model sc --param 93 --iterations 1", "bad value '93' for --param of fib"),
            ("fib --model sc --param 1 --iterations -1", "bad value '-1' for --iterations"),
            ("fib --model sc --param 1 --iterations 1 --workers 0", "bad value '0' for --workers"),
            ("fib --model sc --param 1 --iterations 1 --option cutoff=", "bad value '' for option cutoff"),
            ("fib --model sc --param 1 --iterations 1 --option count_spawns=2", "count_spawns"),
            ("fib --model sc --param 1 --iterations 1 --option cutoff", "malformed option 'cutoff'"),
            ("fib --model sc --param 1 --iterations 1 --option =1", "malformed option '=1'"),
            ("fib --model sc --param 1 --iterations 1 --option cutoff=1 --option cutoff=2", "given twice"),
            ("fib --model sc --param 1", "missing --iterations"),
            ("fib --param 1 --iterations 1", "missing --model"),
            ("fib --model sc --iterations 1", "missing --param"),
            ("--model sc --param 1 --iterations 1", "missing benchmark"),
            ("fib --model sc --param 1 --iterations 1 --verbose 1", "unknown argument '--verbose'"),
            ("fib --model sc --param 1 --iterations", "missing value after --iterations"),
            ("spawn-waiting --model gcd --param 2 --iterations 1 --option driver=both", "driver"),
            ("matmul --model seq --param 0 --iterations 1", "bad value '0' for --param of matmul"),
            ("spawn-scaling --model sc --param -1 --iterations 1", "bad value '-1' for --param of spawn-scaling"),
            ("spawn-scaling --model sc --param 10 --iterations 1 --option shape=task",
             "unknown shape 'task' for spawn-scaling/sc (known: loose, group, discarding)"),
            ("spawn-scaling --model seq --param 10 --iterations 1 --option window=2", "unknown option 'window'"),
            ("countdown --model sc --param q9 --iterations 1", "unknown instance 'q9'"),
            ("countdown --model sc --param 12 --iterations 1", "bad value '12' for --param of countdown"),
            ("countdown --model sc --param 317:3-0 --iterations 1", "malformed number '0'"),
            ("countdown --model sc --param 952:100-75-50-25-10-5-1-2-1 --iterations 1", "overflow"),
            ("countdown --model sc --param t4a --iterations 1 --option window=0", "bad value '0' for option window"),
            ("countdown --model seq --param t4a --iterations 1 --option window=x", "option window"),
            ("countdown --model gcd --param t4a --iterations 1", "unknown model 'gcd' for countdown"),
            ("big --model seq --param 20 --iterations 1", "unknown model 'seq' for big"),
            ("big --model sc --param 0 --iterations 1", "bad value '0' for --param of big"),
            ("big --model sc --param 20 --iterations 1 --option hood=0", "bad value '0' for option hood"),
            ("big --model gcd --param 20 --iterations 1 --option pings=-1", "option pings"),
            ("big --model sc --param 20 --iterations 1 --option shape=actor",
             "unknown shape 'actor' for big/sc (known: stream, task-per-message)"),
            ("big --model sc --param 20 --iterations 1 --option meetings=1", "unknown option 'meetings'"),
            ("chameneos --model sc --param 1 --iterations 1", "expected >= 2 creatures"),
            ("chameneos --model gcd --param 3 --iterations 1 --option variant=classic", "option variant"),
            ("chameneos --model gcd --param 3 --iterations 1 --option shape=rendezvous",
             "unknown shape 'rendezvous' for chameneos/gcd (known: message, message-global)"),
            ("chameneos --model sc --param 3 --iterations 1 --option meetings=x", "option meetings"),
            ("fannkuch --model seq --param 0 --iterations 1", "bad value '0' for --param of fannkuch"),
            ("fannkuch --model seq --param 21 --iterations 1", "bad value '21' for --param of fannkuch"),
            ("fannkuch --model sc --param 7 --iterations 1 --option chunks=0", "bad value '0' for option chunks"),
            ("fannkuch --model gcd --param 7 --iterations 1 --option pings=1", "unknown option 'pings'"),
        ]
        for (line, fragment) in cases {
            guard let message = usageError(line) else { continue }
            XCTAssertTrue(message.contains(fragment), "\(line): \(message)")
            XCTAssertFalse(message.contains("\n"), "one line only: \(line)")
        }
    }

    func testCountdownWindowDefaultsToWorkers() throws {
        let byWorkers = try Catalog.checked(
            try parse("countdown --model sc --param 1:1-1 --iterations 1 --workers 3")).settings
        XCTAssertEqual(byWorkers.window, 3)
        XCTAssertEqual(byWorkers.shape, "naive")
        XCTAssertEqual(byWorkers.instance, Countdown.Instance(goal: 1, numbers: [1, 1]))
        let byOption = try Catalog.checked(
            try parse("countdown --model sc --param q7 --iterations 1 --workers 3 --option window=1")).settings
        XCTAssertEqual(byOption.window, 1)
        // Without --workers, the cores this process may use.
        let byCores = try Catalog.checked(try parse("countdown --model seq --param q7 --iterations 1")).settings
        XCTAssertEqual(byCores.window, Catalog.availableCores())
        XCTAssertGreaterThanOrEqual(byCores.window, 1)
        XCTAssertLessThanOrEqual(byCores.window, ProcessInfo.processInfo.activeProcessorCount)
    }

    func testMessagePassingOptions() throws {
        let big = try Catalog.checked(try parse("big --model sc --param 50 --iterations 1")).settings
        XCTAssertEqual([big.shape, "\(big.pings)", "\(big.hood)"], ["stream", "16000", "1000"])
        let chameneos = try Catalog.checked(try parse("chameneos --model sc --param 7 --iterations 1")).settings
        XCTAssertEqual(chameneos.shape, "rendezvous")
        XCTAssertEqual(chameneos.variant, .encore)
        XCTAssertEqual(chameneos.meetings, 8_000_000)
        // redux: --param is n, so 0 and 1 are fine, and a size set's `meetings` is ignored.
        let redux = try Catalog.checked(
            try parse("chameneos --model gcd --param 1 --iterations 1 --option variant=redux --option meetings=5"))
        XCTAssertEqual(redux.settings.variant, .redux)
        let fannkuch = try Catalog.checked(try parse("fannkuch --model gcd --param 10 --iterations 1")).settings
        XCTAssertEqual([fannkuch.shape, "\(fannkuch.chunks)"], ["concurrent-perform", "150"])
    }

    func testMetricValuesAreJSONNumbers() {
        XCTAssertEqual(Metric("batches", 7).json, "7")
        XCTAssertEqual(Metric("cv", 0.5).json, "0.5")
        XCTAssertEqual(Metric("fairness_std", 0.0).json, "0.0")
        XCTAssertEqual(Metric("cv", 1e-5).json, "1e-05")
        for metric in [Metric("a", 1e-5), Metric("b", 12345.678), Metric("c", 1e20)] {
            let line = "{\"metrics\": {\"x\": \(metric.json)}}"
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(line.utf8)), line)
        }
    }

    func testJSONEscaping() {
        XCTAssertEqual(ProtocolWriter.json("tasks=2 sum=3"), "\"tasks=2 sum=3\"")
        XCTAssertEqual(ProtocolWriter.json("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\u0001\"")
    }
}
