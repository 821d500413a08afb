/// fib: naive recursive Fibonacci with work created per internal node.
public enum Fib {
    /// The shapes the spec defines for the gcd model; `cps` is the faithful one.
    public enum GCDShape: String, CaseIterable, Sendable {
        case cps
        case parallel
    }

    /// Plain recursion: no memo, no tasks. Also the body below the cutoff.
    static func seqfib(_ k: Int) -> Int {
        k < 2 ? k : seqfib(k - 1) + seqfib(k - 2)
    }
}
