import Separate
import Foundation
import XCTest
@testable import ConcbenchKernels

/// The Cowichan kernels: rule 2's partition, the thresh tie rule, the winnow order and pick,
/// outer, product and the quantisation on hand-made inputs; every stage against a direct
/// computation from the spec's definitions; and every model (gcd, sc at several W) against
/// seq on small random inputs, n < W included.
final class CowichanTests: XCTestCase {
    typealias C = Cowichan

    // MARK: independent computations, written from the spec's definitions

    /// randmat with the generator kept in 64 bits and masked after every step.
    static func directRandmat(n: Int, seed: UInt32) -> [UInt8] {
        var cells: [UInt8] = []
        for i in 0..<n {
            var s = (UInt64(seed) + UInt64(i)) & 0xFFFF_FFFF
            for _ in 0..<n {
                s = (1_664_525 * s + 1_013_904_223) & 0xFFFF_FFFF
                cells.append(UInt8(s % 100))
            }
        }
        return cells
    }

    /// thresh's t by its closed form: the largest v with #{cells ≥ v} > ⌊cells·p/100⌋, else 0.
    static func directThreshold(_ matrix: [UInt8], percent: Int) -> Int {
        let count = matrix.count * percent / 100
        return (0...255).last { v in matrix.filter { Int($0) >= v }.count > count } ?? 0
    }

    /// winnow with tuples sorted by Swift's tuple order.
    static func directWinnow(_ matrix: [UInt8], _ mask: [UInt8], n: Int, nelts: Int) -> C.Winnowed? {
        var list: [(Int, Int, Int)] = []
        for i in 0..<n {
            for j in 0..<n where mask[i * n + j] == 1 {
                list.append((Int(matrix[i * n + j]), i, j))
            }
        }
        list.sort { $0 < $1 }
        guard list.count >= nelts else { return nil }
        let chunk = list.count / nelts
        return C.Winnowed(
            candidates: list.count, points: (0..<nelts).map { C.Point(x: list[$0 * chunk].1, y: list[$0 * chunk].2) })
    }

    static func directOuter(_ points: [C.Point]) -> C.Outer {
        let m = points.count
        var matrix = [Double](repeating: 0, count: m * m)
        var vector: [Double] = []
        for i in 0..<m {
            var largest = -1.0
            for j in 0..<m where j != i {
                let dx = Double(points[i].x - points[j].x)
                let dy = Double(points[i].y - points[j].y)
                matrix[i * m + j] = sqrt(dx * dx + dy * dy)
                largest = max(largest, matrix[i * m + j])
            }
            matrix[i * m + i] = Double(m) * largest
            let (x, y) = (Double(points[i].x), Double(points[i].y))
            vector.append(sqrt(x * x + y * y))
        }
        return C.Outer(matrix: matrix, vector: vector)
    }

    static func directProduct(_ outer: C.Outer) -> [Double] {
        let m = outer.vector.count
        return (0..<m).map { i in
            var acc = 0.0
            for j in 0..<m {
                let t = outer.matrix[i * m + j] * outer.vector[j]
                acc += t
            }
            return acc
        }
    }

    // MARK: rule 2 and the generator

    func testRowPartition() {
        let sizes = { (rows: Int, workers: Int) in C.blocks(rows: rows, workers: workers).map(\.count) }
        // The spec's two examples.
        XCTAssertEqual(sizes(10, 4), [2, 2, 3, 3])
        XCTAssertEqual(sizes(10000, 32), [Int](repeating: 312, count: 16) + [Int](repeating: 313, count: 16))
        // Fewer rows than workers: the empty blocks come first and are not started.
        XCTAssertEqual(sizes(3, 7), [1, 1, 1])
        XCTAssertEqual(C.blocks(rows: 3, workers: 7), [0..<1, 1..<2, 2..<3])
        XCTAssertEqual(sizes(0, 3), [])
        for rows in 0...40 {
            for workers in 1...12 {
                let blocks = C.blocks(rows: rows, workers: workers)
                XCTAssertEqual(blocks.count, min(rows, workers), "R=\(rows) W=\(workers)")
                // Contiguous, in order, covering [0, R), the smaller blocks first, none differing by more than one.
                XCTAssertEqual(blocks.first?.lowerBound ?? 0, 0)
                XCTAssertEqual(blocks.last?.upperBound ?? 0, rows)
                for (a, b) in zip(blocks, blocks.dropFirst()) {
                    XCTAssertEqual(a.upperBound, b.lowerBound)
                    XCTAssertLessThanOrEqual(a.count, b.count)
                }
                if let first = blocks.first, let last = blocks.last {
                    XCTAssertLessThanOrEqual(last.count - first.count, 1)
                }
                // The rule itself, with the empty blocks kept.
                var start = 0
                var expected: [Int] = []
                for w in 0..<workers {
                    let h = (rows - start) / (workers - w)
                    expected.append(h)
                    start += h
                }
                XCTAssertEqual(sizes(rows, workers), expected.filter { $0 > 0 })
            }
        }
    }

    func testRandmatRowsFollowTheirGenerators() {
        let seq = SeqStages()
        // The spec's check value: seed 0's first draw mod 100 is 23.
        XCTAssertEqual(seq.randmat(C.Config(n: 1)).value, [23])
        for (n, seed) in [(1, UInt32(0)), (7, 12345), (20, UInt32.max - 3), (33, 0xDEAD_BEEF)] {
            XCTAssertEqual(seq.randmat(C.Config(n: n, seed: seed)).value, Self.directRandmat(n: n, seed: seed))
        }
        // seed + i wraps: with seed 2^32 − 1, row 1 is seed 0's row 0.
        let wrapped = seq.randmat(C.Config(n: 5, seed: .max)).value
        XCTAssertEqual(Array(wrapped[5..<10]), Array(seq.randmat(C.Config(n: 5, seed: 0)).value[0..<5]))
    }

    // MARK: hand-made inputs

    func testThresholdTieRule() {
        var h = C.Histogram()
        (h.counts[99], h.counts[98], h.counts[97], h.counts[0]) = (5, 3, 10, 82)
        h.maximum = 99
        let t = { (percent: Int) in C.threshold(h, cells: 100, percent: percent) }
        XCTAssertEqual(t(0), 99)  // count 0: the top bin alone exceeds it
        XCTAssertEqual(t(4), 99)  // 5 > 4
        XCTAssertEqual(t(5), 98)  // 5 is not above 5: the next bin is taken whole
        XCTAssertEqual(t(7), 98)
        XCTAssertEqual(t(8), 97)
        // 18 cells ≥ 97 do not exceed 18: the empty bins change nothing and the scan ends at 0.
        XCTAssertEqual(t(18), 0)
        XCTAssertEqual(t(100), 0)

        // A whole matrix: 9 9 5 / 5 5 1 / 1 1 1.
        let matrix: [UInt8] = [9, 9, 5, 5, 5, 1, 1, 1, 1]
        for percent in [0, 11, 22, 23, 50, 55, 56, 100] {
            let expected = Self.directThreshold(matrix, percent: percent)
            let mask = matrix.map { Int($0) >= expected ? UInt8(1) : 0 }
            for model in models(workers: [1, 2, 3, 7]) {
                let got = model.thresh(C.Config(n: 3, percent: percent), matrix)
                XCTAssertEqual(got, C.Mask(threshold: expected, cells: mask), "\(model.name) p=\(percent)")
            }
        }
        XCTAssertEqual(Self.directThreshold(matrix, percent: 22), 9)  // count 1: two 9s exceed it
        XCTAssertEqual(Self.directThreshold(matrix, percent: 23), 5)  // count 2: the 5s join
    }

    func testWinnowSortsByValueThenRowThenColumn() throws {
        // 7 3 7 / 3 7 3 / 7 3 3, with (1,1) and (2,2) masked out.
        let matrix: [UInt8] = [7, 3, 7, 3, 7, 3, 7, 3, 3]
        let mask: [UInt8] = [1, 1, 1, 1, 0, 1, 1, 1, 0]
        // Sorted: (3,0,1) (3,1,0) (3,1,2) (3,2,1) (7,0,0) (7,0,2) (7,2,0).
        let all = [(0, 1), (1, 0), (1, 2), (2, 1), (0, 0), (0, 2), (2, 0)].map { C.Point(x: $0.0, y: $0.1) }
        let cases: [(nelts: Int, picked: [C.Point])] = [
            (7, all), (3, [all[0], all[2], all[4]]), (2, [all[0], all[3]]), (1, [all[0]]),
        ]
        for (nelts, picked) in cases {
            for model in models(workers: [1, 2, 3, 7]) {
                let got = try model.winnow(C.Config(n: 3, nelts: nelts), matrix, mask)
                XCTAssertEqual(got, C.Winnowed(candidates: 7, points: picked), "\(model.name) nelts=\(nelts)")
            }
        }
        for model in models(workers: [1, 3]) {
            XCTAssertThrowsError(try model.winnow(C.Config(n: 3, nelts: 8), matrix, mask), model.name)
        }
    }

    func testKeysAndMerge() {
        let big = C.maxN - 1
        XCTAssertLessThan(C.key(value: 1, i: 0, j: big), C.key(value: 1, i: 1, j: 0))
        XCTAssertLessThan(C.key(value: 1, i: big, j: big), C.key(value: 2, i: 0, j: 0))
        XCTAssertEqual(C.point(C.key(value: 99, i: big, j: 12345)), C.Point(x: big, y: 12345))
        XCTAssertEqual(C.mergeRuns([]), [])
        XCTAssertEqual(C.mergeRuns([[], [3, 9], [1, 4, 10], [], [2]]), [1, 2, 3, 4, 9, 10])
    }

    func testOuterHandMade() {
        let points = [C.Point(x: 0, y: 0), C.Point(x: 3, y: 4), C.Point(x: 6, y: 8)]
        let expected = C.Outer(matrix: [30, 5, 10, 5, 15, 5, 10, 5, 30], vector: [0, 5, 10])
        for model in models(workers: [1, 2, 3, 7]) {
            XCTAssertEqual(model.outer(C.Config(n: 3), points), expected, model.name)
            // One point: the running maximum stays at −1.
            XCTAssertEqual(
                model.outer(C.Config(n: 1), [C.Point(x: 3, y: 4)]), C.Outer(matrix: [-1], vector: [5]), model.name)
        }
    }

    func testProductKeepsTheSummationOrder() {
        let a = 1 + 0x1p-30
        // Row 0: ascending, 1 + 1e16 rounds to 1e16 and the row sums to 0 (reversed it would be 1).
        // Row 1: a·a rounds before the add, so the row is 0; a fused multiply-add would leave 2^-60.
        let outer = C.Outer(matrix: [1, 1e16, -1e16, 0, 0, 0, -(1 + 0x1p-29), 0, a], vector: [1, 1, 1])
        let outer2 = C.Outer(matrix: [-(1 + 0x1p-29), a, 3, 4], vector: [1, a])
        for model in models(workers: [1, 2, 3, 7]) {
            XCTAssertEqual(model.product(C.Config(n: 3), outer), [0, 0, -(1 + 0x1p-29) + a], model.name)
            XCTAssertEqual(model.product(C.Config(n: 2), outer2)[0], 0, model.name)
            XCTAssertEqual(
                model.product(C.Config(n: 2), C.Outer(matrix: [1, 2, 3, 4], vector: [10, 100])), [210, 430])
        }
    }

    func testQuantisationAndChecksums() {
        // 0.0078125 = 2^-7 is exact and ·1e6 is exactly 7812.5: half away from zero.
        XCTAssertEqual(C.quantise(0.0078125), 7813)
        XCTAssertEqual(C.quantise(-0.0078125), -7813)
        XCTAssertEqual(C.quantise(0), 0)
        XCTAssertEqual(C.quantise(24), 24_000_000)
        XCTAssertEqual(C.quantise(1e300), .max)
        XCTAssertEqual(C.quantise(-1e300), .min)
        // A negative q enters as its two's-complement pattern.
        XCTAssertEqual(C.quantisedChecksum([-0.000001]), .max)
        XCTAssertEqual(C.quantisedChecksum([1, 0.5]), 1_000_000 + 2 * 500_000)
        XCTAssertEqual(C.checksum([1, 0, 3]), 1 + 9)
        // [x0, y0, x1, y1] weighted 1, 2, 3, 4.
        XCTAssertEqual(C.pointChecksum([C.Point(x: 1, y: 2), C.Point(x: 3, y: 4)]), 1 + 4 + 9 + 16)
        XCTAssertEqual(
            C.threshResult(C.Mask(threshold: 7, cells: [0, 1, 1])), "threshold=7 kept=2 checksum=5")
    }

    // MARK: every model against seq and the direct computations

    /// Random small tuples (from a fixed LCG, so a failure repeats), n < W among them.
    func testModelsAgreeOnRandomInputs() throws {
        var draws = LCG32(seed: 2024)
        for n in [1, 2, 3, 5, 8, 13, 24] {
            for percent in [0, 1, 10, 100] {
                let seed = draws.step()
                let config = C.Config(n: n, percent: percent, seed: seed)
                let matrix = Self.directRandmat(n: n, seed: seed)
                let t = Self.directThreshold(matrix, percent: percent)
                let mask = matrix.map { Int($0) >= t ? UInt8(1) : 0 }
                let candidates = mask.reduce(0) { $0 + Int($1) }
                for nelts in Set([1, max(1, candidates / 3), min(candidates, n), candidates]) {
                    let c = C.Config(n: n, percent: percent, nelts: nelts, seed: seed)
                    let winnowed = try XCTUnwrap(Self.directWinnow(matrix, mask, n: n, nelts: nelts))
                    let outer = Self.directOuter(winnowed.points)
                    let r = Self.directProduct(outer)
                    for model in models(workers: [1, 2, 3, 7]) {
                        let label = "\(model.name) n=\(n) p=\(percent) nelts=\(nelts) seed=\(seed)"
                        XCTAssertEqual(model.randmat(config), matrix, label)
                        XCTAssertEqual(model.thresh(config, matrix), C.Mask(threshold: t, cells: mask), label)
                        XCTAssertEqual(try model.winnow(c, matrix, mask), winnowed, label)
                        XCTAssertEqual(model.outer(c, winnowed.points), outer, label)
                        XCTAssertEqual(model.product(c, outer), r, label)
                    }
                }
            }
        }
    }

    /// The public entry points: the prepared stages and chain give seq's strings under every
    /// model and W, with the metrics each model owes.
    func testEntryPointsAgreeAndReportMetrics() async throws {
        let runtimes = Configuration.allCases.map { Runtime(workers: 2, configuration: $0) }
        defer { runtimes.forEach { $0.shutdown() } }
        // Each p keeps more than n cells, so nelts = n can be picked.
        for (n, percent) in [(1, 1), (4, 50), (17, 10), (30, 5)] {
            for benchmark in C.Benchmark.allCases {
                let reference = try C.seq(C.prepare(benchmark, C.Config(n: n, percent: percent, seed: 7)))
                XCTAssertEqual(reference.metrics.map(\.name), benchmark == .chain ? stageNames : [])
                for workers in [1, 2, 3, 7] {
                    let input = C.prepare(benchmark, C.Config(n: n, percent: percent, seed: 7, workers: workers))
                    let label = "\(benchmark) n=\(n) W=\(workers)"
                    let gcd = try C.gcd(input)
                    XCTAssertEqual(gcd.result, reference.result, label)
                    XCTAssertEqual(gcd.metrics.map(\.name), benchmark == .chain ? stageNames : [], label)
                    let sc = try await C.sc(input)
                    XCTAssertEqual(sc.result, reference.result, label)
                    let names = (benchmark == .chain ? stageNames : []) + ["compute_ns"]
                    var samples = [("sc", sc)]
                    for runtime in runtimes {
                        samples.append(("qs \(runtime.configuration)", try await C.qs(runtime, input)))
                    }
                    for (model, sample) in samples {
                        XCTAssertEqual(sample.result, reference.result, "\(model) \(label)")
                        XCTAssertEqual(sample.metrics.map(\.name), names, "\(model) \(label)")
                        for metric in sample.metrics {
                            guard case .integer(let value) = metric.value else { return XCTFail(label) }
                            XCTAssertGreaterThanOrEqual(value, 0, "\(model) \(label)")
                        }
                    }
                }
            }
        }
    }

    func testTooFewCandidatesFailsTheRun() async {
        // p = 0 at n = 1 keeps the one cell: nelts = 2 cannot be picked.
        let config = C.Config(n: 1, percent: 0, nelts: 2, workers: 2)
        for benchmark in [C.Benchmark.winnow, .outer, .product, .chain] {
            let input = C.prepare(benchmark, config)
            XCTAssertThrowsError(try C.seq(input), "\(benchmark)")
            XCTAssertThrowsError(try C.gcd(input), "\(benchmark)")
            do {
                _ = try await C.sc(input)
                XCTFail("sc \(benchmark) accepted")
            } catch {
                XCTAssertTrue(error.description.contains("nelts=2"), error.description)
            }
            let runtime = Runtime(workers: 2)
            do {
                _ = try await C.qs(runtime, input)
                XCTFail("qs \(benchmark) accepted")
            } catch {
                XCTAssertTrue(error.description.contains("nelts=2"), error.description)
            }
            runtime.shutdown()
        }
        XCTAssertNoThrow(try C.seq(C.prepare(.thresh, config)))
    }

    // MARK: the models behind one interface

    let stageNames = ["randmat", "thresh", "winnow", "outer", "product"].map { "stage_\($0)_ns" }

    /// One model's stages, with sc's awaited on a thread of their own.
    struct Model {
        let name: String
        let randmat: (C.Config) -> [UInt8]
        let thresh: (C.Config, [UInt8]) -> C.Mask
        let winnow: (C.Config, [UInt8], [UInt8]) throws -> C.Winnowed
        let outer: (C.Config, [C.Point]) -> C.Outer
        let product: (C.Config, C.Outer) -> [Double]
    }

    func models(workers: [Int]) -> [Model] {
        let seq = SeqStages()
        var list = [
            Model(
                name: "seq", randmat: { seq.randmat($0).value }, thresh: { seq.thresh($0, matrix: $1).value },
                winnow: { try seq.winnow($0, matrix: $1, mask: $2).value }, outer: { seq.outer($0, points: $1).value },
                product: { seq.product($0, outer: $1).value })
        ]
        for w in workers {
            let gcd = GCDStages(workers: w)
            list.append(
                Model(
                    name: "gcd W=\(w)", randmat: { gcd.randmat($0).value },
                    thresh: { gcd.thresh($0, matrix: $1).value },
                    winnow: { try gcd.winnow($0, matrix: $1, mask: $2).value },
                    outer: { gcd.outer($0, points: $1).value }, product: { gcd.product($0, outer: $1).value }))
            let sc = SCStages(workers: w)
            list.append(
                Model(
                    name: "sc W=\(w)", randmat: { c in Self.blockingOn { await sc.randmat(c).value } },
                    thresh: { c, m in Self.blockingOn { await sc.thresh(c, matrix: m).value } },
                    winnow: { c, m, k in
                        try Self.blockingOn { () async -> Result<C.Winnowed, C.Failure> in
                            do throws(C.Failure) {
                                return .success(try await sc.winnow(c, matrix: m, mask: k).value)
                            } catch {
                                return .failure(error)
                            }
                        }.get()
                    },
                    outer: { c, p in Self.blockingOn { await sc.outer(c, points: p).value } },
                    product: { c, o in Self.blockingOn { await sc.product(c, outer: o).value } }))
        }
        return list
    }

    /// Runs an async body to completion from synchronous test code; the Task runs on the
    /// global executor, never on this (blocked) thread.
    static func blockingOn<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let box = Box<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            box.value = await body()
            done.signal()
        }
        done.wait()
        return box.value!
    }
}

/// A value handed from a Task to the waiting thread: written before the signal, read after.
private final class Box<T>: @unchecked Sendable {
    var value: T?
}
