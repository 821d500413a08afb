// A lock held for a few instructions at a time: a word taken with an acquiring exchange and given
// back with a releasing store. ThreadSanitizer sees these atomics, where it would not see the raw
// futexes of Synchronization's Mutex.

import Synchronization

@usableFromInline
struct SpinLock: ~Copyable {
    @usableFromInline let held = Atomic<Bool>(false)

    @usableFromInline init() {}

    @inlinable
    func lock() {
        while held.exchange(true, ordering: .acquiring) {
            while held.load(ordering: .relaxed) {}
        }
    }

    @inlinable
    func unlock() { held.store(false, ordering: .releasing) }
}
