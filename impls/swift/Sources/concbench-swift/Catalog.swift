import ConcbenchKernels
import Foundation

/// Which benchmarks, models, shapes and options this implementation serves, and how
/// a checked command line becomes a Plan. The first shape of a model is its default.
enum Catalog {
    struct Entry {
        let models: KeyValuePairs<String, [String]>
        /// Option keys this benchmark takes besides `shape` (and gcd's `driver`).
        let optionKeys: [String]
        /// The smallest `--param` that makes sense.
        let minParam: Int
        var maxParam: Int = .max
        /// `--param` names an instance (countdown) instead of giving a number.
        var instanceParam = false
    }

    static let benchmarks: KeyValuePairs<String, Entry> = [
        "spawn-waiting": Entry(
            models: ["gcd": ["sync", "async-wait"], "sc": ["task"], "seq": ["inline"]],
            optionKeys: ["wait_ms"], minParam: 0),
        "spawn-waiting-group": Entry(
            models: ["gcd": ["group"], "sc": ["group"]],
            optionKeys: ["wait_ms"], minParam: 0),
        "spawn-actors": Entry(
            models: ["gcd": ["serial-queue"], "sc": ["actor"]],
            optionKeys: [], minParam: 0),
        "fib": Entry(
            models: ["gcd": ["cps", "parallel"], "sc": ["asynclet"], "seq": ["plain"]],
            // fib(92) is the largest that fits in 64 bits.
            optionKeys: ["cutoff", "count_spawns"], minParam: 0, maxParam: 92),
        "nqueens": Entry(
            models: ["gcd": ["group-wait"], "sc": ["group"], "seq": ["plain"]],
            optionKeys: ["count_spawns"], minParam: 0),
        "matmul": Entry(
            models: ["gcd": ["serial-queue"], "sc": ["actor"], "seq": ["loops"]],
            optionKeys: [], minParam: 1),
        "spawn-scaling": Entry(
            models: [
                "gcd": ["group"], "sc": SpawnScaling.SCShape.allCases.map(\.rawValue), "seq": ["loop"],
            ],
            optionKeys: [], minParam: 0),
        // seq takes `window` too (and ignores it): the size sets sweep it for every variant.
        "countdown": Entry(
            models: ["sc": Countdown.SCShape.allCases.map(\.rawValue), "seq": ["plain"]],
            optionKeys: ["window"], minParam: 0, instanceParam: true),
        // Workers are numbered with 32-bit seeds and neighbourhood sizes.
        "big": Entry(
            models: [
                "gcd": Big.GCDShape.allCases.map(\.rawValue), "sc": Big.SCShape.allCases.map(\.rawValue),
            ],
            optionKeys: ["pings", "hood"], minParam: 1, maxParam: Int(UInt32.max)),
        // C >= 2 (encore) is checked with the variant; redux's --param is n >= 0.
        "chameneos": Entry(
            models: [
                "gcd": Chameneos.GCDShape.allCases.map(\.rawValue),
                "sc": Chameneos.SCShape.allCases.map(\.rawValue),
            ],
            optionKeys: ["variant", "meetings"], minParam: 0),
        "fannkuch": Entry(
            models: [
                "gcd": Fannkuch.GCDShape.allCases.map(\.rawValue), "sc": ["task-group"], "seq": ["plain"],
            ],
            optionKeys: ["chunks"], minParam: 1, maxParam: Fannkuch.maxN),
    ]

    /// The options after checking, with the specs' defaults filled in.
    struct Settings {
        var shape: String
        var onPool = false
        var waitMs = 100
        var cutoff = 0
        var countSpawns = false
        /// countdown: the cap on outstanding batches (default: `--workers`, else the cores).
        var window: Int
        /// countdown: the instance `--param` names.
        var instance: Countdown.Instance?
        /// big: P and H.
        var pings = 16_000
        var hood = 1000
        /// chameneos: the variant and encore's M (the thesis's 8 000 000 by default).
        var variant = Chameneos.Variant.encore
        var meetings = 8_000_000
        /// fannkuch: K, the requested chunk count.
        var chunks = 150
    }

    static func plan(for args: Arguments) throws(UsageError) -> Plan {
        let (n, settings) = try checked(args)
        return makePlan(args.benchmark, model: args.model, param: n, settings)
    }

    /// The command line checked against the catalog: the numeric `--param` (0 for
    /// countdown, whose instance goes into the settings) and the options.
    static func checked(_ args: Arguments) throws(UsageError) -> (param: Int, settings: Settings) {
        let name = args.benchmark
        guard let entry = benchmarks.first(where: { $0.key == name })?.value else {
            throw UsageError(
                "unknown benchmark '\(name)' (known: \(benchmarks.map(\.key).joined(separator: ", ")))")
        }
        guard let shapes = entry.models.first(where: { $0.key == args.model })?.value else {
            throw UsageError(
                "unknown model '\(args.model)' for \(name) "
                    + "(known: \(entry.models.map(\.key).joined(separator: ", ")))")
        }
        let variant = "\(name)/\(args.model)"
        var n = 0
        var instance: Countdown.Instance?
        if entry.instanceParam {
            do {
                instance = try Countdown.Instance.parse(args.param)
            } catch {
                throw UsageError("bad value '\(args.param)' for --param of \(name): \(error.message)")
            }
        } else {
            let range = entry.maxParam == .max
                ? ">= \(entry.minParam)" : "in \(entry.minParam)...\(entry.maxParam)"
            let bad = UsageError("bad value '\(args.param)' for --param of \(name) (expected \(range))")
            guard let value = try? Arguments.integer(args.param, for: "--param", atLeast: entry.minParam),
                value <= entry.maxParam
            else { throw bad }
            n = value
        }
        var settings = try settings(
            args.options, variant: variant, shapes: shapes,
            keys: ["shape"] + (args.model == "gcd" ? ["driver"] : []) + entry.optionKeys,
            defaultWindow: args.workers ?? availableCores())
        settings.instance = instance
        if name == "chameneos" && settings.variant == .encore && n < 2 {
            throw UsageError("bad value '\(args.param)' for --param of chameneos (expected >= 2 creatures)")
        }
        return (n, settings)
    }

    private static func settings(
        _ options: [(key: String, value: String)], variant: String, shapes: [String],
        keys: [String], defaultWindow: Int
    ) throws(UsageError) -> Settings {
        var s = Settings(shape: shapes[0], window: defaultWindow)
        for (key, value) in options {
            guard keys.contains(key) else {
                throw UsageError(
                    "unknown option '\(key)' for \(variant) (known: \(keys.joined(separator: ", ")))")
            }
            switch key {
            case "shape":
                guard shapes.contains(value) else {
                    throw UsageError(
                        "unknown shape '\(value)' for \(variant) "
                            + "(known: \(shapes.joined(separator: ", ")))")
                }
                s.shape = value
            case "driver":
                guard value == "main" || value == "pool" else {
                    throw UsageError("bad value '\(value)' for option driver (expected main or pool)")
                }
                s.onPool = value == "pool"
            case "wait_ms":
                s.waitMs = try Arguments.integer(value, for: "option wait_ms", atLeast: 0)
                // An hour per task is already absurd; the bound keeps ns arithmetic safe.
                if s.waitMs > 3_600_000 {
                    throw UsageError("bad value '\(value)' for option wait_ms (expected <= 3600000)")
                }
            case "cutoff":
                s.cutoff = try Arguments.integer(value, for: "option cutoff", atLeast: 0)
            case "count_spawns":
                guard value == "0" || value == "1" else {
                    throw UsageError("bad value '\(value)' for option count_spawns (expected 0 or 1)")
                }
                s.countSpawns = value == "1"
            case "window":
                s.window = try Arguments.integer(value, for: "option window", atLeast: 1)
            case "pings":
                s.pings = try Arguments.integer(value, for: "option pings", atLeast: 0)
            case "hood":
                s.hood = try Arguments.integer(value, for: "option hood", atLeast: 1)
                if s.hood > Int(UInt32.max) {
                    throw UsageError("bad value '\(value)' for option hood (expected <= \(UInt32.max))")
                }
            case "variant":
                guard let variant = Chameneos.Variant(rawValue: value) else {
                    throw UsageError("bad value '\(value)' for option variant (expected encore or redux)")
                }
                s.variant = variant
            case "meetings":
                // Accepted with redux too (a size set may pass it), and ignored there.
                s.meetings = try Arguments.integer(value, for: "option meetings", atLeast: 0)
            case "chunks":
                s.chunks = try Arguments.integer(value, for: "option chunks", atLeast: 1)
            default:
                break
            }
        }
        return s
    }

    /// The checked request, turned into kernels. Only catalog entries reach this
    /// point; the tests build a plan for every one of them.
    static func makePlan(
        _ benchmark: String, model: String, param n: Int, _ s: Settings
    ) -> Plan {
        let pool = s.onPool
        let wait = s.waitMs
        switch (benchmark, model, s.shape) {
        case ("spawn-waiting", "gcd", "sync"):
            return .blocking(
                onPool: pool, kernel: { _ in SpawnWaiting.gcdSync(tasks: n, waitMs: wait) },
                spawns: nil)
        case ("spawn-waiting", "gcd", "async-wait"):
            return .blocking(
                onPool: pool, kernel: { _ in SpawnWaiting.gcdAsyncWait(tasks: n, waitMs: wait) },
                spawns: nil)
        case ("spawn-waiting", "sc", "task"):
            return .suspending(
                kernel: { _ in try await SpawnWaiting.scTask(tasks: n, waitMs: wait) }, spawns: nil)
        case ("spawn-waiting", "seq", "inline"):
            return .blocking(
                onPool: false, kernel: { _ in SpawnWaiting.seqInline(tasks: n, waitMs: wait) },
                spawns: nil)

        case ("spawn-waiting-group", "gcd", "group"):
            return .blocking(
                onPool: pool, kernel: { _ in SpawnWaitingGroup.gcdGroup(tasks: n, waitMs: wait) },
                spawns: nil)
        case ("spawn-waiting-group", "sc", "group"):
            return .suspending(
                kernel: { _ in await SpawnWaitingGroup.scGroup(tasks: n, waitMs: wait) },
                spawns: nil)

        case ("spawn-actors", "gcd", "serial-queue"):
            return .blocking(
                onPool: pool, kernel: { _ in SpawnActors.gcdSerialQueue(actors: n) }, spawns: nil)
        case ("spawn-actors", "sc", "actor"):
            return .suspending(kernel: { _ in await SpawnActors.scActor(actors: n) }, spawns: nil)

        case ("fib", "gcd", "cps"), ("fib", "gcd", "parallel"):
            let shape: Fib.GCDShape = s.shape == "parallel" ? .parallel : .cps
            let cutoff = s.cutoff
            return .blocking(
                onPool: pool, kernel: { _ in Fib.gcd(shape, n: n, cutoff: cutoff) },
                spawns: s.countSpawns ? count { Fib.gcdSpawnCount(shape, n: n, cutoff: cutoff) } : nil)
        case ("fib", "sc", "asynclet"):
            let cutoff = s.cutoff
            return .suspending(
                kernel: { _ in await Fib.sc(n: n, cutoff: cutoff) },
                spawns: s.countSpawns ? asyncCount { await Fib.scSpawnCount(n: n, cutoff: cutoff) } : nil)
        case ("fib", "seq", "plain"):
            // seq/plain creates no work at all, so its honest count is 0.
            return .blocking(
                onPool: false, kernel: { _ in Fib.seqPlain(n: n) },
                spawns: s.countSpawns ? count { 0 } : nil)

        case ("nqueens", "gcd", "group-wait"):
            return .blocking(
                onPool: pool, kernel: { _ in NQueens.gcd(n: n) },
                spawns: s.countSpawns ? count { NQueens.gcdSpawnCount(n: n) } : nil)
        case ("nqueens", "sc", "group"):
            return .suspending(
                kernel: { _ in await NQueens.sc(n: n) },
                spawns: s.countSpawns ? asyncCount { await NQueens.scSpawnCount(n: n) } : nil)
        case ("nqueens", "seq", "plain"):
            return .blocking(
                onPool: false, kernel: { _ in NQueens.seqPlain(n: n) },
                spawns: s.countSpawns ? count { 0 } : nil)

        case ("matmul", "gcd", "serial-queue"):
            return .blocking(
                onPool: pool, kernel: { t in Matmul.gcd(n: n, iteration: t) }, spawns: nil)
        case ("matmul", "sc", "actor"):
            return .suspending(kernel: { t in await Matmul.sc(n: n, iteration: t) }, spawns: nil)
        case ("matmul", "seq", "loops"):
            return .blocking(
                onPool: false, kernel: { t in Matmul.seq(n: n, iteration: t) }, spawns: nil)

        case ("spawn-scaling", "sc", _):
            // The catalog lists exactly SCShape's raw values.
            let shape = SpawnScaling.SCShape(rawValue: s.shape)!
            return .suspending(kernel: { _ in await SpawnScaling.sc(shape, tasks: n) }, spawns: nil)
        case ("spawn-scaling", "gcd", "group"):
            return .blocking(
                onPool: pool, kernel: { _ in SpawnScaling.gcdGroup(tasks: n) }, spawns: nil)
        case ("spawn-scaling", "seq", "loop"):
            return .blocking(onPool: false, kernel: { _ in SpawnScaling.seqLoop(tasks: n) }, spawns: nil)

        case ("countdown", "sc", _):
            let shape = Countdown.SCShape(rawValue: s.shape)!
            let instance = s.instance!
            let window = s.window
            return .suspending(
                kernel: { _ in await Countdown.sc(shape, instance, window: window) }, spawns: nil)
        case ("countdown", "seq", "plain"):
            let instance = s.instance!
            return .blocking(onPool: false, kernel: { _ in Countdown.seqPlain(instance) }, spawns: nil)
        case ("big", "sc", _):
            let shape = Big.SCShape(rawValue: s.shape)!
            let config = Big.Config(workers: n, pings: s.pings, hood: s.hood)
            return .suspending(kernel: { _ in await Big.sc(shape, config) }, spawns: nil)
        case ("big", "gcd", _):
            let shape = Big.GCDShape(rawValue: s.shape)!
            let config = Big.Config(workers: n, pings: s.pings, hood: s.hood)
            return .blocking(onPool: pool, kernel: { _ in Big.gcd(shape, config) }, spawns: nil)

        case ("chameneos", "sc", _):
            let shape = Chameneos.SCShape(rawValue: s.shape)!
            let config = Chameneos.Config(variant: s.variant, param: n, meetings: s.meetings)
            return .suspending(kernel: { _ in await Chameneos.sc(shape, config) }, spawns: nil)
        case ("chameneos", "gcd", _):
            let shape = Chameneos.GCDShape(rawValue: s.shape)!
            let config = Chameneos.Config(variant: s.variant, param: n, meetings: s.meetings)
            return .blocking(onPool: pool, kernel: { _ in Chameneos.gcd(shape, config) }, spawns: nil)

        case ("fannkuch", "sc", "task-group"):
            let split = Fannkuch.Split(n: n, chunks: s.chunks)
            return .suspending(kernel: { _ in await Fannkuch.scTaskGroup(split) }, spawns: nil)
        case ("fannkuch", "gcd", _):
            let shape = Fannkuch.GCDShape(rawValue: s.shape)!
            let split = Fannkuch.Split(n: n, chunks: s.chunks)
            return .blocking(onPool: pool, kernel: { _ in Fannkuch.gcd(shape, split) }, spawns: nil)
        case ("fannkuch", "seq", "plain"):
            let split = Fannkuch.Split(n: n, chunks: s.chunks)
            return .blocking(onPool: false, kernel: { _ in Fannkuch.seqPlain(split) }, spawns: nil)

        default:
            // The catalog above lists a shape this switch does not build: a bug here.
            preconditionFailure("no kernel for \(benchmark)/\(model) shape \(s.shape)")
        }
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
