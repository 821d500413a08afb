import Dispatch

extension SpawnScaling {
    /// gcd/group: N asynchronous dispatches to the default global queue in one group,
    /// each writing its own slot; one group wait, then the sum.
    public static func gcdGroup(tasks n: Int) -> Sample {
        // Allocated and zeroed before t0; the group wait orders the slot writes
        // before the summation.
        let slots = Slots(count: n)
        return Sample.timing({
            let group = DispatchGroup()
            for i in 0..<n {
                DispatchQueue.global().async(group: group) {
                    slots[i] = work(i)
                }
            }
            group.wait()
            return slots.sum()
        }, format: { result(tasks: n, sum: $0) })
    }
}
