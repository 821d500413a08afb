import Separate
import XCTest

final class QueueTests: XCTestCase {
    func testSPSCKeepsOrderAcrossThreads() {
        let queue = SPSCQueue<Int>()
        let count = 200_000
        let producer = Thread { for i in 0..<count { queue.push(i) } }
        producer.start()
        var expected = 0
        while expected < count {
            if let value = queue.pop() {
                XCTAssertEqual(value, expected)
                expected += 1
            }
        }
        XCTAssertNil(queue.pop())
    }

    func testMPSCKeepsEachProducersOrder() {
        let queue = MPSCQueue<(Int, Int)>()
        let producers = 4, count = 50_000
        for p in 0..<producers {
            Thread { for i in 0..<count { queue.push((p, i)) } }.start()
        }
        var next = [Int](repeating: 0, count: producers)
        var received = 0
        while received < producers * count {
            if let (p, i) = queue.pop() {
                XCTAssertEqual(i, next[p], "producer \(p) out of order")
                next[p] += 1
                received += 1
            }
        }
        XCTAssertTrue(queue.isEmpty)
    }
}
