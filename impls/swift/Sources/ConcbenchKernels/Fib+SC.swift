extension Fib {
    /// sc/asynclet (faithful, Listing 3.4): two `async let` child tasks per internal
    /// node, run in parallel and both awaited.
    static func asynclet<T: SpawnTally>(_ k: Int, cutoff: Int, tally: T) async -> Int {
        if k < 2 { return k }
        if k < cutoff { return seqfib(k) }
        tally.record(2)
        async let a = asynclet(k - 1, cutoff: cutoff, tally: tally)
        async let b = asynclet(k - 2, cutoff: cutoff, tally: tally)
        return await a + b
    }

    /// One timed sc iteration.
    public static func sc(n: Int, cutoff: Int) async -> Sample {
        await Sample.timing({
            await asynclet(n, cutoff: cutoff, tally: NoTally())
        }, format: { String($0) })
    }

    /// Untimed counting pass: the child tasks one sc iteration really creates.
    public static func scSpawnCount(n: Int, cutoff: Int) async -> Int {
        let tally = CountingTally()
        _ = await asynclet(n, cutoff: cutoff, tally: tally)
        return tally.total
    }
}
