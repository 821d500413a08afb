extension NQueens {
    /// sc/group (faithful, Listing 3.6): a task group per non-leaf call, one addTask
    /// per valid row, results summed with reduce; waiting suspends, never blocks.
    static func group<T: SpawnTally>(
        _ n: Int, _ col: Int, _ history: [Int], tally: T
    ) async -> Int {
        if col == n { return 1 }
        return await withTaskGroup(of: Int.self) { group in
            for row in 0..<n {
                let newHistory = history + [row]
                if valid(n, col, newHistory) {
                    tally.record(1)
                    group.addTask {
                        await NQueens.group(n, col + 1, newHistory, tally: tally)
                    }
                }
            }
            return await group.reduce(0, +)
        }
    }

    public static func sc(n: Int) async -> Sample {
        await Sample.timing({
            await group(n, 0, [], tally: NoTally())
        }, format: { String($0) })
    }

    /// Untimed counting pass: the child tasks one iteration really creates.
    public static func scSpawnCount(n: Int) async -> Int {
        let tally = CountingTally()
        _ = await group(n, 0, [], tally: tally)
        return tally.total
    }
}
