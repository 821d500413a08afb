#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic time in nanoseconds. The protocol requires a monotonic clock read
/// inside the process; CLOCK_MONOTONIC is what the other implementations use too.
@inline(__always)
public func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}
