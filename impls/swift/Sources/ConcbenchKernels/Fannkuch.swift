/// fannkuch: fannkuch-redux over all n! permutations, the index range cut into chunks
/// that tasks process independently; combined by max and sum.
public enum Fannkuch {
    /// n = 20 is the largest whose n! fits in 64 bits.
    public static let maxN = 20

    /// The split of [0, n!) into tasks: chunk = ⌈n!/K⌉, tasks = ⌈n!/chunk⌉.
    public struct Split: Sendable, Equatable {
        public let n: Int
        public let total: Int
        public let chunk: Int
        public let tasks: Int

        /// `chunks` is K, the requested count (the spec's default is 150).
        public init(n: Int, chunks: Int = 150) {
            precondition((1...Fannkuch.maxN).contains(n) && chunks >= 1)
            self.n = n
            total = factorial(n)
            chunk = ceilingDivision(total, chunks)
            tasks = ceilingDivision(total, chunk)
        }
    }

    /// One task's (or the whole run's) figures.
    struct Partial: Sendable {
        var maxFlips = 0
        var checksum = 0

        mutating func combine(_ other: Partial) {
            maxFlips = max(maxFlips, other.maxFlips)
            checksum &+= other.checksum
        }
    }

    /// ⌈a/b⌉ without the overflow of (a + b − 1)/b for a huge b.
    static func ceilingDivision(_ a: Int, _ b: Int) -> Int {
        a / b + (a % b == 0 ? 0 : 1)
    }

    static func factorial(_ k: Int) -> Int {
        (1...max(k, 1)).reduce(1, *)
    }

    static func result(_ p: Partial) -> String {
        "maxflips=\(p.maxFlips) checksum=\(p.checksum)"
    }

    /// Task t: the indexes [t·chunk, min(n!, (t+1)·chunk)). Every model runs this
    /// one routine, and touches shared state once per task.
    static func task(_ t: Int, of split: Split) -> Partial {
        let n = split.n
        let start = t * split.chunk
        let end = min(split.total, start + split.chunk)
        // Three small scratch arrays on the stack: the permutation, its copy to flip
        // and the count array of Mazurov's step.
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: 3 * n) { buffer in
            let p = buffer.baseAddress!
            let q = p + n
            let count = q + n
            decode(start, n: n, into: p, count: count, scratch: q)
            var partial = Partial()
            var i = start
            while true {
                let f = flips(p, q, n: n)
                partial.maxFlips = max(partial.maxFlips, f)
                // The parity of the global index.
                partial.checksum &+= i & 1 == 0 ? f : -f
                i += 1
                if i == end { break }
                next(p, count: count)
            }
            return partial
        }
    }

    /// perm(i) into p, leaving in `count` the digits the step continues from.
    static func decode(
        _ index: Int, n: Int, into p: UnsafeMutablePointer<Int>, count: UnsafeMutablePointer<Int>,
        scratch: UnsafeMutablePointer<Int>
    ) {
        for j in 0..<n {
            p[j] = j
            count[j] = 0
        }
        var i = index
        var k = n - 1
        while k >= 1 {
            let f = factorial(k)
            let d = i / f
            i %= f
            count[k] = d
            // Rotate p[0...k] left by d.
            for j in 0...k {
                scratch[j] = p[(j + d) % (k + 1)]
            }
            p.update(from: scratch, count: k + 1)
            k -= 1
        }
    }

    /// Mazurov's step from perm(i) to perm(i+1); never called past a chunk's end.
    @inline(__always)
    static func next(_ p: UnsafeMutablePointer<Int>, count: UnsafeMutablePointer<Int>) {
        var first = p[1]
        p[1] = p[0]
        p[0] = first
        var k = 1
        count[k] += 1
        while count[k] > k {
            count[k] = 0
            k += 1
            // Rotate p[0...k] left by one.
            let second = p[1]
            p[0] = second
            var j = 1
            while j < k {
                p[j] = p[j + 1]
                j += 1
            }
            p[k] = first
            first = second
            count[k] += 1
        }
    }

    /// The flips of p: reverse q[0...q[0]] until q[0] = 0. q[0] lives in `first`
    /// only: a reversal moves it to position `first`, which is where it is written.
    @inline(__always)
    static func flips(_ p: UnsafeMutablePointer<Int>, _ q: UnsafeMutablePointer<Int>, n: Int) -> Int {
        var first = p[0]
        if first == 0 { return 0 }
        q.update(from: p, count: n)
        var f = 0
        repeat {
            let top = q[first]
            q[first] = first
            var lo = 1
            var hi = first - 1
            while lo < hi {
                let t = q[lo]
                q[lo] = q[hi]
                q[hi] = t
                lo += 1
                hi -= 1
            }
            first = top
            f += 1
        } while first != 0
        return f
    }
}
