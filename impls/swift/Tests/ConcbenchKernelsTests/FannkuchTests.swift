import XCTest
@testable import ConcbenchKernels

/// fannkuch: every model and shape, several chunk counts, against a brute force
/// written from the spec's definitions; plus the permutation order and the split.
final class FannkuchTests: XCTestCase {
    /// `maxflips=F checksum=C` by brute force: perm(i) decoded by the spec's rotation
    /// rule for every i, flipped with array reversals, signed by the parity of i.
    static func bruteForce(_ n: Int) -> String {
        let total = (1...max(n, 1)).reduce(1, *)
        var maxFlips = 0
        var checksum = 0
        for index in 0..<total {
            var p = Array(0..<n)
            var i = index
            for k in stride(from: n - 1, through: 1, by: -1) {
                let f = (1...k).reduce(1, *)
                let d = i / f
                i %= f
                p = Array(p[d...k] + p[0..<d] + p[(k + 1)...])
            }
            var flips = 0
            while p[0] != 0 {
                let top = p[0]
                p[0...top].reverse()
                flips += 1
            }
            maxFlips = max(maxFlips, flips)
            checksum += index % 2 == 0 ? flips : -flips
        }
        return "maxflips=\(maxFlips) checksum=\(checksum)"
    }

    /// n = 1...8 by brute force, computed once (n = 8 is 40 320 permutations).
    static let expected: [Int: String] = Dictionary(uniqueKeysWithValues: (1...8).map { ($0, bruteForce($0)) })

    /// The chunk counts to try: the default, one, a prime, the Erlang-style n, and more than n!.
    func chunkCounts(_ n: Int) -> [Int] {
        [150, 1, 7, n, 50_000]
    }

    func testSplit() {
        for n in 1...12 {
            let total = (1...n).reduce(1, *)
            let split = Fannkuch.Split(n: n)
            XCTAssertEqual(split.total, total)
            XCTAssertEqual(split.chunk, (total + 149) / 150, "n=\(n)")
            XCTAssertEqual(split.tasks, (total + split.chunk - 1) / split.chunk, "n=\(n)")
            XCTAssertLessThanOrEqual((split.tasks - 1) * split.chunk, total)
        }
        // The Erlang-style split, and more chunks than permutations.
        XCTAssertEqual(Fannkuch.Split(n: 10, chunks: 10).chunk, (1...9).reduce(1, *))
        XCTAssertEqual(Fannkuch.Split(n: 3, chunks: 100).tasks, 6)
        XCTAssertEqual(Fannkuch.Split(n: 3, chunks: .max).tasks, 6)
    }

    /// perm(i) by decoding, and by the step from perm(i − 1): the spec's n = 4 listing.
    func testPermutationOrder() {
        let n = 4
        let listing = ["1234", "2134", "2314", "3214", "3124", "1324", "2341", "3241", "3421", "4321", "4231",
                       "2431", "3412"]
        var p = [Int](repeating: 0, count: n)
        var count = [Int](repeating: 0, count: n)
        var scratch = [Int](repeating: 0, count: n)
        var stepped = [Int](repeating: 0, count: n)
        var steppedCount = [Int](repeating: 0, count: n)
        func text(_ perm: [Int]) -> String { perm.map { String($0 + 1) }.joined() }
        Fannkuch.decode(0, n: n, into: &stepped, count: &steppedCount, scratch: &scratch)
        for i in 0..<24 {
            Fannkuch.decode(i, n: n, into: &p, count: &count, scratch: &scratch)
            if i < listing.count { XCTAssertEqual(text(p), listing[i], "index \(i)") }
            XCTAssertEqual(stepped, p, "step to index \(i)")
            XCTAssertEqual(steppedCount, count, "count at index \(i)")
            if i < 23 { Fannkuch.next(&stepped, count: &steppedCount) }
        }
        XCTAssertEqual(text(p), "4213")
    }

    func testFlips() {
        // 1-based {4,2,1,5,3} takes 5 flips.
        var p = [3, 1, 0, 4, 2]
        var q = [Int](repeating: 0, count: 5)
        XCTAssertEqual(Fannkuch.flips(&p, &q, n: 5), 5)
    }

    func testSeqPlain() {
        for (n, result) in Self.expected {
            for k in chunkCounts(n) {
                XCTAssertEqual(Fannkuch.seqPlain(Fannkuch.Split(n: n, chunks: k)).result, result, "n=\(n) K=\(k)")
            }
        }
    }

    func testGCDShapes() {
        for shape in Fannkuch.GCDShape.allCases {
            for (n, result) in Self.expected {
                for k in chunkCounts(n) {
                    XCTAssertEqual(
                        Fannkuch.gcd(shape, Fannkuch.Split(n: n, chunks: k)).result, result, "\(shape) n=\(n) K=\(k)")
                }
            }
        }
    }

    func testSCTaskGroup() async {
        for (n, result) in Self.expected {
            for k in chunkCounts(n) {
                let sample = await Fannkuch.scTaskGroup(Fannkuch.Split(n: n, chunks: k))
                XCTAssertEqual(sample.result, result, "n=\(n) K=\(k)")
            }
        }
    }

    /// n = 9 (the largest test size) against the sequential shape only.
    func testShapesAgreeAtNine() async {
        let split = Fannkuch.Split(n: 9)
        let sequential = Fannkuch.seqPlain(split).result
        for shape in Fannkuch.GCDShape.allCases {
            XCTAssertEqual(Fannkuch.gcd(shape, split).result, sequential, "\(shape)")
        }
        let sc = await Fannkuch.scTaskGroup(split)
        XCTAssertEqual(sc.result, sequential)
    }
}
