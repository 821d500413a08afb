/// Mutable state shared with dispatched blocks or child tasks. Swift 6 cannot prove
/// these safe, so each use site names what orders the accesses (a semaphore, a group
/// join, a serial queue); the types themselves add no synchronisation of their own.

/// One value handed from a block back to the waiting thread.
final class HandOff<T>: @unchecked Sendable {
    var value: T

    init(_ value: T) {
        self.value = value
    }
}

/// N independent slots, each written by exactly one task and read after a join.
final class Slots: @unchecked Sendable {
    private let storage: UnsafeMutableBufferPointer<Int>

    init(count: Int) {
        storage = .allocate(capacity: count)
        storage.initialize(repeating: 0)
    }

    deinit {
        storage.deallocate()
    }

    subscript(index: Int) -> Int {
        get { storage[index] }
        set { storage[index] = newValue }
    }

    /// Sum of all slots; call only after the join.
    func sum() -> Int {
        storage.reduce(0, +)
    }
}
