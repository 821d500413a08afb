import XCTest
@testable import ConcbenchKernels
@testable import concbench_swift

/// mutex, prodcons, condition and threadring: every model and shape at small sizes
/// (n = 1 and a ring of 2 included), each result against the closed form computed
/// here: n·m increments, the items 1...N with N = n·m and their sum N(N+1)/2, 2·n·m
/// steps, and the id a hop-by-hop walk of the ring reaches.
final class CoordinationTests: XCTestCase {
    /// (n, m) pairs: one worker, m = 0, and a few with more workers than cores.
    let sizes = [(1, 0), (1, 1), (1, 50), (2, 1), (3, 37), (8, 100), (16, 20)]

    /// A blocking kernel on a thread of its own, so a deadlock fails instead of hanging.
    func blocking(_ name: String, _ body: @escaping @Sendable () -> Sample) -> Sample? {
        let sample = finishing(within: 60, body)
        XCTAssertNotNil(sample, "\(name) did not finish within 60 s")
        return sample
    }

    func testMutex() async {
        for (n, m) in sizes {
            let expected = "count=\(n * m)"
            let sc = await Coordination.mutexSC(n: n, m: m)
            XCTAssertEqual(sc.result, expected, "sc/actor n=\(n) m=\(m)")
            for shape in Coordination.MutexGCDShape.allCases {
                let gcd = blocking("gcd/\(shape)") { Coordination.mutexGCD(shape, n: n, m: m) }
                XCTAssertEqual(gcd?.result, expected, "gcd/\(shape) n=\(n) m=\(m)")
            }
        }
    }

    func testProdCons() async {
        for (n, m) in sizes {
            let total = n * m
            // Summed one item at a time, not by the formula the kernels are judged by.
            let sum = (0..<total).reduce(UInt64(0)) { $0 + UInt64($1 + 1) }
            XCTAssertEqual(sum, UInt64(total * (total + 1) / 2))
            let expected = "consumed=\(total) sum=\(sum)"
            for shape in Coordination.ProdConsSCShape.allCases {
                let sc = await Coordination.prodconsSC(shape, n: n, m: m)
                XCTAssertEqual(sc.result, expected, "sc/\(shape) n=\(n) m=\(m)")
            }
            for shape in Coordination.ProdConsGCDShape.allCases {
                let gcd = blocking("gcd/\(shape)") { Coordination.prodconsGCD(shape, n: n, m: m) }
                XCTAssertEqual(gcd?.result, expected, "gcd/\(shape) n=\(n) m=\(m)")
            }
        }
    }

    /// The producers' items are exactly 1...n·m, each once.
    func testItemsAreDistinct() {
        let (n, m) = (5, 7)
        let items = (0..<n).flatMap { p in (0..<m).map { Coordination.item(producer: p, index: $0, m: m) } }
        XCTAssertEqual(items.sorted(), Array(1...(n * m)))
    }

    func testCondition() async {
        for (n, m) in sizes {
            let expected = "value=\(2 * n * m)"
            let sc = await Coordination.conditionSC(n: n, m: m)
            XCTAssertEqual(sc.result, expected, "sc/actor n=\(n) m=\(m)")
            for shape in Coordination.ConditionGCDShape.allCases {
                let gcd = blocking("gcd/\(shape)") { Coordination.conditionGCD(shape, n: n, m: m) }
                XCTAssertEqual(gcd?.result, expected, "gcd/\(shape) n=\(n) m=\(m)")
            }
        }
    }

    /// Where the token stops: walk the ring hop by hop from entity 1 with value N.
    func ringWalk(tokens: Int, ring: Int) -> Int {
        var (entity, t) = (1, tokens)
        while t > 0 {
            entity = entity % ring + 1
            t -= 1
        }
        return entity
    }

    func testThreadring() async {
        for (tokens, ring) in [(0, 2), (1, 2), (2, 2), (7, 2), (0, 5), (4, 5), (5, 5), (1000, 503), (1234, 17)] {
            let expected = "id=\(ringWalk(tokens: tokens, ring: ring))"
            XCTAssertEqual(expected, "id=\(tokens % ring + 1)")
            for shape in Threadring.SCShape.allCases {
                let sc = await Threadring.sc(shape, tokens: tokens, ring: ring)
                XCTAssertEqual(sc.result, expected, "sc/\(shape) N=\(tokens) R=\(ring)")
            }
            for shape in Threadring.GCDShape.allCases {
                let gcd = blocking("gcd/\(shape)") { Threadring.gcd(shape, tokens: tokens, ring: ring) }
                XCTAssertEqual(gcd?.result, expected, "gcd/\(shape) N=\(tokens) R=\(ring)")
            }
        }
    }

    /// The FIFO keeps order across its compaction.
    func testFIFO() {
        var q = FIFO<Int>()
        var popped: [Int] = []
        for i in 0..<500 {
            q.push(i)
            if i % 3 == 0, let v = q.pop() { popped.append(v) }
        }
        while let v = q.pop() { popped.append(v) }
        XCTAssertEqual(popped, Array(0..<500))
        XCTAssertTrue(q.isEmpty)
    }

    /// The table's entries: option n and ring with their defaults and bounds, and the
    /// parameters' lower bounds.
    func testCatalogEntries() throws {
        func check(_ line: String) throws -> Catalog.Checked {
            try Catalog.check(try Arguments.parse(line.split(separator: " ").map(String.init)))
        }
        func rejects(_ line: String) {
            XCTAssertThrowsError(try check(line), line)
        }
        for name in ["mutex", "prodcons", "condition"] {
            let c = try check("\(name) --model sc --param 10 --iterations 1")
            XCTAssertEqual([c.shape, c.value("n")], ["actor", "32"])
            XCTAssertNoThrow(try check("\(name) --model gcd --param 0 --iterations 1 --option n=1"))
            rejects("\(name) --model sc --param -1 --iterations 1")
            rejects("\(name) --model sc --param 10 --iterations 1 --option n=0")
            rejects("\(name) --model gcd --param 10 --iterations 1 --option n=4097")
            rejects("\(name) --model sc --param 10 --iterations 1 --option ring=5")
            rejects("\(name) --model seq --param 10 --iterations 1")
        }
        XCTAssertEqual(try check("mutex --model gcd --param 1 --iterations 1").shape, "threads")
        XCTAssertEqual(try check("prodcons --model gcd --param 1 --iterations 1").shape, "semaphore")
        XCTAssertEqual(try check("condition --model gcd --param 1 --iterations 1").shape, "semaphores")
        let ring = try check("threadring --model sc --param 1000 --iterations 1")
        XCTAssertEqual([ring.shape, ring.value("ring")], ["streams", "503"])
        XCTAssertEqual(try check("threadring --model gcd --param 0 --iterations 1 --option ring=2").shape, "serial-queue")
        rejects("threadring --model sc --param 1000 --iterations 1 --option ring=1")
        rejects("threadring --model sc --param -1 --iterations 1")
        rejects("threadring --model sc --param 10 --iterations 1 --option n=4")
    }
}
