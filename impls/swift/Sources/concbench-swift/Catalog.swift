import Separate
import ConcbenchKernels
import Foundation

/// The set of values an option or `--param` accepts: what `describe` prints and what
/// the argument checks apply, so the two cannot drift apart.
enum Domain: Sendable, Equatable {
    /// A decimal integer (an optional leading `-`, digits only) within the inclusive bounds.
    case int(min: Int? = nil, max: Int? = nil)
    /// Exactly one of the listed strings.
    case values([String])
    /// A string the whole of which matches the regular expression.
    case pattern(String)

    /// `text` as an integer if it is a decimal integer (an optional leading `-`, then
    /// digits only) that fits in an Int; the digits are converted by `Int(_:)`.
    static func integer(_ text: String) -> Int? {
        let digits = text.utf8.first == UInt8(ascii: "-") ? text.utf8.dropFirst() : text.utf8[...]
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(text)
    }

    func accepts(_ text: String) -> Bool {
        switch self {
        case let .int(min, max):
            guard let v = Domain.integer(text) else { return false }
            return v >= (min ?? .min) && v <= (max ?? .max)
        case let .values(list):
            return list.contains(text)
        case let .pattern(expression):
            // The table's patterns are fixed; the tests compile every one of them.
            guard let regex = try? Regex(expression) else { return false }
            return (try? regex.wholeMatch(in: text)) != nil
        }
    }

    /// What the domain accepts, for a usage error.
    var expectation: String {
        switch self {
        case .int(nil, nil): "an integer"
        case let .int(min?, nil): "an integer >= \(min)"
        case let .int(nil, max?): "an integer <= \(max)"
        case let .int(min?, max?): "an integer in \(min)...\(max)"
        case let .values(list): "one of \(list.joined(separator: ", "))"
        case let .pattern(expression): "a string matching \(expression)"
        }
    }

    /// The domain as `describe` writes it.
    var json: [String: Any] {
        switch self {
        case let .int(min, max):
            var bounds: [String: Any] = [:]
            if let min { bounds["min"] = min }
            if let max { bounds["max"] = max }
            return ["int": bounds]
        case let .values(list):
            return ["values": list]
        case let .pattern(expression):
            return ["pattern": expression]
        }
    }
}

/// One option key of a benchmark and model; `defaultValue` is what the binary uses
/// when the option is absent (nil where the default is not a fixed value; `OptionSpec.param`
/// where it is `--param`). `reason`: why the domain narrows the benchmark's declaration of
/// the option (benchmarks/<id>.toml), printed beside the default only when set.
struct OptionSpec: Sendable {
    let key: String
    let domain: Domain
    let defaultValue: String?
    let reason: String?

    /// The default that stands for the value of `--param`.
    static let param = "{param}"

    init(_ key: String, _ domain: Domain, default defaultValue: String?, reason: String? = nil) {
        self.key = key
        self.domain = domain
        self.defaultValue = defaultValue
        self.reason = reason
    }
}

/// A model's entry for one benchmark: its shapes, the faithful port first (the
/// default), and every option key besides `shape`.
struct ModelSpec: Sendable {
    let name: String
    let shapes: [String]
    let options: [OptionSpec]
}

struct BenchmarkSpec: Sendable {
    let name: String
    /// The domain of `--param`.
    let param: Domain
    let models: [ModelSpec]
}

/// The one table of what this implementation serves: `describe` prints it, the
/// argument checks apply it, and `makePlan` builds a kernel for each of its shapes.
enum Catalog {
    static let language = "swift"

    static let models: [(name: String, description: String)] = [
        ("gcd", "Grand Central Dispatch (swift-corelibs-libdispatch)"),
        ("sc", "Swift concurrency: tasks, task groups, actors"),
        ("seq", "sequential baseline, no tasks"),
        ("qs", "SCOOP/Qs execution model (our Separate library): handlers, queues of queues, separate blocks"),
    ]

    // Options shared by several benchmarks.

    /// gcd only: the timing loop on the main thread, or inside one global-queue block.
    static let driver = OptionSpec("driver", .values(["main", "pool"]), default: "main")
    /// An hour per task is already absurd; the bound keeps the nanosecond arithmetic safe.
    static let waitMs = OptionSpec("wait_ms", .int(min: 0, max: 3_600_000), default: "100")
    static let countSpawns = OptionSpec("count_spawns", .values(["0", "1"]), default: "0")
    /// fib: below the cutoff, plain recursion (seq accepts it and is plain recursion throughout).
    static let cutoff = OptionSpec("cutoff", .int(min: 0), default: "0")
    /// fib (repeatable in benchmarks/fib.toml): k back-to-back kernels per reported iteration,
    /// for sizes too short for the clock; every result is kept, so the bound keeps memory small.
    static let repeats = OptionSpec("repeat", .int(min: 1, max: 1_000_000), default: "1")
    /// countdown: the cap on outstanding batches; absent, `--workers`, else the cores.
    static let window = OptionSpec("window", .int(min: 1), default: nil)
    /// big: a neighbourhood holds min(N, H) workers, so any H draws within N's 32 bits.
    static let pings = OptionSpec("pings", .int(min: 0), default: "16000")
    static let hood = OptionSpec("hood", .int(min: 1), default: "1000")
    /// chameneos: `meetings` is encore's M; redux accepts it (a size set may pass it) and ignores it.
    static let variant = OptionSpec(
        "variant", .values(Chameneos.Variant.allCases.map(\.rawValue)), default: Chameneos.Variant.encore.rawValue)
    static let meetings = OptionSpec("meetings", .int(min: 1), default: "8000000")
    static let chunks = OptionSpec("chunks", .int(min: 1), default: "150")

    /// The Cowichan family (chain.md): every model of the six takes all three, whatever its
    /// stage reads. nelts absent is n.
    static let percent = OptionSpec("p", .int(min: 0, max: 100), default: "1")
    static let nelts = OptionSpec("nelts", .int(min: 1), default: OptionSpec.param)
    static let seed = OptionSpec("seed", .int(min: 0, max: Int(UInt32.max)), default: "0")

    /// mutex, prodcons, condition: n workers (per role or parity; not `--workers`), tasks or
    /// clients under sc and qs. condition/sc and prodcons and condition under qs count their
    /// 2n workers in one Int (`0..<(2 * n)`, `runtime.clients(2 * n)`).
    static let coordinationWorkers = OptionSpec("n", .int(min: 1), default: "32")
    static let coordinationPairs = OptionSpec(
        "n", .int(min: 1, max: Int.max / 2), default: "32", reason: "2n workers, counted in a 64-bit Int")
    /// gcd: the default shape starts a dedicated OS thread per worker (2n for prodcons and condition).
    static func coordinationThreads(_ threads: String) -> OptionSpec {
        OptionSpec("n", .int(min: 1, max: 4096), default: "32", reason: threads)
    }
    /// m per worker. No product n*m is formed: the totals are counted one operation at a time
    /// (prodcons' items and their sum wrap mod 2^64).
    static let coordinationOps = Domain.int(min: 0, max: 1_000_000_000)
    /// threadring: the ring size R, one task, actor, queue or handler per entity.
    static let ring = OptionSpec("ring", .int(min: 2), default: "503")

    /// A gcd entry: every gcd shape also takes `driver`.
    static func gcd(_ shapes: [String], _ options: [OptionSpec] = []) -> ModelSpec {
        ModelSpec(name: "gcd", shapes: shapes, options: [driver] + options)
    }

    static func sc(_ shapes: [String], _ options: [OptionSpec] = []) -> ModelSpec {
        ModelSpec(name: "sc", shapes: shapes, options: options)
    }

    /// qs: the Separate runtime (SCOOP/Qs's execution model); `config` picks the paper's
    /// optimisations (Tables 1 and 2), and every qs entry takes it.
    static let config = OptionSpec(
        "config", .values(Configuration.allCases.map(\.rawValue)), default: Configuration.all.rawValue)

    static func qs(_ shapes: [String], _ options: [OptionSpec] = []) -> ModelSpec {
        ModelSpec(name: "qs", shapes: shapes, options: [config] + options)
    }

    /// philosophers: n philosophers and forks (at least 2: one fork cannot be both hands).
    static let philosophers = OptionSpec("n", .int(min: 2), default: "5")

    static func seq(_ shapes: [String], _ options: [OptionSpec] = []) -> ModelSpec {
        ModelSpec(name: "seq", shapes: shapes, options: options)
    }

    /// countdown's `--param`: a named instance, or `GOAL:N1-N2-...` with a goal below
    /// 10^9 and 1 to 32 numbers in 1...999 999 999 (no leading zeros). 32 numbers is
    /// the most whose bound prod(n_i + 1) can stay within 2^32; the bound itself, a
    /// rule over all the numbers together, is checked after the pattern.
    static let countdownInstance = Domain.pattern(
        "(" + Countdown.Instance.named.map(\.key).joined(separator: "|")
            + "|(0|[1-9][0-9]{0,8}):[1-9][0-9]{0,8}(-[1-9][0-9]{0,8}){0,31})")

    static let benchmarks: [BenchmarkSpec] = [
        BenchmarkSpec(
            name: "spawn-waiting", param: .int(min: 0),
            models: [gcd(["sync", "async-wait"], [waitMs]), sc(["task"], [waitMs]), seq(["inline"], [waitMs])]),
        BenchmarkSpec(
            name: "spawn-waiting-group", param: .int(min: 0),
            models: [gcd(["group"], [waitMs]), sc(["group"], [waitMs])]),
        BenchmarkSpec(
            name: "spawn-actors", param: .int(min: 0),
            models: [gcd(["serial-queue"]), sc(["actor"])]),
        // fib(92) is the largest that fits in 64 bits.
        BenchmarkSpec(
            name: "fib", param: .int(min: 0, max: 92),
            models: [
                gcd(Fib.GCDShape.allCases.map(\.rawValue), [cutoff, countSpawns]),
                sc(["asynclet"], [cutoff, countSpawns, repeats]), seq(["plain"], [cutoff, countSpawns, repeats]),
            ]),
        BenchmarkSpec(
            name: "nqueens", param: .int(min: 0),
            models: [gcd(["group-wait"], [countSpawns]), sc(["group"], [countSpawns]), seq(["plain"], [countSpawns])]),
        BenchmarkSpec(
            name: "matmul", param: .int(min: 1),
            models: [gcd(["serial-queue"]), sc(["actor"]), seq(["loops"])]),
        BenchmarkSpec(
            name: "spawn-scaling", param: .int(min: 0),
            models: [gcd(["group"]), sc(SpawnScaling.SCShape.allCases.map(\.rawValue)), seq(["loop"])]),
        // seq takes `window` too (and ignores it): the size sets sweep it for every model.
        BenchmarkSpec(
            name: "countdown", param: countdownInstance,
            models: [sc(Countdown.SCShape.allCases.map(\.rawValue), [window]), seq(["plain"], [window])]),
        // Workers are numbered with 32-bit seeds.
        BenchmarkSpec(
            name: "big", param: .int(min: 1, max: Int(UInt32.max)),
            models: [
                gcd(Big.GCDShape.allCases.map(\.rawValue), [pings, hood]),
                sc(Big.SCShape.allCases.map(\.rawValue), [pings, hood]),
            ]),
        // --param is C for encore (C >= 2, checked with the variant) and n >= 0 for redux.
        BenchmarkSpec(
            name: "chameneos", param: .int(min: 0),
            models: [
                gcd(Chameneos.GCDShape.allCases.map(\.rawValue), [variant, meetings]),
                sc(Chameneos.SCShape.allCases.map(\.rawValue), [variant, meetings]),
                qs(["separate"], [variant, meetings]),
            ]),
        BenchmarkSpec(
            name: "fannkuch", param: .int(min: 1, max: Fannkuch.maxN),
            models: [
                gcd(Fannkuch.GCDShape.allCases.map(\.rawValue), [chunks]), sc(["task-group"], [chunks]),
                seq(["plain"], [chunks]),
            ]),
        BenchmarkSpec(
            name: "mutex", param: coordinationOps,
            models: [
                gcd(
                    Coordination.MutexGCDShape.allCases.map(\.rawValue),
                    [coordinationThreads("one OS thread per worker (gcd/threads, the default shape)")]),
                sc(["actor"], [coordinationWorkers]),
                qs(["separate"], [coordinationWorkers]),
            ]),
        BenchmarkSpec(
            name: "prodcons", param: coordinationOps,
            models: [
                gcd(
                    Coordination.ProdConsGCDShape.allCases.map(\.rawValue),
                    [coordinationThreads("2n OS threads (gcd/semaphore, the default shape)")]),
                sc(Coordination.ProdConsSCShape.allCases.map(\.rawValue), [coordinationWorkers]),
                qs(["separate"], [coordinationPairs]),
            ]),
        BenchmarkSpec(
            name: "condition", param: coordinationOps,
            models: [
                gcd(
                    Coordination.ConditionGCDShape.allCases.map(\.rawValue),
                    [coordinationThreads("2n OS threads (gcd/semaphores, the default shape)")]),
                sc(["actor"], [coordinationPairs]),
                qs(["separate"], [coordinationPairs]),
            ]),
        // N is the token, so also the number of passes; 0 makes entity 1 answer at once.
        BenchmarkSpec(
            name: "threadring", param: .int(min: 0),
            models: [
                gcd(Threadring.GCDShape.allCases.map(\.rawValue), [ring]),
                sc(Threadring.SCShape.allCases.map(\.rawValue), [ring]),
                qs(["separate"], [ring]),
            ]),
        BenchmarkSpec(
            name: "philosophers", param: coordinationOps,
            models: [sc(["ordered"], [philosophers]), qs(["separate"], [philosophers])]),
    ] + Cowichan.Benchmark.allCases.map { benchmark in
        // n is bounded by winnow's key packing and the memory of n² cells.
        BenchmarkSpec(
            name: benchmark.rawValue, param: .int(min: 1, max: Cowichan.maxN),
            models: [
                // chain.md's shape names: `blocks`, whole blocks handed over or written in place.
                gcd(["blocks"], [percent, nelts, seed]), sc(["blocks"], [percent, nelts, seed]),
                seq(["plain"], [percent, nelts, seed]), qs(["separate"], [percent, nelts, seed]),
            ])
    }

    /// The `describe` object, built from the table above.
    static func description() -> [String: Any] {
        var benchmarkObjects: [String: Any] = [:]
        for benchmark in benchmarks {
            var modelObjects: [String: Any] = [:]
            for model in benchmark.models {
                var options: [String: Any] = [:]
                for option in model.options {
                    var domain = option.domain.json
                    if let value = option.defaultValue { domain["default"] = value }
                    if let reason = option.reason { domain["reason"] = reason }
                    options[option.key] = domain
                }
                modelObjects[model.name] = ["shapes": model.shapes, "options": options]
            }
            benchmarkObjects[benchmark.name] = ["param": benchmark.param.json, "models": modelObjects]
        }
        var modelDescriptions: [String: Any] = [:]
        for model in models { modelDescriptions[model.name] = model.description }
        return [
            "describe": [
                "protocol": 1, "language": language, "models": modelDescriptions,
                "benchmarks": benchmarkObjects,
            ] as [String: Any]
        ]
    }

    /// A command line checked against the table: the shape, and every option of the
    /// model with the given value or the table's default.
    struct Checked {
        let benchmark: String
        let model: String
        let shape: String
        /// `--param`, inside the benchmark's domain.
        let param: String
        let workers: Int?
        private let values: [String: String]

        init(benchmark: String, model: String, shape: String, param: String, workers: Int?, values: [String: String]) {
            self.benchmark = benchmark
            self.model = model
            self.shape = shape
            self.param = param
            self.workers = workers
            self.values = values
        }

        /// The option's value, given or default; nil if it has neither.
        func value(_ key: String) -> String? {
            values[key]
        }

        /// An integer option; only called for keys of this model with an int domain
        /// and a default, so the value is always there and in range.
        func int(_ key: String) -> Int {
            Domain.integer(values[key]!)!
        }

        /// `--param` as a number (every benchmark but countdown has an int domain).
        var n: Int {
            Domain.integer(param)!
        }
    }

    /// Checks the command line against the table, generically: benchmark, model,
    /// option keys, shape and option values, then `--param`; and last the rules the
    /// domains cannot express.
    static func check(_ args: Arguments) throws(UsageError) -> Checked {
        let name = args.benchmark
        guard let benchmark = benchmarks.first(where: { $0.name == name }) else {
            throw UsageError(
                "unknown benchmark '\(name)' (known: \(benchmarks.map(\.name).joined(separator: ", ")))")
        }
        guard let model = benchmark.models.first(where: { $0.name == args.model }) else {
            throw UsageError(
                "unknown model '\(args.model)' for \(name) "
                    + "(known: \(benchmark.models.map(\.name).joined(separator: ", ")))")
        }
        let variant = "\(name)/\(model.name)"
        var shape = model.shapes.first ?? ""
        var values: [String: String] = [:]
        for option in model.options {
            values[option.key] = option.defaultValue == OptionSpec.param ? args.param : option.defaultValue
        }
        for (key, value) in args.options {
            if key == "shape" && !model.shapes.isEmpty {
                guard model.shapes.contains(value) else {
                    throw UsageError(
                        "unknown shape '\(value)' for \(variant) (known: \(model.shapes.joined(separator: ", ")))")
                }
                shape = value
                continue
            }
            guard let option = model.options.first(where: { $0.key == key }) else {
                let known = (model.shapes.isEmpty ? [] : ["shape"]) + model.options.map(\.key)
                throw UsageError(
                    "unknown option '\(key)' for \(variant) (known: \(known.joined(separator: ", ")))")
            }
            guard option.domain.accepts(value) else {
                throw UsageError(
                    "bad value '\(value)' for option \(key) of \(variant) (expected \(option.domain.expectation))")
            }
            values[key] = value
        }
        guard benchmark.param.accepts(args.param) else {
            throw UsageError(
                "bad value '\(args.param)' for --param of \(name) (expected \(benchmark.param.expectation))")
        }
        let checked = Checked(
            benchmark: name, model: model.name, shape: shape, param: args.param, workers: args.workers,
            values: values)
        try crossCheck(checked)
        return checked
    }

    /// The rules a single domain cannot express.
    private static func crossCheck(_ c: Checked) throws(UsageError) {
        switch c.benchmark {
        case "chameneos" where c.value("variant") == Chameneos.Variant.encore.rawValue && c.n < 2:
            throw UsageError("bad value '\(c.param)' for --param of chameneos (variant encore needs >= 2 creatures)")
        case "countdown":
            // The pattern admits the syntax; the 32-bit bound over all the numbers is parse's.
            do {
                _ = try Countdown.Instance.parse(c.param)
            } catch {
                throw UsageError("bad value '\(c.param)' for --param of countdown: \(error.message)")
            }
        default:
            break
        }
    }

    /// `ownsProcess`: the plan is all this process runs (the binary's), so a Separate runtime may
    /// make its pool the process's global executor.
    static func plan(for args: Arguments, ownsProcess: Bool = false) throws(UsageError) -> Plan {
        makePlan(try check(args), ownsProcess: ownsProcess)
    }

    /// The checked request, turned into kernels. Only table entries reach this
    /// point; the tests build a plan for every one of them.
    static func makePlan(_ c: Checked, ownsProcess: Bool = false) -> Plan {
        let pool = c.value("driver") == "pool"
        switch (c.benchmark, c.model, c.shape) {
        case ("spawn-waiting", "gcd", "sync"):
            let (n, wait) = (c.n, c.int("wait_ms"))
            return .blocking(
                onPool: pool, kernel: { _ in SpawnWaiting.gcdSync(tasks: n, waitMs: wait) }, spawns: nil)
        case ("spawn-waiting", "gcd", "async-wait"):
            let (n, wait) = (c.n, c.int("wait_ms"))
            return .blocking(
                onPool: pool, kernel: { _ in SpawnWaiting.gcdAsyncWait(tasks: n, waitMs: wait) }, spawns: nil)
        case ("spawn-waiting", "sc", "task"):
            let (n, wait) = (c.n, c.int("wait_ms"))
            return .suspending(
                kernel: { _ in try await SpawnWaiting.scTask(tasks: n, waitMs: wait) }, spawns: nil)
        case ("spawn-waiting", "seq", "inline"):
            let (n, wait) = (c.n, c.int("wait_ms"))
            return .blocking(
                onPool: false, kernel: { _ in SpawnWaiting.seqInline(tasks: n, waitMs: wait) }, spawns: nil)

        case ("spawn-waiting-group", "gcd", "group"):
            let (n, wait) = (c.n, c.int("wait_ms"))
            return .blocking(
                onPool: pool, kernel: { _ in SpawnWaitingGroup.gcdGroup(tasks: n, waitMs: wait) }, spawns: nil)
        case ("spawn-waiting-group", "sc", "group"):
            let (n, wait) = (c.n, c.int("wait_ms"))
            return .suspending(
                kernel: { _ in await SpawnWaitingGroup.scGroup(tasks: n, waitMs: wait) }, spawns: nil)

        case ("spawn-actors", "gcd", "serial-queue"):
            let n = c.n
            return .blocking(onPool: pool, kernel: { _ in SpawnActors.gcdSerialQueue(actors: n) }, spawns: nil)
        case ("spawn-actors", "sc", "actor"):
            let n = c.n
            return .suspending(kernel: { _ in await SpawnActors.scActor(actors: n) }, spawns: nil)

        case ("fib", "gcd", _):
            let shape = Fib.GCDShape(rawValue: c.shape)!
            let (n, cutoff) = (c.n, c.int("cutoff"))
            return .blocking(
                onPool: pool, kernel: { _ in Fib.gcd(shape, n: n, cutoff: cutoff) },
                spawns: countingSpawns(c) ? count { Fib.gcdSpawnCount(shape, n: n, cutoff: cutoff) } : nil)
        case ("fib", "sc", "asynclet"):
            let (n, cutoff, times) = (c.n, c.int("cutoff"), c.int("repeat"))
            return .suspending(
                kernel: { _ in await Fib.sc(n: n, cutoff: cutoff, repeating: times) },
                spawns: countingSpawns(c) ? asyncCount { await Fib.scSpawnCount(n: n, cutoff: cutoff) } : nil)
        case ("fib", "seq", "plain"):
            // seq/plain creates no work at all, so its honest count is 0.
            let (n, times) = (c.n, c.int("repeat"))
            return .blocking(
                onPool: false, kernel: { _ in Fib.seqPlain(n: n, repeating: times) },
                spawns: countingSpawns(c) ? count { 0 } : nil)

        case ("nqueens", "gcd", "group-wait"):
            let n = c.n
            return .blocking(
                onPool: pool, kernel: { _ in NQueens.gcd(n: n) },
                spawns: countingSpawns(c) ? count { NQueens.gcdSpawnCount(n: n) } : nil)
        case ("nqueens", "sc", "group"):
            let n = c.n
            return .suspending(
                kernel: { _ in await NQueens.sc(n: n) },
                spawns: countingSpawns(c) ? asyncCount { await NQueens.scSpawnCount(n: n) } : nil)
        case ("nqueens", "seq", "plain"):
            let n = c.n
            return .blocking(
                onPool: false, kernel: { _ in NQueens.seqPlain(n: n) }, spawns: countingSpawns(c) ? count { 0 } : nil)

        case ("matmul", "gcd", "serial-queue"):
            let n = c.n
            return .blocking(onPool: pool, kernel: { t in Matmul.gcd(n: n, iteration: t) }, spawns: nil)
        case ("matmul", "sc", "actor"):
            let n = c.n
            return .suspending(kernel: { t in await Matmul.sc(n: n, iteration: t) }, spawns: nil)
        case ("matmul", "seq", "loops"):
            let n = c.n
            return .blocking(onPool: false, kernel: { t in Matmul.seq(n: n, iteration: t) }, spawns: nil)

        case ("spawn-scaling", "sc", _):
            let shape = SpawnScaling.SCShape(rawValue: c.shape)!
            let n = c.n
            return .suspending(kernel: { _ in await SpawnScaling.sc(shape, tasks: n) }, spawns: nil)
        case ("spawn-scaling", "gcd", "group"):
            let n = c.n
            return .blocking(onPool: pool, kernel: { _ in SpawnScaling.gcdGroup(tasks: n) }, spawns: nil)
        case ("spawn-scaling", "seq", "loop"):
            let n = c.n
            return .blocking(onPool: false, kernel: { _ in SpawnScaling.seqLoop(tasks: n) }, spawns: nil)

        case ("countdown", "sc", _):
            let shape = Countdown.SCShape(rawValue: c.shape)!
            // The cross-check has parsed it once already.
            let instance = try! Countdown.Instance.parse(c.param)
            let window = c.value("window").map { Domain.integer($0)! } ?? c.workers ?? availableCores()
            return .suspending(
                kernel: { _ in await Countdown.sc(shape, instance, window: window) }, spawns: nil)
        case ("countdown", "seq", "plain"):
            let instance = try! Countdown.Instance.parse(c.param)
            return .blocking(onPool: false, kernel: { _ in Countdown.seqPlain(instance) }, spawns: nil)

        case ("big", "sc", _):
            let shape = Big.SCShape(rawValue: c.shape)!
            let config = Big.Config(workers: c.n, pings: c.int("pings"), hood: c.int("hood"))
            return .suspending(kernel: { _ in await Big.sc(shape, config) }, spawns: nil)
        case ("big", "gcd", _):
            let shape = Big.GCDShape(rawValue: c.shape)!
            let config = Big.Config(workers: c.n, pings: c.int("pings"), hood: c.int("hood"))
            return .blocking(onPool: pool, kernel: { _ in Big.gcd(shape, config) }, spawns: nil)

        case ("chameneos", "sc", _):
            let shape = Chameneos.SCShape(rawValue: c.shape)!
            let config = chameneosConfig(c)
            return .suspending(kernel: { _ in await Chameneos.sc(shape, config) }, spawns: nil)
        case ("chameneos", "qs", _):
            let (runtime, config) = (separateRuntime(c, global: ownsProcess), chameneosConfig(c))
            return .suspending(kernel: { _ in await Chameneos.qs(runtime, config) }, spawns: nil)
        case ("chameneos", "gcd", _):
            let shape = Chameneos.GCDShape(rawValue: c.shape)!
            let config = chameneosConfig(c)
            return .blocking(onPool: pool, kernel: { _ in Chameneos.gcd(shape, config) }, spawns: nil)

        case ("fannkuch", "sc", "task-group"):
            let split = Fannkuch.Split(n: c.n, chunks: c.int("chunks"))
            return .suspending(kernel: { _ in await Fannkuch.scTaskGroup(split) }, spawns: nil)
        case ("fannkuch", "gcd", _):
            let shape = Fannkuch.GCDShape(rawValue: c.shape)!
            let split = Fannkuch.Split(n: c.n, chunks: c.int("chunks"))
            return .blocking(onPool: pool, kernel: { _ in Fannkuch.gcd(shape, split) }, spawns: nil)
        case ("fannkuch", "seq", "plain"):
            let split = Fannkuch.Split(n: c.n, chunks: c.int("chunks"))
            return .blocking(onPool: false, kernel: { _ in Fannkuch.seqPlain(split) }, spawns: nil)

        case ("mutex", "sc", "actor"):
            let (n, m) = (c.int("n"), c.n)
            return .suspending(kernel: { _ in await Coordination.mutexSC(n: n, m: m) }, spawns: nil)
        case ("mutex", "gcd", _):
            let shape = Coordination.MutexGCDShape(rawValue: c.shape)!
            let (n, m) = (c.int("n"), c.n)
            return .blocking(onPool: pool, kernel: { _ in Coordination.mutexGCD(shape, n: n, m: m) }, spawns: nil)
        case ("prodcons", "sc", _):
            let shape = Coordination.ProdConsSCShape(rawValue: c.shape)!
            let (n, m) = (c.int("n"), c.n)
            return .suspending(kernel: { _ in await Coordination.prodconsSC(shape, n: n, m: m) }, spawns: nil)
        case ("prodcons", "gcd", _):
            let shape = Coordination.ProdConsGCDShape(rawValue: c.shape)!
            let (n, m) = (c.int("n"), c.n)
            return .blocking(
                onPool: pool, kernel: { _ in Coordination.prodconsGCD(shape, n: n, m: m) }, spawns: nil)
        case ("condition", "sc", "actor"):
            let (n, m) = (c.int("n"), c.n)
            return .suspending(kernel: { _ in await Coordination.conditionSC(n: n, m: m) }, spawns: nil)
        case ("condition", "gcd", _):
            let shape = Coordination.ConditionGCDShape(rawValue: c.shape)!
            let (n, m) = (c.int("n"), c.n)
            return .blocking(
                onPool: pool, kernel: { _ in Coordination.conditionGCD(shape, n: n, m: m) }, spawns: nil)
        case ("threadring", "sc", _):
            let shape = Threadring.SCShape(rawValue: c.shape)!
            let (tokens, ring) = (c.n, c.int("ring"))
            return .suspending(kernel: { _ in await Threadring.sc(shape, tokens: tokens, ring: ring) }, spawns: nil)
        case ("mutex", "qs", _):
            let (runtime, n, m) = (separateRuntime(c, global: ownsProcess), c.int("n"), c.n)
            return .suspending(kernel: { _ in await Coordination.mutexQS(runtime, n: n, m: m) }, spawns: nil)
        case ("prodcons", "qs", _):
            let (runtime, n, m) = (separateRuntime(c, global: ownsProcess), c.int("n"), c.n)
            return .suspending(kernel: { _ in await Coordination.prodconsQS(runtime, n: n, m: m) }, spawns: nil)
        case ("condition", "qs", _):
            let (runtime, n, m) = (separateRuntime(c, global: ownsProcess), c.int("n"), c.n)
            return .suspending(kernel: { _ in await Coordination.conditionQS(runtime, n: n, m: m) }, spawns: nil)
        case ("threadring", "qs", _):
            let (runtime, tokens, ring) = (separateRuntime(c, global: ownsProcess), c.n, c.int("ring"))
            return .suspending(kernel: { _ in await Threadring.qs(runtime, tokens: tokens, ring: ring) }, spawns: nil)
        case ("philosophers", "sc", "ordered"):
            let (n, m) = (c.int("n"), c.n)
            return .suspending(kernel: { _ in await Philosophers.sc(n: n, m: m) }, spawns: nil)
        case ("philosophers", "qs", _):
            let (runtime, n, m) = (separateRuntime(c, global: ownsProcess), c.int("n"), c.n)
            return .suspending(kernel: { _ in await Philosophers.qs(runtime, n: n, m: m) }, spawns: nil)
        case ("threadring", "gcd", _):
            let shape = Threadring.GCDShape(rawValue: c.shape)!
            let (tokens, ring) = (c.n, c.int("ring"))
            return .blocking(
                onPool: pool, kernel: { _ in Threadring.gcd(shape, tokens: tokens, ring: ring) }, spawns: nil)

        case let (name, model, shape) where Cowichan.Benchmark(rawValue: name) != nil:
            // The stage's input is built here, once, before the first iteration (rule 3).
            let input = Cowichan.prepare(Cowichan.Benchmark(rawValue: name)!, cowichanConfig(c))
            switch (model, shape) {
            case ("sc", "blocks"):
                return .suspending(kernel: { _ in try await Cowichan.sc(input) }, spawns: nil)
            case ("gcd", "blocks"):
                return .blocking(onPool: pool, kernel: { _ in try Cowichan.gcd(input) }, spawns: nil)
            case ("seq", "plain"):
                return .blocking(onPool: false, kernel: { _ in try Cowichan.seq(input) }, spawns: nil)
            case ("qs", "separate"):
                // The pool has a thread per core; --workers sets the worker objects (W), not threads.
                let runtime = Runtime(workers: availableCores(), configuration: configuration(c), global: ownsProcess)
                return .suspending(kernel: { _ in try await Cowichan.qs(runtime, input) }, spawns: nil)
            default:
                preconditionFailure("no kernel for \(name)/\(model) shape \(shape)")
            }

        default:
            // The table above lists a shape this switch does not build: a bug here.
            preconditionFailure("no kernel for \(c.benchmark)/\(c.model) shape \(c.shape)")
        }
    }

    private static func countingSpawns(_ c: Checked) -> Bool {
        c.value("count_spawns") == "1"
    }

    /// The Cowichan options; W is `--workers`, else the cores this process may use.
    static func cowichanConfig(_ c: Checked) -> Cowichan.Config {
        Cowichan.Config(
            n: c.n, percent: c.int("p"), nelts: c.int("nelts"),
            seed: UInt32(c.int("seed")), workers: c.workers ?? availableCores())
    }

    private static func chameneosConfig(_ c: Checked) -> Chameneos.Config {
        Chameneos.Config(
            variant: Chameneos.Variant(rawValue: c.value("variant")!)!, param: c.n, meetings: c.int("meetings"))
    }

    /// One runtime for the whole process: its threads (one per core given, or --workers) start
    /// before the first iteration, like the other models' pools. Where the plan owns the process,
    /// its pool is the process's global executor, so that its tasks resume without looking up an
    /// executor preference (GlobalExecutor.swift).
    static func separateRuntime(_ c: Checked, global: Bool) -> Runtime {
        Runtime(workers: c.workers ?? availableCores(), configuration: configuration(c), global: global)
    }

    static func configuration(_ c: Checked) -> Configuration {
        Configuration(rawValue: c.value("config") ?? "all") ?? .all
    }

    /// The cores this process may run on: the default window when `--workers` is absent.
    /// On Linux Foundation's count ignores the affinity mask (taskset, cgroup cpusets),
    /// and Glibc does not export sched_getaffinity, so read the mask the kernel reports.
    static func availableCores() -> Int {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") })
        {
            let cores = line.dropFirst("Cpus_allowed:".count).reduce(0) { n, c in
                n + (c.hexDigitValue ?? 0).nonzeroBitCount
            }
            if cores > 0 { return cores }
        }
        return ProcessInfo.processInfo.activeProcessorCount
    }

    /// Typed wrappers: they keep the type checker from stumbling over closures in
    /// the conditional expressions above.
    private static func count(_ f: @escaping @Sendable () -> Int) -> (@Sendable () -> Int)? {
        f
    }

    private static func asyncCount(
        _ f: @escaping @Sendable () async -> Int
    ) -> (@Sendable () async -> Int)? {
        f
    }
}
