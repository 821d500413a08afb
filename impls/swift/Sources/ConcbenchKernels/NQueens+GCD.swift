import Dispatch

extension NQueens {
    /// gcd/group-wait (faithful, Listing 3.5). Every non-leaf call makes a new group
    /// and a new private serial queue, dispatches one block per valid row, and blocks
    /// its thread in group.wait(). Children add their counts asynchronously on the
    /// serial queue; an empty sync block drains those adds before `res` is read.
    /// Blocking pool threads this way can starve the pool: the thesis's stall.
    static func groupWait<T: SpawnTally>(
        _ n: Int, _ col: Int, _ history: [Int], tally: T
    ) -> Int {
        if col == n { return 1 }
        let group = DispatchGroup()
        // Only touched on resUpdateQueue, and read after the sync drain below.
        let res = HandOff(0)
        let resUpdateQueue = DispatchQueue(label: "resUpdateQueue")
        for row in 0..<n {
            let newHistory = history + [row]
            if valid(n, col, newHistory) {
                tally.record(1)
                DispatchQueue.global().async(group: group) {
                    let numberOfSolutions = groupWait(n, col + 1, newHistory, tally: tally)
                    resUpdateQueue.async {
                        res.value += numberOfSolutions
                    }
                }
            }
        }
        group.wait()
        resUpdateQueue.sync {}
        return res.value
    }

    public static func gcd(n: Int) -> Sample {
        Sample.timing({ groupWait(n, 0, [], tally: NoTally()) }, format: { String($0) })
    }

    /// Untimed counting pass: the blocks one iteration really dispatches.
    public static func gcdSpawnCount(n: Int) -> Int {
        let tally = CountingTally()
        _ = groupWait(n, 0, [], tally: tally)
        return tally.total
    }
}
