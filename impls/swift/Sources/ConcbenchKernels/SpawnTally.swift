import Synchronization

/// Counts the tasks or work items a kernel creates, for `--option count_spawns=1`.
/// The timed kernels are specialised with `NoTally`, whose `record` compiles away,
/// so the counting pass runs the very same code without slowing the timed runs.
protocol SpawnTally: Sendable {
    func record(_ spawns: Int)
}

struct NoTally: SpawnTally {
    @inline(__always)
    func record(_ spawns: Int) {}
}

final class CountingTally: SpawnTally {
    private let count = Atomic<Int>(0)

    func record(_ spawns: Int) {
        count.add(spawns, ordering: .relaxed)
    }

    /// Read after the counted run has been joined.
    var total: Int {
        count.load(ordering: .acquiring)
    }
}
