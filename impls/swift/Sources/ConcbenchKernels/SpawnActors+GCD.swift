import Dispatch

/// The pre-Swift-concurrency "actor" of Listing 3.3: a class whose state is guarded
/// by its own private serial queue, created with every instance.
final class GCDActor {
    private var counter = 0
    private let counterQueue = DispatchQueue(label: "GCDActor")

    /// A synchronous dispatch onto the private queue; libdispatch may run it on the
    /// caller's thread, which the spec keeps.
    func inc() -> Int {
        var value = 0
        counterQueue.sync {
            counter += 1
            value = counter
        }
        return value
    }
}

extension SpawnActors {
    /// gcd/serial-queue (faithful): a new GCDActor, and so a new queue, per i.
    public static func gcdSerialQueue(actors n: Int) -> Sample {
        Sample.timing({
            var total = 0
            for _ in stride(from: 1, through: n, by: 1) {
                total += GCDActor().inc()
            }
            return total
        }, format: { result(actors: n, total: $0) })
    }
}
