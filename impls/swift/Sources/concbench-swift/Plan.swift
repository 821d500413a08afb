import ConcbenchKernels

/// What to run and in which driver context. The model fixes the context: gcd runs
/// its loop on the main thread or (driver=pool) inside one global-queue block; sc
/// runs it inside one unstructured Task; seq on the main thread.
enum Plan {
    /// gcd and seq: a synchronous kernel per iteration index; one that throws ends the
    /// run (exit status 1), as a failed Cowichan winnow does.
    case blocking(
        onPool: Bool,
        kernel: @Sendable (Int) throws -> Sample,
        spawns: (@Sendable () -> Int)?)
    /// sc: an async kernel per iteration index.
    case suspending(
        kernel: @Sendable (Int) async throws -> Sample,
        spawns: (@Sendable () async -> Int)?)
}
