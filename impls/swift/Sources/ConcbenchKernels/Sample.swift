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
}
