import XCTest
@testable import ConcbenchKernels

/// fannkuch at the spec's `test` sizes (and the small ones), every model and shape,
/// plus the permutation order and the split table.
final class FannkuchTests: XCTestCase {
    let table: [(n: Int, result: String)] = [
        (3, "maxflips=2 checksum=2"), (4, "maxflips=4 checksum=4"), (5, "maxflips=7 checksum=11"),
        (6, "maxflips=10 checksum=49"), (7, "maxflips=16 checksum=228"), (8, "maxflips=22 checksum=1616"),
        (9, "maxflips=30 checksum=8629"),
    ]

    func testSplitTable() {
        let expected: [(n: Int, chunk: Int, tasks: Int)] = [
            (7, 34, 149), (8, 269, 150), (9, 2420, 150), (10, 24192, 150), (11, 266_112, 150),
            (12, 3_193_344, 150),
        ]
        for row in expected {
            let split = Fannkuch.Split(n: row.n)
            XCTAssertEqual(split.chunk, row.chunk, "n=\(row.n)")
            XCTAssertEqual(split.tasks, row.tasks, "n=\(row.n)")
        }
        // The Erlang-style split, and more chunks than permutations.
        XCTAssertEqual(Fannkuch.Split(n: 10, chunks: 10).chunk, 362_880)
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
        for row in table {
            XCTAssertEqual(Fannkuch.seqPlain(Fannkuch.Split(n: row.n)).result, row.result)
        }
        XCTAssertEqual(Fannkuch.seqPlain(Fannkuch.Split(n: 1)).result, "maxflips=0 checksum=0")
        // The chunking must not change the totals.
        for k in [1, 7, 5040] {
            XCTAssertEqual(Fannkuch.seqPlain(Fannkuch.Split(n: 7, chunks: k)).result, table[4].result, "K=\(k)")
        }
    }

    func testGCDShapes() {
        for shape in Fannkuch.GCDShape.allCases {
            for row in table {
                XCTAssertEqual(Fannkuch.gcd(shape, Fannkuch.Split(n: row.n)).result, row.result, "\(shape)")
            }
        }
    }

    func testSCTaskGroup() async {
        for row in table {
            let sample = await Fannkuch.scTaskGroup(Fannkuch.Split(n: row.n))
            XCTAssertEqual(sample.result, row.result)
        }
    }
}
