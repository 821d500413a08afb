extension Countdown {
    /// seq/plain: the whole enumeration on the calling thread with DISPATCH = extend,
    /// no batches, on the indexed (stage G) data structures: the baseline for what the
    /// task machinery costs. It splits nothing, so it reports no batches metric.
    public static func seqPlain(_ instance: Instance) -> Sample {
        Sample.timing({
            var solutions: [String] = []
            Indexed.solve(instance.numbers, goal: instance.goal) { solutions.append($0) }
            return solutions
        }, format: result)
    }
}
