import Separate

/// qs: the Cowichan kernels as the specs' SCOOP/Qs programs (chain.md and each stage's "SCOOP/Qs
/// (source)"), on the Separate runtime. Every worker is an object on its own handler and gets its
/// work as calls; input main holds lives in separate objects the workers pull from, and main pulls
/// the results back, both by queries, one element each, in query loops (`Reserved.query(each:)`).
/// Those pulls are the communication the paper's T − C measures and its sync coalescing attacks:
/// under `none` and `qoq` every query syncs; under `dynamic` a loop's first query syncs and the rest
/// check that it still holds; under `static` and `all` the loop syncs once and reads plainly.
/// `compute_ns` is the longest worker's compute without the pulls (thresh: both phases; winnow: plus
/// main's sort and pick; chain: the stages' sum).
extension Cowichan {
    public static nonisolated(nonsending) func qs(
        _ runtime: Runtime, _ input: Prepared
    ) async throws(Failure) -> Sample {
        // Main is a client too: it runs on the runtime's threads.
        let outcome = await runtime.run { () async -> Result<Sample, Failure> in
            do throws(Failure) {
                return .success(try await run(QSStages(runtime: runtime, workers: input.config.workers), input))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}

/// A worker object: its row block and what it computed there. Only its handler's calls touch it,
/// and main's queries while main holds it synced.
final class QSWorker {
    let rows: Range<Int>
    /// Calls run to the end: main's wait conditions count them.
    var finished = 0
    /// Compute time so far, without the pulls.
    var computeNs: UInt64 = 0
    var cells: [UInt8] = []
    var mask: [UInt8] = []
    var run: [UInt64] = []
    /// chain: its rows of outer's matrix (a block over nelts, not over n).
    var outerRows: Range<Int> = 0..<0
    var matrix: [Double] = []
    var vector: [Double] = []
    var product: [Double] = []

    init(rows: Range<Int>) { self.rows = rows }

    /// Runs `body` and adds its time to the compute.
    func computing<T>(_ body: () -> T) -> T {
        let t0 = monotonicNanos()
        let value = body()
        computeNs &+= monotonicNanos() &- t0
        return value
    }
}

/// An object main owns and shares with the workers as a separate object.
final class Shared<Value> {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// Copies elements `indices` of a reserved object out, one query each (`Reserved.query(each:)`).
nonisolated(nonsending) func pull<Object: AnyObject, T>(
    _ reserved: Reserved<Object>, _ indices: Range<Int>, _ element: (Object, Int) -> T
) async -> [T] {
    var out: [T] = []
    out.reserveCapacity(indices.count)
    await reserved.query(each: indices, into: &out, element)
    return out
}

/// Main's side of the workers: their handlers, its own client, and how many calls it logged on each,
/// so that it can wait for them all (`separate w require w.finished = k`).
struct Crew {
    let workers: [Handler<QSWorker>]
    let main: Client
    private var logged: [Int]
    private var computed: [UInt64]

    init(_ runtime: Runtime, blocks: [Range<Int>]) {
        workers = blocks.map { Handler(QSWorker(rows: $0), runtime: runtime) }
        main = Client(runtime)
        logged = Array(repeating: 0, count: blocks.count)
        computed = Array(repeating: 0, count: blocks.count)
    }

    var count: Int { workers.count }

    /// Logs a call on worker w.
    mutating nonisolated(nonsending) func log(_ w: Int, _ command: @escaping @Sendable (QSWorker) -> Void) async {
        logged[w] += 1
        await main.separate(workers[w]) { await $0.call { worker in
            command(worker)
            worker.finished += 1
        } }
    }

    /// Logs a call on worker w that is a client of other handlers.
    mutating nonisolated(nonsending) func log(
        _ w: Int, _ command: nonisolated(nonsending) @escaping @Sendable (QSWorker, Client) async -> Void
    ) async {
        logged[w] += 1
        await main.separate(workers[w]) { await $0.call { worker, client in
            await command(worker, client)
            worker.finished += 1
        } }
    }

    /// Waits until worker w has run every call logged on it, then runs `body` on it in that block.
    nonisolated(nonsending) func whenDone<R>(_ w: Int, _ body: (Reserved<QSWorker>) async -> R) async -> R {
        let expected = logged[w]
        return await main.separate(workers[w], until: { $0.finished == expected }, body)
    }

    /// Waits for every worker, and returns the longest compute any of them did since the last call.
    mutating nonisolated(nonsending) func stageDone() async -> UInt64 {
        var longest: UInt64 = 0
        for w in workers.indices {
            let total = await whenDone(w) { await $0.query { $0.computeNs } }
            longest = max(longest, total &- computed[w])
            computed[w] = total
        }
        return longest
    }
}

struct QSStages: AsyncStages {
    typealias C = Cowichan
    let runtime: Runtime
    let workers: Int

    func crew(rows: Int) -> Crew { Crew(runtime, blocks: C.blocks(rows: rows, workers: workers)) }

    nonisolated(nonsending) func randmat(_ c: C.Config) async -> C.Staged<[UInt8]> {
        let (n, seed) = (c.n, c.seed)
        var crew = crew(rows: n)
        for w in 0..<crew.count { await crew.log(w) { $0.fill(n: n, seed: seed) } }
        var matrix: [UInt8] = []
        matrix.reserveCapacity(n * n)
        var computeNs: UInt64 = 0
        for w in 0..<crew.count {
            // `separate worker require worker.done`: its geometry and compute time; then a second
            // block copies its cells.
            let (rows, ns) = await crew.whenDone(w) { w in (await w.query { $0.rows }, await w.query { $0.computeNs }) }
            computeNs = max(computeNs, ns)
            await crew.main.separate(crew.workers[w]) { w in
                await w.query(each: 0..<rows.count * n, into: &matrix) { $0.cells[$1] }
            }
        }
        return C.Staged(matrix, computeNs: computeNs)
    }

    nonisolated(nonsending) func thresh(_ c: C.Config, matrix: [UInt8]) async -> C.Staged<C.Mask> {
        let n = c.n
        let input = Handler(Shared(matrix), runtime: runtime)
        var crew = crew(rows: n)
        let totals = Reductions(runtime)
        for w in 0..<crew.count {
            await crew.log(w) { worker, client in
                let range = worker.rows.lowerBound * n..<worker.rows.upperBound * n
                worker.cells = await client.separate(input) { m in await pull(m, range) { $0.value[$1] } }
                await totals.merge(worker.histogram(), client)
            }
        }
        _ = await crew.stageDone()
        let t = await totals.threshold(crew.main, cells: n * n, percent: c.percent)
        // The broadcast: every worker masks its own rows.
        for w in 0..<crew.count { await crew.log(w) { $0.maskCells(threshold: t) } }
        var mask: [UInt8] = []
        mask.reserveCapacity(n * n)
        var computeNs: UInt64 = 0
        for w in 0..<crew.count {
            await crew.whenDone(w) { w in
                computeNs = max(computeNs, await w.query { $0.computeNs })
                let count = await w.query { $0.mask.count }
                await w.query(each: 0..<count, into: &mask) { $0.mask[$1] }
            }
        }
        return C.Staged(C.Mask(threshold: t, cells: mask), computeNs: computeNs)
    }

    nonisolated(nonsending) func winnow(
        _ c: C.Config, matrix: [UInt8], mask: [UInt8]
    ) async throws(C.Failure) -> C.Staged<C.Winnowed> {
        let n = c.n
        let (cells, marks) = (Handler(Shared(matrix), runtime: runtime), Handler(Shared(mask), runtime: runtime))
        var crew = crew(rows: n)
        for w in 0..<crew.count {
            await crew.log(w) { worker, client in
                let range = worker.rows.lowerBound * n..<worker.rows.upperBound * n
                (worker.cells, worker.mask) = await client.separate(cells, marks) { m, k in
                    (await pull(m, range) { $0.value[$1] }, await pull(k, range) { $0.value[$1] })
                }
                worker.gather(n: n)
            }
        }
        var all: [UInt64] = []
        let workerNs = await crew.stageDone()
        for w in 0..<crew.count {
            await crew.whenDone(w) { w in
                let count = await w.query { $0.run.count }
                await w.query(each: 0..<count, into: &all) { $0.run[$1] }
            }
        }
        // main sorts the candidates and picks the points, sequentially.
        let t0 = monotonicNanos()
        all.sort()
        let winnowed = try C.select(all, nelts: c.nelts)
        return C.Staged(winnowed, computeNs: workerNs + (monotonicNanos() &- t0))
    }

    nonisolated(nonsending) func outer(_ c: C.Config, points: [C.Point]) async -> C.Staged<C.Outer> {
        let m = points.count
        let list = Handler(Shared(points), runtime: runtime)
        var crew = crew(rows: m)
        for w in 0..<crew.count {
            await crew.log(w) { worker, client in
                let points = await client.separate(list) { p in await pull(p, 0..<m) { $0.value[$1] } }
                worker.outer(worker.rows, points: points)
            }
        }
        let computeNs = await crew.stageDone()
        var outer = C.Outer(matrix: [], vector: [])
        outer.matrix.reserveCapacity(m * m)
        outer.vector.reserveCapacity(m)
        for w in 0..<crew.count {
            await crew.whenDone(w) { w in
                let rows = await w.query { $0.vector.count }
                await w.query(each: 0..<rows * m, into: &outer.matrix) { $0.matrix[$1] }
                await w.query(each: 0..<rows, into: &outer.vector) { $0.vector[$1] }
            }
        }
        return C.Staged(outer, computeNs: computeNs)
    }

    nonisolated(nonsending) func product(_ c: C.Config, outer: C.Outer) async -> C.Staged<[Double]> {
        let m = outer.vector.count
        let matrix = Handler(Shared(outer.matrix), runtime: runtime)
        let vector = Handler(Shared(outer.vector), runtime: runtime)
        var crew = crew(rows: m)
        for w in 0..<crew.count {
            await crew.log(w) { worker, client in
                let rows = worker.rows
                let v = await client.separate(vector) { v in await pull(v, 0..<m) { $0.value[$1] } }
                worker.matrix = await client.separate(matrix) { d in
                    await pull(d, rows.lowerBound * m..<rows.upperBound * m) { $0.value[$1] }
                }
                worker.multiply(rows: rows.count, by: v)
            }
        }
        let computeNs = await crew.stageDone()
        var r: [Double] = []
        r.reserveCapacity(m)
        for w in 0..<crew.count {
            await crew.whenDone(w) { w in
                let rows = await w.query { $0.product.count }
                await w.query(each: 0..<rows, into: &r) { $0.product[$1] }
            }
        }
        return C.Staged(r, computeNs: computeNs)
    }

    /// chain: the workers keep their row blocks through randmat, thresh and winnow's gather; their
    /// sorted runs are merged pairwise in a tree whose stride doubles; the chosen points go to
    /// every worker for outer; main gathers v into a separate vector the workers pull for product.
    nonisolated(nonsending) func chain(_ c: C.Config) async throws(C.Failure) -> Sample {
        let (n, seed, m) = (c.n, c.seed, c.nelts)
        var clock = [monotonicNanos()]
        var computeNs: [UInt64?] = []
        var crew = crew(rows: n)
        // randmat
        for w in 0..<crew.count { await crew.log(w) { $0.fill(n: n, seed: seed) } }
        computeNs.append(await crew.stageDone())
        clock.append(monotonicNanos())
        // thresh
        let totals = Reductions(runtime)
        for w in 0..<crew.count {
            await crew.log(w) { worker, client in await totals.merge(worker.histogram(), client) }
        }
        var threshNs = await crew.stageDone()
        let t = await totals.threshold(crew.main, cells: n * n, percent: c.percent)
        for w in 0..<crew.count { await crew.log(w) { $0.maskCells(threshold: t) } }
        threshNs += await crew.stageDone()
        computeNs.append(threshNs)
        clock.append(monotonicNanos())
        // winnow
        for w in 0..<crew.count { await crew.log(w) { $0.gather(n: n, sorted: true) } }
        var winnowNs = await crew.stageDone()
        var stride = 1
        while stride < crew.count {
            for w in Swift.stride(from: 0, to: crew.count - stride, by: 2 * stride) {
                let other = crew.workers[w + stride]
                await crew.log(w) { worker, client in
                    let theirs = await client.separate(other) { o in
                        await pull(o, 0..<(await o.query { $0.run.count })) { $0.run[$1] }
                    }
                    worker.computing { worker.run = C.merge(worker.run, theirs) }
                }
            }
            winnowNs += await crew.stageDone()
            stride *= 2
        }
        let (candidates, points) = await crew.whenDone(0) { first in
            let candidates = await first.query { $0.run.count }
            guard candidates >= m else { return (candidates, [C.Point]()) }
            let chunk = candidates / m
            return (candidates, await pull(first, 0..<m) { C.point($0.run[$1 * chunk]) })
        }
        guard candidates >= m else { throw C.tooFew(candidates, nelts: m) }
        computeNs.append(winnowNs)
        clock.append(monotonicNanos())
        // outer: the points go to every worker with its block of rows over nelts.
        let blocks = C.blocks(rows: m, workers: workers)
        for (w, rows) in blocks.enumerated() {
            await crew.log(w) { $0.outer(rows, points: points) }
        }
        computeNs.append(await crew.stageDone())
        clock.append(monotonicNanos())
        // product
        var v: [Double] = []
        v.reserveCapacity(m)
        for (w, rows) in blocks.enumerated() {
            await crew.whenDone(w) { w in await w.query(each: 0..<rows.count, into: &v) { $0.vector[$1] } }
        }
        let vector = Handler(Shared(v), runtime: runtime)
        for w in blocks.indices {
            await crew.log(w) { worker, client in
                let v = await client.separate(vector) { v in await pull(v, 0..<m) { $0.value[$1] } }
                worker.multiply(rows: worker.outerRows.count, by: v)
            }
        }
        computeNs.append(await crew.stageDone())
        var r: [Double] = []
        r.reserveCapacity(m)
        for (w, rows) in blocks.enumerated() {
            await crew.whenDone(w) { w in await w.query(each: 0..<rows.count, into: &r) { $0.product[$1] } }
        }
        clock.append(monotonicNanos())
        return C.chainSample(clock: clock, computeNs: computeNs, result: C.productResult(r))
    }
}

/// thresh's shared reductions: `sep_hist` and `sep_max`, each a separate object. A worker merges
/// into each with read-modify-writes inside one block: the block's no-interleaving guarantee makes
/// them atomic without a lock.
struct Reductions {
    let histogram: Handler<Shared<[Int]>>
    let maximum: Handler<Shared<Int>>

    init(_ runtime: Runtime) {
        histogram = Handler(Shared([Int](repeating: 0, count: 256)), runtime: runtime)
        maximum = Handler(Shared(0), runtime: runtime)
    }

    nonisolated(nonsending) func merge(_ local: Cowichan.Histogram, _ client: Client) async {
        await client.separate(histogram) { h in
            for bin in 0...local.maximum where local.counts[bin] > 0 {
                let sum = await h.query { $0.value[bin] } + local.counts[bin]
                await h.call { $0.value[bin] = sum }
            }
        }
        await client.separate(maximum) { top in
            let seen = await top.query { $0.value }
            if local.maximum > seen { await top.call { [local] in $0.value = local.maximum } }
        }
    }

    /// Main reads both by queries and computes t.
    nonisolated(nonsending) func threshold(_ main: Client, cells: Int, percent: Int) async -> Int {
        let merged = await main.separate(histogram, maximum) { h, top in
            Cowichan.Histogram(counts: await pull(h, 0..<256) { $0.value[$1] }, maximum: await top.query { $0.value })
        }
        return Cowichan.threshold(merged, cells: cells, percent: percent)
    }
}

/// The workers' compute, each on the worker's own rows; `computing` times it.
extension QSWorker {
    func fill(n: Int, seed: UInt32) {
        let rows = self.rows
        cells = computing { Cowichan.filled(rows.count * n) { Cowichan.randmatRows(rows, n: n, seed: seed, into: $0) } }
    }

    func histogram() -> Cowichan.Histogram {
        computing { cells.withUnsafeBufferPointer { Cowichan.histogram($0) } }
    }

    func maskCells(threshold: Int) {
        mask = computing {
            cells.withUnsafeBufferPointer { cells in
                Cowichan.filled(cells.count) { Cowichan.maskCells(cells, threshold: threshold, into: $0) }
            }
        }
    }

    /// winnow's gather over its rows; standalone winnow leaves the sort to main.
    func gather(n: Int, sorted: Bool = false) {
        let rows = self.rows
        run = computing {
            cells.withUnsafeBufferPointer { cells in
                mask.withUnsafeBufferPointer { mask in
                    sorted
                        ? Cowichan.sortedCandidates(rows, n: n, matrix: cells, mask: mask, firstRow: rows.lowerBound)
                        : Cowichan.candidates(rows, n: n, matrix: cells, mask: mask, firstRow: rows.lowerBound)
                }
            }
        }
    }

    /// outer's rows `rows` of D and their slice of v, from the whole point list.
    func outer(_ rows: Range<Int>, points: [Cowichan.Point]) {
        outerRows = rows
        let m = points.count
        var matrix: [Double] = []
        vector = computing {
            Cowichan.filled(rows.count) { vector in
                matrix = Cowichan.filled(rows.count * m) { out in
                    points.withUnsafeBufferPointer { Cowichan.outerRows(rows, points: $0, matrix: out, vector: vector) }
                }
            }
        }
        self.matrix = matrix
    }

    /// product's slice of r: its `rows` rows of D (held from row 0) times v.
    func multiply(rows: Int, by v: [Double]) {
        product = computing {
            matrix.withUnsafeBufferPointer { matrix in
                v.withUnsafeBufferPointer { v in
                    Cowichan.filled(rows) { Cowichan.productRows(0..<rows, matrix: matrix, vector: v, into: $0) }
                }
            }
        }
    }
}
