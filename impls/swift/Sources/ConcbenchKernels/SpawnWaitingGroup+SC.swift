extension SpawnWaitingGroup {
    /// sc/group (faithful, Listing 3.2): a throwing task group of Void children that
    /// suspend in Task.sleep; the scope's end is the only, implicit, join.
    public static func scGroup(tasks n: Int, waitMs: Int) async -> Sample {
        let nanoseconds = UInt64(waitMs) * 1_000_000
        // Prepared outside the timed region; the scope join orders the slot writes
        // before the summation.
        let slots = Slots(count: n + 1)
        return await Sample.timing({
            // The body never reads the children's results, as in the thesis, so a
            // child's error (only cancellation could raise one) is dropped with them.
            await withThrowingTaskGroup(of: Void.self) { group in
                for i in stride(from: 1, through: n, by: 1) {
                    group.addTask {
                        try await Task.sleep(nanoseconds: nanoseconds)
                        slots[i] = i
                    }
                }
            }
            return slots.sum()
        }, format: { result(tasks: n, sum: $0) })
    }
}
