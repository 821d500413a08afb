/// The Cowichan problems of the SCOOP/Qs study (spec/benchmarks/chain.md and the stage files):
/// randmat, thresh, winnow, outer and product, and chain, which runs the five back to back.
/// The row kernels below work on one block of rows through raw pointers; every model (seq,
/// gcd, sc) runs these very routines and differs only in how it hands out the blocks and
/// gathers their output.
public enum Cowichan {
    public enum Benchmark: String, CaseIterable, Sendable {
        case randmat, thresh, winnow, outer, product, chain
    }

    /// The largest n: winnow's keys hold i and j in 24 bits each, and n² one-byte cells
    /// (10 GB at this bound) is already more than any size set needs.
    public static let maxN = 100_000

    /// The options every Cowichan benchmark takes (chain.md, Parameter), whatever its stage reads.
    public struct Config: Sendable, Equatable {
        public let n: Int
        /// thresh's p: the percent of cells to keep.
        public let percent: Int
        public let nelts: Int
        public let seed: UInt32
        /// W: the row blocks (rule 2), and the child tasks or iterations that run them.
        public let workers: Int

        public init(n: Int, percent: Int = 1, nelts: Int? = nil, seed: UInt32 = 0, workers: Int = 1) {
            precondition((1...Cowichan.maxN).contains(n) && (0...100).contains(percent) && workers >= 1)
            self.n = n
            self.percent = percent
            self.nelts = nelts ?? n
            self.seed = seed
            self.workers = workers
            precondition(self.nelts >= 1)
        }
    }

    /// A run that cannot go on: winnow found fewer candidates than nelts.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String

        init(_ description: String) {
            self.description = description
        }
    }

    /// A winnow point: x is the row i, y the column j.
    public struct Point: Sendable, Equatable {
        public var x: Int
        public var y: Int

        public init(x: Int, y: Int) {
            self.x = x
            self.y = y
        }
    }

    /// thresh's output: the threshold t and the n×n 0/1 mask.
    public struct Mask: Sendable, Equatable {
        public var threshold: Int
        public var cells: [UInt8]
    }

    /// winnow's output: K, the number of candidates, and the nelts chosen points.
    public struct Winnowed: Sendable, Equatable {
        public var candidates: Int
        public var points: [Point]
    }

    /// outer's output: the nelts×nelts matrix D (row-major) and the vector v.
    public struct Outer: Sendable, Equatable {
        public var matrix: [Double]
        public var vector: [Double]
    }

    /// A stage's output and, for the models that copy blocks (sc), the compute time: the
    /// longest worker's, plus any sequential compute the stage does on the caller.
    struct Staged<T> {
        var value: T
        var computeNs: UInt64?

        init(_ value: T, computeNs: UInt64? = nil) {
            self.value = value
            self.computeNs = computeNs
        }
    }

    /// A new array of `count` trivial elements, every one of them written by `fill`.
    @inline(__always)
    static func filled<T: BitwiseCopyable>(_ count: Int, _ fill: (UnsafeMutablePointer<T>) -> Void) -> [T] {
        precondition(count > 0)
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            fill(buffer.baseAddress!)
            initialized = count
        }
    }

    // MARK: rule 2

    /// chain.md rule 2: worker w gets h_w = ⌊(R − start_w)/(W − w)⌋ rows from start_w, the
    /// smaller blocks first. Only the non-empty blocks are listed: a worker with none is not
    /// started.
    public static func blocks(rows: Int, workers: Int) -> [Range<Int>] {
        precondition(rows >= 0 && workers >= 1)
        var result: [Range<Int>] = []
        var start = 0
        for w in 0..<workers {
            let h = (rows - start) / (workers - w)
            if h > 0 { result.append(start..<start + h) }
            start += h
        }
        return result
    }

    // MARK: randmat

    /// randmat's rows into `out`, which points at the first cell of `rows.lowerBound`: one
    /// generator per row seeded with seed + i (mod 2^32), each draw taken after the step.
    static func randmatRows(_ rows: Range<Int>, n: Int, seed: UInt32, into out: UnsafeMutablePointer<UInt8>) {
        var cell = out
        for i in rows {
            var generator = LCG32(seed: seed &+ UInt32(truncatingIfNeeded: i))
            for _ in 0..<n {
                cell.pointee = UInt8(truncatingIfNeeded: generator.draw(100))
                cell += 1
            }
        }
    }

    // MARK: thresh

    /// A block's (or the merged) histogram and maximum. 256 bins, one per byte value, so
    /// that a cell indexes its bin unchecked; randmat's cells use the first 100.
    struct Histogram: Sendable, Equatable {
        var counts = [Int](repeating: 0, count: 256)
        var maximum = 0

        /// Addition and max are order-free, so the merge order does not matter.
        mutating func merge(_ other: Histogram) {
            for v in 0..<counts.count {
                counts[v] += other.counts[v]
            }
            maximum = max(maximum, other.maximum)
        }
    }

    static func histogram(_ cells: UnsafeBufferPointer<UInt8>) -> Histogram {
        var histogram = Histogram()
        histogram.counts.withUnsafeMutableBufferPointer { counts in
            for cell in cells {
                counts[Int(cell)] += 1
            }
        }
        // The block's maximum is its highest non-empty bin.
        histogram.maximum = histogram.counts.lastIndex { $0 > 0 } ?? 0
        return histogram
    }

    /// thresh's tie rule: whole bins from the maximum down, stopping right after the first
    /// one that pushes the running total above count = ⌊cells·p/100⌋.
    static func threshold(_ histogram: Histogram, cells: Int, percent: Int) -> Int {
        let count = cells * percent / 100
        var prefix = 0
        var t = histogram.maximum
        var v = histogram.maximum
        while v >= 0 && prefix <= count {
            prefix += histogram.counts[v]
            t = v
            v -= 1
        }
        return t
    }

    /// The mask of `cells` (a whole number of rows) into `out`.
    static func maskCells(_ cells: UnsafeBufferPointer<UInt8>, threshold: Int, into out: UnsafeMutablePointer<UInt8>) {
        let t = UInt8(threshold)
        for k in cells.indices {
            out[k] = cells[k] >= t ? 1 : 0
        }
    }

    // MARK: winnow

    /// A candidate (value, i, j) as one integer whose order is the lexicographic order of
    /// the triple: value above i above j, 24 bits for each coordinate (n ≤ maxN < 2^24).
    @inline(__always)
    static func key(value: UInt8, i: Int, j: Int) -> UInt64 {
        UInt64(value) << 48 | UInt64(i) << 24 | UInt64(j)
    }

    @inline(__always)
    static func point(_ key: UInt64) -> Point {
        Point(x: Int((key >> 24) & 0xFF_FFFF), y: Int(key & 0xFF_FFFF))
    }

    /// winnow's gather over `rows`, in row-major order: the block's candidate keys. The buffers
    /// hold the matrix and mask from row `firstRow` on (0: the whole matrix; a worker's own block).
    static func candidates(
        _ rows: Range<Int>, n: Int, matrix: UnsafeBufferPointer<UInt8>, mask: UnsafeBufferPointer<UInt8>,
        firstRow: Int = 0
    ) -> [UInt64] {
        var run: [UInt64] = []
        for i in rows {
            let row = (i - firstRow) * n
            for j in 0..<n where mask[row + j] != 0 {
                run.append(key(value: matrix[row + j], i: i, j: j))
            }
        }
        return run
    }

    /// winnow's gather over `rows`, sorted: the block's run of candidate keys.
    static func sortedCandidates(
        _ rows: Range<Int>, n: Int, matrix: UnsafeBufferPointer<UInt8>, mask: UnsafeBufferPointer<UInt8>,
        firstRow: Int = 0
    ) -> [UInt64] {
        var run = candidates(rows, n: n, matrix: matrix, mask: mask, firstRow: firstRow)
        run.sort()
        return run
    }

    /// Two sorted runs merged into one.
    static func merge(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        let total = a.count + b.count
        return [UInt64](unsafeUninitializedCapacity: total) { out, initialized in
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    var (i, j, k) = (0, 0, 0)
                    while i < a.count && j < b.count {
                        if b[j] < a[i] {
                            out[k] = b[j]
                            j += 1
                        } else {
                            out[k] = a[i]
                            i += 1
                        }
                        k += 1
                    }
                    while i < a.count {
                        out[k] = a[i]
                        i += 1
                        k += 1
                    }
                    while j < b.count {
                        out[k] = b[j]
                        j += 1
                        k += 1
                    }
                }
            }
            initialized = total
        }
    }

    /// The blocks' sorted runs merged pairwise in a tree whose stride doubles at each step
    /// (SCOOP/Qs's chain): one fully sorted candidate list.
    static func mergeRuns(_ runs: [[UInt64]]) -> [UInt64] {
        var runs = runs
        guard !runs.isEmpty else { return [] }
        while runs.count > 1 {
            var next: [[UInt64]] = []
            next.reserveCapacity((runs.count + 1) / 2)
            var k = 0
            while k + 1 < runs.count {
                next.append(merge(runs[k], runs[k + 1]))
                k += 2
            }
            if k < runs.count { next.append(runs[k]) }
            runs = next
        }
        return runs[0]
    }

    static func tooFew(_ candidates: Int, nelts: Int) -> Failure {
        Failure("winnow: \(candidates) candidates, fewer than nelts=\(nelts)")
    }

    /// Every chunk-th element of the sorted candidates, chunk = ⌊K/nelts⌋; fails if K < nelts.
    static func select(_ sorted: [UInt64], nelts: Int) throws(Failure) -> Winnowed {
        let candidates = sorted.count
        guard candidates >= nelts else {
            throw tooFew(candidates, nelts: nelts)
        }
        let chunk = candidates / nelts
        let points = sorted.withUnsafeBufferPointer { sorted in
            (0..<nelts).map { k in point(sorted[k * chunk]) }
        }
        return Winnowed(candidates: candidates, points: points)
    }

    // MARK: outer

    /// outer's rows into `matrix` (at the first element of `rows.lowerBound`) and `vector`
    /// (at v[rows.lowerBound]): distances with the integer difference converted, the
    /// diagonal nelts times the row's largest, then the distance to the origin.
    static func outerRows(
        _ rows: Range<Int>, points: UnsafeBufferPointer<Point>, matrix: UnsafeMutablePointer<Double>,
        vector: UnsafeMutablePointer<Double>
    ) {
        let m = points.count
        for (r, i) in rows.enumerated() {
            let row = matrix + r * m
            let (xi, yi) = (points[i].x, points[i].y)
            var largest = -1.0
            for j in 0..<m where j != i {
                let dx = Double(xi - points[j].x)
                let dy = Double(yi - points[j].y)
                let d = (dx * dx + dy * dy).squareRoot()
                row[j] = d
                if d > largest { largest = d }
            }
            row[i] = Double(m) * largest
            vector[r] = (Double(xi) * Double(xi) + Double(yi) * Double(yi)).squareRoot()
        }
    }

    // MARK: product

    /// product's rows into `out` (at r[rows.lowerBound]): each row's sum in strictly
    /// ascending j, one rounding per multiply and per add (Swift neither contracts nor
    /// reassociates, so the loop stays in this order).
    static func productRows(
        _ rows: Range<Int>, matrix: UnsafeBufferPointer<Double>, vector: UnsafeBufferPointer<Double>,
        into out: UnsafeMutablePointer<Double>
    ) {
        let m = vector.count
        for (r, i) in rows.enumerated() {
            let row = matrix.baseAddress! + i * m
            var acc = 0.0
            for j in 0..<m {
                acc = acc + row[j] * vector[j]
            }
            out[r] = acc
        }
    }

    // MARK: results (untimed)

    /// chain.md rule 5: q(x) = round half away from zero of the one product x·1e6. Beyond
    /// every size set the value would not fit: it saturates (as Rust's `as i64`) instead of
    /// trapping.
    public static func quantise(_ x: Double) -> Int64 {
        let scaled = (x * 1e6).rounded(.toNearestOrAwayFromZero)
        if scaled.isNaN { return 0 }
        if scaled >= 0x1p63 { return .max }
        if scaled < -0x1p63 { return .min }
        return Int64(scaled)
    }

    /// Σ v[k]·(k+1) mod 2^64 over a byte array.
    static func checksum(_ values: [UInt8]) -> UInt64 {
        var cs: UInt64 = 0
        for (k, v) in values.enumerated() {
            cs = cs &+ UInt64(v) &* UInt64(k + 1)
        }
        return cs
    }

    /// Σ q(v[k])·(k+1) mod 2^64; a negative q enters as its two's-complement pattern.
    static func quantisedChecksum(_ values: [Double]) -> UInt64 {
        var cs: UInt64 = 0
        for (k, v) in values.enumerated() {
            cs = cs &+ UInt64(bitPattern: quantise(v)) &* UInt64(k + 1)
        }
        return cs
    }

    /// The checksum of the flat array [x0, y0, x1, y1, …].
    static func pointChecksum(_ points: [Point]) -> UInt64 {
        var cs: UInt64 = 0
        for (k, p) in points.enumerated() {
            let k = UInt64(k)
            cs = cs &+ UInt64(p.x) &* (2 &* k &+ 1) &+ UInt64(p.y) &* (2 &* k &+ 2)
        }
        return cs
    }

    static func randmatResult(_ matrix: [UInt8]) -> String {
        "checksum=\(checksum(matrix))"
    }

    static func threshResult(_ mask: Mask) -> String {
        let kept = mask.cells.reduce(0) { $0 + Int($1) }
        return "threshold=\(mask.threshold) kept=\(kept) checksum=\(checksum(mask.cells))"
    }

    static func winnowResult(_ winnowed: Winnowed) -> String {
        "candidates=\(winnowed.candidates) checksum=\(pointChecksum(winnowed.points))"
    }

    static func outerResult(_ outer: Outer) -> String {
        "matrix=\(quantisedChecksum(outer.matrix)) vector=\(quantisedChecksum(outer.vector))"
    }

    static func productResult(_ r: [Double]) -> String {
        "checksum=\(quantisedChecksum(r))"
    }

    // MARK: the standalone stages' inputs (untimed)

    /// A standalone stage's input, built once before the first iteration (rule 3) by the
    /// sequential kernels; read-only afterwards. `failure` is set when winnow could not
    /// pick nelts points: then every iteration fails.
    public struct Prepared: Sendable {
        public let benchmark: Benchmark
        public let config: Config
        let matrix: [UInt8]
        let mask: [UInt8]
        let points: [Point]
        let outer: Outer
        let failure: Failure?
    }

    public static func prepare(_ benchmark: Benchmark, _ config: Config) -> Prepared {
        let seq = SeqStages()
        var matrix: [UInt8] = []
        var mask: [UInt8] = []
        var points: [Point] = []
        var outer = Outer(matrix: [], vector: [])
        var failure: Failure?
        // Each stage's input is the output of the ones before it, so build up to it.
        let depth = [Benchmark.thresh: 1, .winnow: 2, .outer: 3, .product: 4][benchmark] ?? 0
        if depth >= 1 { matrix = seq.randmat(config).value }
        if depth >= 2 { mask = seq.thresh(config, matrix: matrix).value.cells }
        do {
            if depth >= 3 { points = try seq.winnow(config, matrix: matrix, mask: mask).value.points }
            if depth >= 4 { outer = seq.outer(config, points: points).value }
        } catch {
            failure = error
        }
        // Keep only what the stage reads.
        if depth > 2 { (matrix, mask) = ([], []) }
        if depth > 3 { points = [] }
        return Prepared(
            benchmark: benchmark, config: config, matrix: matrix, mask: mask, points: points, outer: outer,
            failure: failure)
    }

    // MARK: timing

    static func metrics(computeNs: UInt64?) -> [Metric] {
        computeNs.map { [Metric("compute_ns", Int(clamping: $0))] } ?? []
    }

    /// chain's sample from the clock read before the first stage and after each one: the total,
    /// the five stage times, and the stages' compute times summed where the model reports them.
    static func chainSample(clock: [UInt64], computeNs: [UInt64?], result: String) -> Sample {
        let names = ["randmat", "thresh", "winnow", "outer", "product"]
        let stageNs = (1..<clock.count).map { clock[$0] &- clock[$0 - 1] }
        var metrics = zip(names, stageNs).map { Metric("stage_\($0)_ns", Int(clamping: $1)) }
        if computeNs.allSatisfy({ $0 != nil }) {
            metrics += Cowichan.metrics(computeNs: computeNs.reduce(0) { $0 + $1! })
        }
        return Sample(ns: clock[clock.count - 1] &- clock[0], result: result, metrics: metrics)
    }

    /// Times one stage; its result string is made after the clock stops.
    static func timed<T>(
        _ body: () throws(Failure) -> Staged<T>, format: (T) -> String
    ) throws(Failure) -> Sample {
        let t0 = monotonicNanos()
        let staged = try body()
        let t1 = monotonicNanos()
        return Sample(ns: t1 &- t0, result: format(staged.value), metrics: metrics(computeNs: staged.computeNs))
    }

    /// One iteration of a blocking model (seq, gcd): the prepared stage, or the whole chain.
    static func run(_ stages: some BlockingStages, _ input: Prepared) throws(Failure) -> Sample {
        if let failure = input.failure { throw failure }
        let c = input.config
        switch input.benchmark {
        case .randmat:
            return try timed({ stages.randmat(c) }, format: randmatResult)
        case .thresh:
            return try timed({ stages.thresh(c, matrix: input.matrix) }, format: threshResult)
        case .winnow:
            return try timed({ () throws(Failure) in try stages.winnow(c, matrix: input.matrix, mask: input.mask) },
                format: winnowResult)
        case .outer:
            return try timed({ stages.outer(c, points: input.points) }, format: outerResult)
        case .product:
            return try timed({ stages.product(c, outer: input.outer) }, format: productResult)
        case .chain:
            var clock = [monotonicNanos()]
            let matrix = stages.randmat(c)
            clock.append(monotonicNanos())
            let mask = stages.thresh(c, matrix: matrix.value)
            clock.append(monotonicNanos())
            let winnowed = try stages.winnow(c, matrix: matrix.value, mask: mask.value.cells)
            clock.append(monotonicNanos())
            let outer = stages.outer(c, points: winnowed.value.points)
            clock.append(monotonicNanos())
            let r = stages.product(c, outer: outer.value)
            clock.append(monotonicNanos())
            let computeNs = [matrix.computeNs, mask.computeNs, winnowed.computeNs, outer.computeNs, r.computeNs]
            return chainSample(clock: clock, computeNs: computeNs, result: productResult(r.value))
        }
    }
}

/// The five stages as a model that blocks its caller runs them (seq, gcd); sc's
/// counterpart awaits (Cowichan+SC.swift).
protocol BlockingStages {
    func randmat(_ c: Cowichan.Config) -> Cowichan.Staged<[UInt8]>
    func thresh(_ c: Cowichan.Config, matrix: [UInt8]) -> Cowichan.Staged<Cowichan.Mask>
    func winnow(
        _ c: Cowichan.Config, matrix: [UInt8], mask: [UInt8]
    ) throws(Cowichan.Failure) -> Cowichan.Staged<Cowichan.Winnowed>
    func outer(_ c: Cowichan.Config, points: [Cowichan.Point]) -> Cowichan.Staged<Cowichan.Outer>
    func product(_ c: Cowichan.Config, outer: Cowichan.Outer) -> Cowichan.Staged<[Double]>
}
