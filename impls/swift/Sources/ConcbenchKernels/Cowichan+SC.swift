extension Cowichan {
    /// sc/task-group: every stage is a TaskGroup of W child tasks (one per rule-2 block,
    /// fewer only when rows < W); each child computes its block into an array of its own
    /// and returns it, and the parent copies the blocks into the main context's output,
    /// inside the timer. thresh runs two groups (histograms, then the mask) and winnow
    /// merges the children's sorted runs on the parent. `compute_ns` is the longest child's
    /// compute time (thresh: both phases of a block; winnow: plus the parent's merge and
    /// pick; chain: the five stages' sum), without the copies.
    public static func sc(_ input: Prepared) async throws(Failure) -> Sample {
        try await run(SCStages(workers: input.config.workers), input)
    }

    /// One iteration of a model that awaits (sc, qs): the prepared stage, or the whole chain.
    static nonisolated(nonsending) func run(
        _ stages: some AsyncStages, _ input: Prepared
    ) async throws(Failure) -> Sample {
        if let failure = input.failure { throw failure }
        let c = input.config
        switch input.benchmark {
        case .randmat:
            return await timedAsync({ await stages.randmat(c) }, format: randmatResult)
        case .thresh:
            return await timedAsync({ await stages.thresh(c, matrix: input.matrix) }, format: threshResult)
        case .winnow:
            return try await timedAsync(
                { () async throws(Failure) in try await stages.winnow(c, matrix: input.matrix, mask: input.mask) },
                format: winnowResult)
        case .outer:
            return await timedAsync({ await stages.outer(c, points: input.points) }, format: outerResult)
        case .product:
            return await timedAsync({ await stages.product(c, outer: input.outer) }, format: productResult)
        case .chain:
            return try await stages.chain(c)
        }
    }

    static nonisolated(nonsending) func timedAsync<T, E: Error>(
        _ body: () async throws(E) -> Staged<T>, format: (T) -> String
    ) async throws(E) -> Sample {
        let t0 = monotonicNanos()
        let staged = try await body()
        let t1 = monotonicNanos()
        return Sample(ns: t1 &- t0, result: format(staged.value), metrics: metrics(computeNs: staged.computeNs))
    }

    /// One child task per block in one TaskGroup; each returns its output and the time it
    /// spent computing it. The results come back in block order.
    static func children<T: Sendable>(
        _ blocks: [Range<Int>], _ body: @escaping @Sendable (Range<Int>) -> (T, UInt64)
    ) async -> [(value: T, ns: UInt64)] {
        await withTaskGroup(of: (Int, T, UInt64).self) { group in
            for (w, rows) in blocks.enumerated() {
                group.addTask {
                    let (value, ns) = body(rows)
                    return (w, value, ns)
                }
            }
            var results = [(value: T, ns: UInt64)?](repeating: nil, count: blocks.count)
            for await (w, value, ns) in group {
                results[w] = (value, ns)
            }
            return results.map { $0! }
        }
    }

    /// A child's own block: a new array filled by `fill`, and the time `fill` took.
    static func filledTimed<T: BitwiseCopyable>(
        _ count: Int, _ fill: (UnsafeMutablePointer<T>) -> Void
    ) -> ([T], UInt64) {
        var ns: UInt64 = 0
        let block: [T] = filled(count) { out in
            let t0 = monotonicNanos()
            fill(out)
            ns = monotonicNanos() &- t0
        }
        return (block, ns)
    }

    /// The parent's copy of the blocks, in order, into one new array of `count` elements.
    static func assemble<T: BitwiseCopyable>(_ parts: [[T]], count: Int) -> [T] {
        precondition(parts.reduce(0) { $0 + $1.count } == count)
        return filled(count) { out in
            var next = out
            for part in parts {
                part.withUnsafeBufferPointer { next.initialize(from: $0.baseAddress!, count: $0.count) }
                next += part.count
            }
        }
    }
}

/// The five stages as a model that awaits runs them (sc, qs); chain runs them back to back unless
/// the model keeps its data between stages (qs).
protocol AsyncStages {
    nonisolated(nonsending) func randmat(_ c: Cowichan.Config) async -> Cowichan.Staged<[UInt8]>
    nonisolated(nonsending) func thresh(_ c: Cowichan.Config, matrix: [UInt8]) async -> Cowichan.Staged<Cowichan.Mask>
    nonisolated(nonsending) func winnow(
        _ c: Cowichan.Config, matrix: [UInt8], mask: [UInt8]
    ) async throws(Cowichan.Failure) -> Cowichan.Staged<Cowichan.Winnowed>
    nonisolated(nonsending) func outer(
        _ c: Cowichan.Config, points: [Cowichan.Point]
    ) async -> Cowichan.Staged<Cowichan.Outer>
    nonisolated(nonsending) func product(_ c: Cowichan.Config, outer: Cowichan.Outer) async -> Cowichan.Staged<[Double]>
    nonisolated(nonsending) func chain(_ c: Cowichan.Config) async throws(Cowichan.Failure) -> Sample
}

extension AsyncStages {
    nonisolated(nonsending) func chain(_ c: Cowichan.Config) async throws(Cowichan.Failure) -> Sample {
        var clock = [monotonicNanos()]
        let matrix = await randmat(c)
        clock.append(monotonicNanos())
        let mask = await thresh(c, matrix: matrix.value)
        clock.append(monotonicNanos())
        let winnowed = try await winnow(c, matrix: matrix.value, mask: mask.value.cells)
        clock.append(monotonicNanos())
        let outer = await outer(c, points: winnowed.value.points)
        clock.append(monotonicNanos())
        let r = await product(c, outer: outer.value)
        clock.append(monotonicNanos())
        let computeNs = [matrix.computeNs, mask.computeNs, winnowed.computeNs, outer.computeNs, r.computeNs]
        return Cowichan.chainSample(clock: clock, computeNs: computeNs, result: Cowichan.productResult(r.value))
    }
}

struct SCStages: AsyncStages {
    typealias C = Cowichan
    let workers: Int

    nonisolated(nonsending) func randmat(_ c: C.Config) async -> C.Staged<[UInt8]> {
        let (n, seed) = (c.n, c.seed)
        let parts = await C.children(C.blocks(rows: n, workers: workers)) { rows in
            C.filledTimed(rows.count * n) { C.randmatRows(rows, n: n, seed: seed, into: $0) }
        }
        return C.Staged(C.assemble(parts.map(\.value), count: n * n), computeNs: parts.map(\.ns).max())
    }

    nonisolated(nonsending) func thresh(_ c: C.Config, matrix: [UInt8]) async -> C.Staged<C.Mask> {
        let n = c.n
        let blocks = C.blocks(rows: n, workers: workers)
        // Round one: each child returns its block's histogram and maximum.
        let partials = await C.children(blocks) { rows in
            matrix.withUnsafeBufferPointer { cells in
                let t0 = monotonicNanos()
                let histogram = C.histogram(
                    UnsafeBufferPointer(rebasing: cells[rows.lowerBound * n..<rows.upperBound * n]))
                return (histogram, monotonicNanos() &- t0)
            }
        }
        var histogram = C.Histogram()
        for partial in partials {
            histogram.merge(partial.value)
        }
        let t = C.threshold(histogram, cells: n * n, percent: c.percent)
        // Round two: t goes out with the children, their mask blocks come back.
        let parts = await C.children(blocks) { rows in
            matrix.withUnsafeBufferPointer { cells in
                C.filledTimed(rows.count * n) {
                    C.maskCells(
                        UnsafeBufferPointer(rebasing: cells[rows.lowerBound * n..<rows.upperBound * n]),
                        threshold: t, into: $0)
                }
            }
        }
        // Block w ran both rounds: its compute is the two together.
        let computeNs = zip(partials, parts).map { $0.ns + $1.ns }.max()
        return C.Staged(C.Mask(threshold: t, cells: C.assemble(parts.map(\.value), count: n * n)), computeNs: computeNs)
    }

    nonisolated(nonsending) func winnow(
        _ c: C.Config, matrix: [UInt8], mask: [UInt8]
    ) async throws(C.Failure) -> C.Staged<C.Winnowed> {
        let n = c.n
        // Each child returns its block's sorted run of candidates.
        let runs = await C.children(C.blocks(rows: n, workers: workers)) { rows in
            matrix.withUnsafeBufferPointer { matrix in
                mask.withUnsafeBufferPointer { mask in
                    let t0 = monotonicNanos()
                    let run = C.sortedCandidates(rows, n: n, matrix: matrix, mask: mask)
                    return (run, monotonicNanos() &- t0)
                }
            }
        }
        // The parent's merge and pick are compute too (winnow.md, Extra metrics).
        let t0 = monotonicNanos()
        let winnowed = try C.select(C.mergeRuns(runs.map(\.value)), nelts: c.nelts)
        let parentNs = monotonicNanos() &- t0
        return C.Staged(winnowed, computeNs: (runs.map(\.ns).max() ?? 0) + parentNs)
    }

    nonisolated(nonsending) func outer(_ c: C.Config, points: [C.Point]) async -> C.Staged<C.Outer> {
        let m = points.count
        // Every child reads the whole point list and returns its rows of D and its slice of v.
        let parts = await C.children(C.blocks(rows: m, workers: workers)) { rows in
            var ns: UInt64 = 0
            var matrix: [Double] = []
            let vector: [Double] = C.filled(rows.count) { vector in
                matrix = C.filled(rows.count * m) { out in
                    points.withUnsafeBufferPointer { points in
                        let t0 = monotonicNanos()
                        C.outerRows(rows, points: points, matrix: out, vector: vector)
                        ns = monotonicNanos() &- t0
                    }
                }
            }
            return (C.Outer(matrix: matrix, vector: vector), ns)
        }
        let outer = C.Outer(
            matrix: C.assemble(parts.map(\.value.matrix), count: m * m),
            vector: C.assemble(parts.map(\.value.vector), count: m))
        return C.Staged(outer, computeNs: parts.map(\.ns).max())
    }

    nonisolated(nonsending) func product(_ c: C.Config, outer: C.Outer) async -> C.Staged<[Double]> {
        let m = outer.vector.count
        let parts = await C.children(C.blocks(rows: m, workers: workers)) { rows in
            outer.matrix.withUnsafeBufferPointer { matrix in
                outer.vector.withUnsafeBufferPointer { vector in
                    C.filledTimed(rows.count) { C.productRows(rows, matrix: matrix, vector: vector, into: $0) }
                }
            }
        }
        return C.Staged(C.assemble(parts.map(\.value), count: m), computeNs: parts.map(\.ns).max())
    }
}
