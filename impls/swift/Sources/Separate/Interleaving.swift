// Debug builds only: a pause the tests can switch on at the moments just after one thread has made
// a request visible to another (a sync logged, a reservation linked, a handler parked). There the
// other side may run on, finish, and free what it owns; the pause lets it, so that a touch of freed
// memory after such a moment shows up in every run rather than once in many. Release builds
// compile it to nothing.

import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

@usableFromInline
enum Interleaving {
    /// The moments, as bits of `pausing`.
    @usableFromInline enum Moment: UInt32 {
        case syncLogged = 1, reservationLinked = 2, parkedInBlock = 4, parkedBetweenBlocks = 8
    }

    /// The moments to pause at (every other time, for 200 µs); none by default. One at a time, and
    /// every other time: where the other side paused at the same kind of moment before it got to
    /// free anything, this side would find nothing freed.
    @usableFromInline static let pausing = Atomic<UInt32>(0)
    @usableFromInline static let count = Atomic<UInt>(0)

    @inlinable @inline(__always)
    static func yieldToOthers(at moment: Moment) {
        #if DEBUG
        if pausing.load(ordering: .relaxed) & moment.rawValue != 0,
           count.wrappingAdd(1, ordering: .relaxed).oldValue & 1 == 0 {
            usleep(200)
        }
        #endif
    }
}
