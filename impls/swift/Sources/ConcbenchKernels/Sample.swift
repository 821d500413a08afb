import Synchronization

/// One named figure for the protocol's `metrics` line, e.g. countdown's `batches` or
/// chameneos' `fairness_std` (the only kind that needs a fraction).
public struct Metric: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case integer(Int)
        case real(Double)
    }

    public let name: String
    public let value: Value

    public init(_ name: String, _ value: Int) {
        self.name = name
        self.value = .integer(value)
    }

    /// `value` must be finite: JSON has no form for inf or nan.
    public init(_ name: String, _ value: Double) {
        precondition(value.isFinite, "metric \(name) is not finite")
        self.name = name
        self.value = .real(value)
    }
}

/// One timed iteration: the kernel's duration and the spec's exact result string,
/// plus any metrics the kernel counted in this iteration (the driver prints the last
/// iteration's after the loop).
public struct Sample: Sendable, Equatable {
    public let ns: UInt64
    public let result: String
    public let metrics: [Metric]

    public init(ns: UInt64, result: String, metrics: [Metric] = []) {
        self.ns = ns
        self.result = result
        self.metrics = metrics
    }

    /// Times `body` and formats its value outside the timed region.
    @inline(__always)
    static func timing<T>(_ body: () -> T, format: (T) -> String) -> Sample {
        let t0 = monotonicNanos()
        let value = body()
        let t1 = monotonicNanos()
        return Sample(ns: t1 &- t0, result: format(value))
    }

    /// Async counterpart of `timing`, for the sc kernels.
    @inline(__always)
    static func timing<T>(
        _ body: () async throws -> T, format: (T) -> String
    ) async rethrows -> Sample {
        let t0 = monotonicNanos()
        let value = try await body()
        let t1 = monotonicNanos()
        return Sample(ns: t1 &- t0, result: format(value))
    }

    /// `--option repeat=k`: times `count` back-to-back runs of `body` as one iteration and
    /// reports their total divided by `count`, for kernels too short for the clock. The input
    /// is read afresh for every run, so the optimiser cannot run a pure kernel once and reuse
    /// its value. Each value is kept and formatted after the clock stops; the result is the
    /// one string they all gave, or every distinct string joined by `|` (which no reference
    /// matches), so a repetition that went wrong cannot hide behind one that went right.
    static func timing<T>(
        repeating count: Int, input: Int, _ body: (Int) -> T, format: (T) -> String
    ) -> Sample {
        let opaque = OpaqueInput(input)
        var values: [T] = []
        values.reserveCapacity(count)
        let t0 = monotonicNanos()
        for _ in 0..<count {
            values.append(body(opaque.value))
        }
        let t1 = monotonicNanos()
        return Sample(ns: (t1 &- t0) / UInt64(count), result: agreed(values.map(format)))
    }

    /// Async counterpart of `timing(repeating:)`, for the sc kernels.
    static func timing<T>(
        repeating count: Int, input: Int, _ body: (Int) async -> T, format: (T) -> String
    ) async -> Sample {
        let opaque = OpaqueInput(input)
        var values: [T] = []
        values.reserveCapacity(count)
        let t0 = monotonicNanos()
        for _ in 0..<count {
            values.append(await body(opaque.value))
        }
        let t1 = monotonicNanos()
        return Sample(ns: (t1 &- t0) / UInt64(count), result: agreed(values.map(format)))
    }

    private static func agreed(_ results: [String]) -> String {
        var distinct: [String] = []
        for result in results where !distinct.contains(result) {
            distinct.append(result)
        }
        return distinct.joined(separator: "|")
    }
}

/// A kernel's input behind an atomic load: the compiler must read it on every repetition and
/// cannot hoist a pure kernel out of the repetition loop.
private final class OpaqueInput: Sendable {
    private let storage: Atomic<Int>

    init(_ value: Int) {
        storage = Atomic(value)
    }

    var value: Int {
        storage.load(ordering: .relaxed)
    }
}
