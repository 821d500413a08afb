extension Fannkuch {
    /// seq/plain: the same chunks, one after the other on the calling thread, so
    /// the parallel models' speedup compares the very same work.
    public static func seqPlain(_ split: Split) -> Sample {
        Sample.timing({
            var total = Partial()
            for t in 0..<split.tasks {
                total.combine(task(t, of: split))
            }
            return total
        }, format: result)
    }
}
