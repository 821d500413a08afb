extension Fib {
    /// seq/plain: seqfib(n), the baseline for the cost per spawn.
    public static func seqPlain(n: Int) -> Sample {
        Sample.timing({ seqfib(n) }, format: { String($0) })
    }
}
