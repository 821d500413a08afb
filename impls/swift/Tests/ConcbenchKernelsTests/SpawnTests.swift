import XCTest
@testable import ConcbenchKernels

/// spawn-waiting, spawn-waiting-group and spawn-actors: tasks=N sum=N(N+1)/2 and
/// actors=N total=N, every model and shape.
final class SpawnTests: XCTestCase {
    func sumResult(_ n: Int) -> String {
        "tasks=\(n) sum=\(n * (n + 1) / 2)"
    }

    func testSpawnWaitingAllShapes() async throws {
        for n in [0, 1, 2, 4] {
            XCTAssertEqual(SpawnWaiting.gcdSync(tasks: n, waitMs: 1).result, sumResult(n))
            XCTAssertEqual(SpawnWaiting.gcdAsyncWait(tasks: n, waitMs: 1).result, sumResult(n))
            XCTAssertEqual(SpawnWaiting.seqInline(tasks: n, waitMs: 0).result, sumResult(n))
            let sc = try await SpawnWaiting.scTask(tasks: n, waitMs: 1)
            XCTAssertEqual(sc.result, sumResult(n))
        }
    }

    func testSpawnWaitingGroup() async {
        for n in [0, 1, 10, 50] {
            XCTAssertEqual(SpawnWaitingGroup.gcdGroup(tasks: n, waitMs: 1).result, sumResult(n))
            let sc = await SpawnWaitingGroup.scGroup(tasks: n, waitMs: 0)
            XCTAssertEqual(sc.result, sumResult(n))
        }
    }

    func testSpawnActors() async {
        for n in [0, 1, 100, 1000] {
            let expected = "actors=\(n) total=\(n)"
            XCTAssertEqual(SpawnActors.gcdSerialQueue(actors: n).result, expected)
            let sc = await SpawnActors.scActor(actors: n)
            XCTAssertEqual(sc.result, expected)
        }
    }
}
