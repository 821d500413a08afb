import Dispatch

/// Per-task result slots, each written by exactly one block and read after the join.
final class PartialSlots: @unchecked Sendable {
    private let storage: UnsafeMutableBufferPointer<Fannkuch.Partial>

    init(count: Int) {
        storage = .allocate(capacity: count)
        storage.initialize(repeating: Fannkuch.Partial())
    }

    deinit {
        storage.deallocate()
    }

    subscript(index: Int) -> Fannkuch.Partial {
        get { storage[index] }
        set { storage[index] = newValue }
    }

    /// All slots combined; call only after the join.
    func combined() -> Fannkuch.Partial {
        storage.reduce(into: Fannkuch.Partial()) { $0.combine($1) }
    }
}

extension Fannkuch {
    /// The gcd shapes; `concurrent-perform` is the spec's GCD counterpart.
    public enum GCDShape: String, CaseIterable, Sendable {
        case concurrentPerform = "concurrent-perform"
        case group
    }

    public static func gcd(_ shape: GCDShape, _ split: Split) -> Sample {
        // Allocated before t0, like spawn-scaling's slots: creating the workers is
        // timed, the result array is not work.
        let slots = PartialSlots(count: split.tasks)
        return Sample.timing({
            switch shape {
            case .concurrentPerform:
                // dispatch_apply: blocks over the pool, the caller joining in.
                DispatchQueue.concurrentPerform(iterations: split.tasks) { t in
                    slots[t] = task(t, of: split)
                }
            case .group:
                // One async block per chunk on the global queue, one group wait.
                let group = DispatchGroup()
                for t in 0..<split.tasks {
                    DispatchQueue.global().async(group: group) {
                        slots[t] = task(t, of: split)
                    }
                }
                group.wait()
            }
            return slots.combined()
        }, format: result)
    }
}
