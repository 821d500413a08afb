import Separate
import XCTest
@testable import ConcbenchKernels

/// The qs kernels (the specs' SCOOP/Qs programs on the Separate runtime) under every configuration,
/// and philosophers in both Swift models, against closed forms computed here.
final class SeparateKernelTests: XCTestCase {
    let sizes = [(1, 0), (1, 1), (2, 1), (3, 37), (8, 60)]

    /// Every configuration, each with a pool that is the global executor (as the benchmark binary
    /// runs them) and with one that is not.
    func eachRuntime(_ body: (Runtime, Configuration) async -> Void) async {
        for configuration in Configuration.allCases {
            for global in [true, false] {
                let runtime = Runtime(workers: 2, configuration: configuration, global: global)
                XCTAssertEqual(runtime.ownsGlobalExecutor, global)
                await body(runtime, configuration)
                runtime.shutdown()
            }
        }
    }

    func testCoordinationKernels() async {
        await eachRuntime { runtime, configuration in
            for (n, m) in sizes {
                let total = n * m
                let sum = (0..<total).reduce(UInt64(0)) { $0 + UInt64($1 + 1) }
                let label = "\(configuration) n=\(n) m=\(m)"
                let mutex = await Coordination.mutexQS(runtime, n: n, m: m)
                XCTAssertEqual(mutex.result, "count=\(total)", label)
                let prodcons = await Coordination.prodconsQS(runtime, n: n, m: m)
                XCTAssertEqual(prodcons.result, "consumed=\(total) sum=\(sum)", label)
                let condition = await Coordination.conditionQS(runtime, n: n, m: m)
                XCTAssertEqual(condition.result, "value=\(2 * total)", label)
            }
        }
    }

    func testThreadring() async {
        await eachRuntime { runtime, configuration in
            for (tokens, ring) in [(0, 2), (1, 2), (7, 2), (4, 5), (1000, 503), (1234, 17)] {
                var (entity, t) = (1, tokens)
                while t > 0 { (entity, t) = (entity % ring + 1, t - 1) }
                let sample = await Threadring.qs(runtime, tokens: tokens, ring: ring)
                XCTAssertEqual(sample.result, "id=\(entity)", "\(configuration) N=\(tokens) R=\(ring)")
            }
        }
    }

    func testPhilosophers() async {
        for (n, m) in [(2, 0), (2, 1), (2, 50), (5, 40), (31, 20)] {
            let expected = "meals=\(n * m) fork_uses=\(2 * n * m) overlaps=0"
            let sc = await Philosophers.sc(n: n, m: m)
            XCTAssertEqual(sc.result, expected, "sc n=\(n) m=\(m)")
            XCTAssertEqual(sc.metrics, [Metric("min_meals", m), Metric("max_meals", m)])
            await eachRuntime { runtime, configuration in
                let qs = await Philosophers.qs(runtime, n: n, m: m)
                XCTAssertEqual(qs.result, expected, "qs \(configuration) n=\(n) m=\(m)")
            }
        }
    }

    /// The overlap detector works: a fork taken twice without a hand-back counts one.
    func testForkCountsAnOverlap() {
        let fork = Philosophers.Fork()
        fork.take(1)
        fork.take(2)
        fork.handBack(2)
        fork.handBack(1)
        XCTAssertEqual(fork.uses, 1)
        XCTAssertEqual(fork.overlaps, 2)
    }
}
