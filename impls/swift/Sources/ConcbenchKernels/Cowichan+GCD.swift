import Dispatch

/// A pointer into a buffer whose disjoint slices concurrentPerform's iterations write:
/// rule 2's blocks never overlap, and concurrentPerform returns only after its last
/// iteration, so every write is ordered before the caller reads the buffer.
struct DisjointSlices<T>: @unchecked Sendable {
    let base: UnsafeMutablePointer<T>
}

/// One result slot per iteration, each written by exactly that iteration and read after
/// concurrentPerform returns.
final class IterationSlots<T>: @unchecked Sendable {
    private let storage: UnsafeMutableBufferPointer<T?>

    init(count: Int) {
        storage = .allocate(capacity: count)
        storage.initialize(repeating: nil)
    }

    deinit {
        _ = storage.deinitialize()
        storage.deallocate()
    }

    subscript(index: Int) -> T? {
        get { storage[index] }
        set { storage[index] = newValue }
    }

    /// Every slot's value in iteration order; call only after the join.
    func values() -> [T] {
        storage.map { $0! }
    }
}

extension Cowichan {
    /// gcd/concurrent-perform: every stage is DispatchQueue.concurrentPerform with one
    /// iteration per rule-2 block (W of them, fewer only when rows < W), writing disjoint
    /// slices of the main context's arrays; thresh and winnow reduce on the caller.
    public static func gcd(_ input: Prepared) throws(Failure) -> Sample {
        try run(GCDStages(workers: input.config.workers), input)
    }

    /// An array of `rows`·`width` trivial elements, block w's rows written by iteration w.
    /// `fill` gets the block and the pointer to its first row.
    static func filledInParallel<T: BitwiseCopyable>(
        rows: Int, width: Int, workers: Int,
        _ fill: @escaping @Sendable (Range<Int>, UnsafeMutablePointer<T>) -> Void
    ) -> [T] {
        let blocks = Cowichan.blocks(rows: rows, workers: workers)
        return filled(rows * width) { base in
            let out = DisjointSlices(base: base)
            DispatchQueue.concurrentPerform(iterations: blocks.count) { w in
                fill(blocks[w], out.base + blocks[w].lowerBound * width)
            }
        }
    }
}

struct GCDStages: BlockingStages {
    typealias C = Cowichan
    let workers: Int

    func randmat(_ c: C.Config) -> C.Staged<[UInt8]> {
        let (n, seed) = (c.n, c.seed)
        return C.Staged(
            C.filledInParallel(rows: n, width: n, workers: workers) { rows, out in
                C.randmatRows(rows, n: n, seed: seed, into: out)
            })
    }

    func thresh(_ c: C.Config, matrix: [UInt8]) -> C.Staged<C.Mask> {
        let n = c.n
        let blocks = C.blocks(rows: n, workers: workers)
        // Partial histograms in per-iteration slots, merged on the caller.
        let partials = IterationSlots<C.Histogram>(count: blocks.count)
        DispatchQueue.concurrentPerform(iterations: blocks.count) { w in
            let rows = blocks[w]
            partials[w] = matrix.withUnsafeBufferPointer { cells in
                C.histogram(UnsafeBufferPointer(rebasing: cells[rows.lowerBound * n..<rows.upperBound * n]))
            }
        }
        var histogram = C.Histogram()
        for partial in partials.values() {
            histogram.merge(partial)
        }
        let t = C.threshold(histogram, cells: n * n, percent: c.percent)
        let mask: [UInt8] = C.filledInParallel(rows: n, width: n, workers: workers) { rows, out in
            matrix.withUnsafeBufferPointer { cells in
                C.maskCells(
                    UnsafeBufferPointer(rebasing: cells[rows.lowerBound * n..<rows.upperBound * n]), threshold: t,
                    into: out)
            }
        }
        return C.Staged(C.Mask(threshold: t, cells: mask))
    }

    func winnow(_ c: C.Config, matrix: [UInt8], mask: [UInt8]) throws(C.Failure) -> C.Staged<C.Winnowed> {
        let n = c.n
        let blocks = C.blocks(rows: n, workers: workers)
        // Each iteration gathers and sorts its block into its slot; the caller merges.
        let runs = IterationSlots<[UInt64]>(count: blocks.count)
        DispatchQueue.concurrentPerform(iterations: blocks.count) { w in
            runs[w] = matrix.withUnsafeBufferPointer { matrix in
                mask.withUnsafeBufferPointer { mask in
                    C.sortedCandidates(blocks[w], n: n, matrix: matrix, mask: mask)
                }
            }
        }
        return C.Staged(try C.select(C.mergeRuns(runs.values()), nelts: c.nelts))
    }

    func outer(_ c: C.Config, points: [C.Point]) -> C.Staged<C.Outer> {
        let m = points.count
        let blocks = C.blocks(rows: m, workers: workers)
        var matrix: [Double] = []
        let vector: [Double] = C.filled(m) { vectorBase in
            matrix = C.filled(m * m) { matrixBase in
                let (d, v) = (DisjointSlices(base: matrixBase), DisjointSlices(base: vectorBase))
                DispatchQueue.concurrentPerform(iterations: blocks.count) { w in
                    let rows = blocks[w]
                    points.withUnsafeBufferPointer { points in
                        C.outerRows(
                            rows, points: points, matrix: d.base + rows.lowerBound * m,
                            vector: v.base + rows.lowerBound)
                    }
                }
            }
        }
        return C.Staged(C.Outer(matrix: matrix, vector: vector))
    }

    func product(_ c: C.Config, outer: C.Outer) -> C.Staged<[Double]> {
        C.Staged(
            C.filledInParallel(rows: outer.vector.count, width: 1, workers: workers) { rows, out in
                outer.matrix.withUnsafeBufferPointer { matrix in
                    outer.vector.withUnsafeBufferPointer { vector in
                        C.productRows(rows, matrix: matrix, vector: vector, into: out)
                    }
                }
            })
    }
}
