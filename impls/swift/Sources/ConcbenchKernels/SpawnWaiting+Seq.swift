import Foundation

extension SpawnWaiting {
    /// seq/inline: no unit of work; the caller sleeps N times itself. It measures the
    /// sleep primitive's own overshoot for comparison.
    public static func seqInline(tasks n: Int, waitMs: Int) -> Sample {
        let seconds = Double(waitMs) / 1000
        return Sample.timing({
            var sum = 0
            for i in stride(from: 1, through: n, by: 1) {
                Thread.sleep(forTimeInterval: seconds)
                sum += i
            }
            return sum
        }, format: { result(tasks: n, sum: $0) })
    }
}
