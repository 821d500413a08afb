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

    /// sc/asynclet with `repeat=k`: k whole trees, one after the other, timed as one iteration.
    public static func sc(n: Int, cutoff: Int, repeating count: Int) async -> Sample {
        if count == 1 { return await sc(n: n, cutoff: cutoff) }
        return await Sample.timing(repeating: count, input: n, {
            await asynclet($0, cutoff: cutoff, tally: NoTally())
        }, format: { String($0) })
    }

    /// Untimed counting pass: the child tasks one sc iteration really creates.
    public static func scSpawnCount(n: Int, cutoff: Int) async -> Int {
        let tally = CountingTally()
        _ = await asynclet(n, cutoff: cutoff, tally: tally)
        return tally.total
    }
}
