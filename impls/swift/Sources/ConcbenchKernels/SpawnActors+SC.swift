/// The language actor of Listing 3.3; `inc` returns the new count so the run can be
/// verified (always 1 for a fresh actor).
actor CounterActor {
    private var counter = 0

    func inc() -> Int {
        counter += 1
        return counter
    }
}

extension SpawnActors {
    /// sc/actor (faithful): `await CounterActor().inc()`, a cross-actor call from the
    /// driver's task to a fresh actor each time.
    public static func scActor(actors n: Int) async -> Sample {
        await Sample.timing({
            var total = 0
            for _ in stride(from: 1, through: n, by: 1) {
                total += await CounterActor().inc()
            }
            return total
        }, format: { result(actors: n, total: $0) })
    }
}
