extension Cowichan {
    /// seq/plain: the stage, or the whole chain, on the calling thread; each stage is one
    /// block of all its rows.
    public static func seq(_ input: Prepared) throws(Failure) -> Sample {
        try run(SeqStages(), input)
    }
}

/// The row kernels over the whole range. Also what builds the standalone stages' inputs.
struct SeqStages: BlockingStages {
    typealias C = Cowichan

    func randmat(_ c: C.Config) -> C.Staged<[UInt8]> {
        let n = c.n
        return C.Staged(C.filled(n * n) { C.randmatRows(0..<n, n: n, seed: c.seed, into: $0) })
    }

    func thresh(_ c: C.Config, matrix: [UInt8]) -> C.Staged<C.Mask> {
        matrix.withUnsafeBufferPointer { cells in
            let t = C.threshold(C.histogram(cells), cells: cells.count, percent: c.percent)
            let mask: [UInt8] = C.filled(cells.count) { C.maskCells(cells, threshold: t, into: $0) }
            return C.Staged(C.Mask(threshold: t, cells: mask))
        }
    }

    func winnow(_ c: C.Config, matrix: [UInt8], mask: [UInt8]) throws(C.Failure) -> C.Staged<C.Winnowed> {
        let sorted = matrix.withUnsafeBufferPointer { matrix in
            mask.withUnsafeBufferPointer { mask in
                C.sortedCandidates(0..<c.n, n: c.n, matrix: matrix, mask: mask)
            }
        }
        return C.Staged(try C.select(sorted, nelts: c.nelts))
    }

    func outer(_ c: C.Config, points: [C.Point]) -> C.Staged<C.Outer> {
        let m = points.count
        var vector = [Double](repeating: 0, count: m)
        let matrix: [Double] = C.filled(m * m) { out in
            points.withUnsafeBufferPointer { points in
                vector.withUnsafeMutableBufferPointer { vector in
                    C.outerRows(0..<m, points: points, matrix: out, vector: vector.baseAddress!)
                }
            }
        }
        return C.Staged(C.Outer(matrix: matrix, vector: vector))
    }

    func product(_ c: C.Config, outer: C.Outer) -> C.Staged<[Double]> {
        let m = outer.vector.count
        return C.Staged(
            C.filled(m) { out in
                outer.matrix.withUnsafeBufferPointer { matrix in
                    outer.vector.withUnsafeBufferPointer { vector in
                        C.productRows(0..<m, matrix: matrix, vector: vector, into: out)
                    }
                }
            })
    }
}
