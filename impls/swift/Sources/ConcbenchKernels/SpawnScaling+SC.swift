extension SpawnScaling {
    /// The shapes the spec defines for the sc model; `loose` and `group` are the blog's.
    public enum SCShape: String, CaseIterable, Sendable {
        case loose
        case group
        case discarding
    }

    public static func sc(_ shape: SCShape, tasks n: Int) async -> Sample {
        switch shape {
        case .loose: await loose(tasks: n)
        case .group: await group(tasks: n)
        case .discarding: await discarding(tasks: n)
        }
    }

    /// sc/loose (faithful, CollectionConcurrencyKit style): one unstructured Task per
    /// element, handles kept in order, awaited in index order. Created from a
    /// nonisolated context, so they run on the global concurrent executor.
    static func loose(tasks n: Int) async -> Sample {
        await Sample.timing({
            let handles = (0..<n).map { i in Task { work(i) } }
            var sum = 0
            for handle in handles {
                sum += await handle.value
            }
            return sum
        }, format: { result(tasks: n, sum: $0) })
    }

    /// sc/group (faithful, the blog's rewrite): N children in one task group, values
    /// consumed in completion order.
    static func group(tasks n: Int) async -> Sample {
        await Sample.timing({
            await withTaskGroup(of: Int.self) { group in
                for i in 0..<n {
                    group.addTask { work(i) }
                }
                var sum = 0
                for await v in group {
                    sum += v
                }
                return sum
            }
        }, format: { result(tasks: n, sum: $0) })
    }

    /// sc/discarding: a discarding group keeps no results, so each child writes its
    /// own slot; the scope's end is the join, and the slots are summed after it.
    static func discarding(tasks n: Int) async -> Sample {
        // Allocated and zeroed before t0, as the spec requires.
        let slots = Slots(count: n)
        return await Sample.timing({
            await withDiscardingTaskGroup { group in
                for i in 0..<n {
                    group.addTask { slots[i] = work(i) }
                }
            }
            return slots.sum()
        }, format: { result(tasks: n, sum: $0) })
    }
}
