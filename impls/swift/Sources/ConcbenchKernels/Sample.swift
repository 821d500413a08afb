/// One timed iteration: the kernel's duration and the spec's exact result string.
public struct Sample: Sendable, Equatable {
    public let ns: UInt64
    public let result: String

    public init(ns: UInt64, result: String) {
        self.ns = ns
        self.result = result
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
