import XCTest
@testable import ConcbenchKernels

/// spawn-waiting, spawn-waiting-group and spawn-actors at the specs' `test` sizes.
final class SpawnTests: XCTestCase {
    func testSpawnWaitingAllShapes() async throws {
        for (n, expected) in [(2, "tasks=2 sum=3"), (4, "tasks=4 sum=10")] {
            XCTAssertEqual(SpawnWaiting.gcdSync(tasks: n, waitMs: 1).result, expected)
            XCTAssertEqual(SpawnWaiting.gcdAsyncWait(tasks: n, waitMs: 1).result, expected)
            XCTAssertEqual(SpawnWaiting.seqInline(tasks: n, waitMs: 1).result, expected)
            let sc = try await SpawnWaiting.scTask(tasks: n, waitMs: 1)
            XCTAssertEqual(sc.result, expected)
        }
    }

    func testSpawnWaitingTakesAtLeastTheWaits() {
        XCTAssertGreaterThanOrEqual(SpawnWaiting.gcdSync(tasks: 4, waitMs: 5).ns, 20_000_000)
    }

    func testSpawnWaitingGroup() async {
        for (n, expected) in [(10, "tasks=10 sum=55"), (50, "tasks=50 sum=1275")] {
            XCTAssertEqual(SpawnWaitingGroup.gcdGroup(tasks: n, waitMs: 1).result, expected)
            let sc = await SpawnWaitingGroup.scGroup(tasks: n, waitMs: 1)
            XCTAssertEqual(sc.result, expected)
        }
    }

    func testSpawnActors() async {
        for n in [100, 1000] {
            let expected = "actors=\(n) total=\(n)"
            XCTAssertEqual(SpawnActors.gcdSerialQueue(actors: n).result, expected)
            let sc = await SpawnActors.scActor(actors: n)
            XCTAssertEqual(sc.result, expected)
        }
    }
}
