extension SpawnWaiting {
    /// sc/task (faithful, Listing 3.1): a fresh unstructured Task per i whose value is
    /// awaited; Task.sleep suspends the task and frees its thread.
    public static func scTask(tasks n: Int, waitMs: Int) async throws -> Sample {
        let nanoseconds = UInt64(waitMs) * 1_000_000
        return try await Sample.timing({
            var sum = 0
            for i in stride(from: 1, through: n, by: 1) {
                let task = Task<Int, Error> {
                    try await Task.sleep(nanoseconds: nanoseconds)
                    return i
                }
                sum += try await task.value
            }
            return sum
        }, format: { result(tasks: n, sum: $0) })
    }
}
