import Foundation
import XCTest

/// End to end through the built binary: protocol lines on stdout, exit statuses.
final class ExecutableTests: XCTestCase {
    struct Outcome {
        let status: Int32
        let stdout: [String]
        let stderr: [String]
    }

    /// The `concbench-swift` product beside the test bundle in the build folder.
    func binary() throws -> URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent("concbench-swift")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        throw XCTSkip("concbench-swift binary not found next to the tests")
    }

    func run(_ arguments: String) throws -> Outcome {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = arguments.split(separator: " ").map(String.init)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        func lines(_ data: Data) -> [String] {
            String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        return Outcome(status: process.terminationStatus, stdout: lines(stdout), stderr: lines(stderr))
    }

    func object(_ line: String) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try XCTUnwrap(value as? [String: Any], line)
    }

    func testHelloThenIterationsForEveryModel() throws {
        for model in ["gcd", "sc", "seq"] {
            let outcome = try run("fib --model \(model) --param 10 --iterations 2 --workers 2")
            XCTAssertEqual(outcome.status, 0)
            XCTAssertEqual(outcome.stdout.count, 3)
            let hello = try XCTUnwrap(try object(outcome.stdout[0])["hello"] as? [String: Any])
            XCTAssertEqual(hello["protocol"] as? Int, 1)
            XCTAssertEqual(hello["language"] as? String, "swift")
            XCTAssertEqual(hello["model"] as? String, model)
            XCTAssertTrue((hello["runtime"] as? String ?? "").hasPrefix("Swift 6."))
            for (t, line) in outcome.stdout.dropFirst().enumerated() {
                let it = try object(line)
                XCTAssertEqual(it["iteration"] as? Int, t)
                XCTAssertEqual(it["result"] as? String, "55")
                XCTAssertGreaterThan(it["ns"] as? Int ?? 0, 0)
            }
        }
    }

    func testMatmulCyclesSeedsAndCountSpawnsMetric() throws {
        let matmul = try run("matmul --model gcd --param 10 --iterations 5 --option driver=pool")
        XCTAssertEqual(matmul.status, 0)
        let results = try matmul.stdout.dropFirst().map { try object($0)["result"] as? String }
        XCTAssertEqual(results, [
            "seed=12345 checksum=13606466542", "seed=12346 checksum=11062465996",
            "seed=12347 checksum=11204601074", "seed=12348 checksum=13870630232",
            "seed=12345 checksum=13606466542",
        ])

        let fib = try run("fib --model sc --param 10 --iterations 1 --option count_spawns=1")
        XCTAssertEqual(fib.status, 0)
        let metrics = try XCTUnwrap(try object(fib.stdout.last ?? "{}")["metrics"] as? [String: Any])
        XCTAssertEqual(metrics["spawns"] as? Int, 176)
    }

    func testCountdownPrintsTheLastIterationsBatches() throws {
        let sc = try run("countdown --model sc --param t5 --iterations 2 --workers 2 --option shape=indexed")
        XCTAssertEqual(sc.status, 0)
        XCTAssertEqual(sc.stdout.count, 4)
        XCTAssertEqual(try object(sc.stdout[2])["result"] as? String, "solutions=5 checksum=1711197073787650478")
        let metrics = try XCTUnwrap(try object(sc.stdout[3])["metrics"] as? [String: Any])
        XCTAssertEqual(metrics["batches"] as? Int, 2)
        // seq splits nothing: no metrics line.
        let seq = try run("countdown --model seq --param t5 --iterations 1 --option window=2")
        XCTAssertEqual(seq.status, 0)
        XCTAssertEqual(seq.stdout.count, 2)
    }

    func testSpawnScalingEveryShape() throws {
        for (model, shape) in [("sc", "loose"), ("sc", "group"), ("sc", "discarding"), ("gcd", "group"), ("seq", "loop")] {
            let outcome = try run("spawn-scaling --model \(model) --param 64 --iterations 1 --option shape=\(shape)")
            XCTAssertEqual(outcome.status, 0)
            XCTAssertEqual(outcome.stdout.count, 2)
            XCTAssertEqual(try object(outcome.stdout[1])["result"] as? String, "tasks=64 sum=30816")
        }
    }

    func testChameneosPrintsTheLastIterationsFairness() throws {
        for (model, shape) in [("sc", "rendezvous"), ("sc", "message"), ("gcd", "message"), ("gcd", "message-global")] {
            let outcome = try run(
                "chameneos --model \(model) --param 10 --iterations 2 --workers 2 --option shape=\(shape) "
                    + "--option variant=encore --option meetings=10000")
            XCTAssertEqual(outcome.status, 0)
            XCTAssertEqual(outcome.stdout.count, 4)
            XCTAssertEqual(try object(outcome.stdout[2])["result"] as? String, "meetings=10000 creature_meetings=20000")
            let metrics = try XCTUnwrap(try object(outcome.stdout[3])["metrics"] as? [String: Any])
            XCTAssertEqual(metrics["self_meetings"] as? Int, 0)
            XCTAssertEqual(metrics["colour_sum_mod3"] as? Int, 1)
            XCTAssertNotNil(metrics["fairness_std"] as? Double)
            XCTAssertNotNil(metrics["cv"] as? Double)
            XCTAssertEqual((metrics["min_meetings"] as? Int).map { $0 <= 2000 }, true)
            XCTAssertEqual((metrics["max_meetings"] as? Int).map { $0 >= 2000 }, true)
        }
        let redux = try run("chameneos --model gcd --param 100 --iterations 1 --option variant=redux --option meetings=7")
        XCTAssertEqual(redux.status, 0)
        XCTAssertEqual(
            try object(redux.stdout[1])["result"] as? String,
            "meetings3=100 creature_meetings3=200 meetings10=100 creature_meetings10=200")
    }

    func testBigAndFannkuchEveryShape() throws {
        for (model, shape) in [
            ("sc", "stream"), ("sc", "task-per-message"), ("gcd", "serial-queue"), ("gcd", "serial-queue-global"),
        ] {
            let outcome = try run(
                "big --model \(model) --param 50 --iterations 1 --option shape=\(shape) --option pings=100 --option hood=20")
            XCTAssertEqual(outcome.status, 0)
            XCTAssertEqual(try object(outcome.stdout[1])["result"] as? String, "messages=10000 checksum=128266")
        }
        for (model, shape) in [("sc", "task-group"), ("gcd", "concurrent-perform"), ("gcd", "group"), ("seq", "plain")] {
            let outcome = try run("fannkuch --model \(model) --param 7 --iterations 1 --option shape=\(shape)")
            XCTAssertEqual(outcome.status, 0)
            XCTAssertEqual(outcome.stdout.count, 2)
            XCTAssertEqual(try object(outcome.stdout[1])["result"] as? String, "maxflips=16 checksum=228")
        }
    }

    func testUsageErrorsExitTwoWithOneStderrLineAndNoStdout() throws {
        for line in [
            "nosuch --model sc --param 1 --iterations 1",
            "fib --model sc --param 1 --iterations 1 --option nosuch=1",
            "fib --model gcd --param 1 --iterations 1 --option shape=foo",
            "fib --model sc",
            "countdown --model sc --param 317:3-x --iterations 1",
            "countdown --model sc --param t4a --iterations 1 --option window=0",
            "chameneos --model sc --param 1 --iterations 1",
            "big --model gcd --param 10 --iterations 1 --option hood=x",
        ] {
            let outcome = try run(line)
            XCTAssertEqual(outcome.status, 2, line)
            XCTAssertEqual(outcome.stdout, [], line)
            XCTAssertEqual(outcome.stderr.count, 1, line)
            XCTAssertTrue(outcome.stderr.first?.hasPrefix("concbench-swift: ") ?? false, line)
        }
    }
}
