/// A command-line error: one line to stderr and exit status 2.
struct UsageError: Error, Equatable {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}

/// The protocol's command line, parsed but not yet checked against the catalog:
/// `<benchmark> --model <m> --param <v> --iterations <k> [--workers <w>] [--option k=v]...`
struct Arguments {
    var benchmark: String
    var model: String
    /// Checked by the catalog: a number for most benchmarks, an instance name for countdown.
    var param: String
    var iterations: Int
    /// Ignored by the kernels (gcd, sc and seq use the runtimes' own pools), except
    /// as countdown's default `window`.
    var workers: Int?
    /// In command-line order; duplicate keys are rejected.
    var options: [(key: String, value: String)]

    static let usage =
        "usage: concbench-swift describe | concbench-swift <benchmark> --model <model> --param <value> "
        + "--iterations <k> [--workers <w>] [--option key=value]..."

    static func parse(_ argv: [String]) throws(UsageError) -> Arguments {
        guard let benchmark = argv.first, !benchmark.hasPrefix("-") else {
            throw UsageError("missing benchmark; \(usage)")
        }
        var model: String?
        var param: String?
        var iterations: Int?
        var workers: Int?
        var options: [(key: String, value: String)] = []

        var rest = argv.dropFirst()
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else {
                throw UsageError("missing value after \(flag)")
            }
            switch flag {
            case "--model":
                try once(model, flag)
                model = value
            case "--param":
                try once(param, flag)
                param = value
            case "--iterations":
                try once(iterations, flag)
                iterations = try integer(value, for: flag, atLeast: 1)
            case "--workers":
                try once(workers, flag)
                workers = try integer(value, for: flag, atLeast: 1)
            case "--option":
                guard let eq = value.firstIndex(of: "="), eq != value.startIndex else {
                    throw UsageError("malformed option '\(value)' (expected key=value)")
                }
                let key = String(value[..<eq])
                if options.contains(where: { $0.key == key }) {
                    throw UsageError("option '\(key)' given twice")
                }
                options.append((key, String(value[value.index(after: eq)...])))
            default:
                throw UsageError("unknown argument '\(flag)'; \(usage)")
            }
        }
        guard let model else { throw UsageError("missing --model; \(usage)") }
        guard let param else { throw UsageError("missing --param; \(usage)") }
        guard let iterations else { throw UsageError("missing --iterations; \(usage)") }
        return Arguments(
            benchmark: benchmark, model: model, param: param, iterations: iterations,
            workers: workers, options: options)
    }

    private static func once<T>(_ seen: T?, _ flag: String) throws(UsageError) {
        if seen != nil { throw UsageError("\(flag) given twice") }
    }

    /// An integer in `Domain.int(min: minimum)`; anything else is a bad value.
    static func integer(
        _ text: String, for name: String, atLeast minimum: Int
    ) throws(UsageError) -> Int {
        let domain = Domain.int(min: minimum)
        guard domain.accepts(text), let v = Domain.integer(text) else {
            throw UsageError("bad value '\(text)' for \(name) (expected \(domain.expectation))")
        }
        return v
    }
}
