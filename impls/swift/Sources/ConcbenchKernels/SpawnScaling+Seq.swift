extension SpawnScaling {
    /// seq/loop: the same N bodies in a plain loop, no tasks: the work to subtract.
    public static func seqLoop(tasks n: Int) -> Sample {
        Sample.timing({
            var sum = 0
            for i in 0..<n {
                sum += work(i)
            }
            return sum
        }, format: { result(tasks: n, sum: $0) })
    }
}
