extension Fib {
    /// seq/plain: seqfib(n), the baseline for the cost per spawn.
    public static func seqPlain(n: Int) -> Sample {
        Sample.timing({ seqfib(n) }, format: { String($0) })
    }

    /// seq/plain with `repeat=k`: k calls of seqfib(n) timed as one iteration.
    public static func seqPlain(n: Int, repeating count: Int) -> Sample {
        count == 1 ? seqPlain(n: n) : Sample.timing(repeating: count, input: n, { seqfib($0) }, format: { String($0) })
    }
}
