// The lock a block holds under `none`, `dynamic` and `static` (AsyncLock.swift): it excludes, loses
// no waiter, and lets nobody starve, although a client may take it back over waiting ones' heads.

@testable import Separate
import Synchronization
import XCTest

final class AsyncLockTests: XCTestCase {
    private var watchdog: Watchdog?

    override func setUp() { watchdog = Watchdog(seconds: 120, name) }
    override func tearDown() { watchdog?.cancel() }

    /// Many tasks take the lock many times, some suspending while they hold it: never two inside at
    /// once, no update lost, and every task gets through (a lost wake-up would hang the test).
    func testOneHolderAtATimeAndNoWaiterLost() async {
        for workers in 1...3 {
            let lock = AsyncLock()
            let inside = Atomic<Bool>(false)
            let overlaps = Atomic<Int>(0)
            let total = UnsafeCounter()
            await withRuntime(workers: workers, .none) { runtime in
                await runtime.clients(8) { index, _ in
                    for round in 0..<2_000 {
                        await lock.acquire(on: runtime.pool)
                        if inside.exchange(true, ordering: .acquiringAndReleasing) { overlaps.add(1, ordering: .relaxed) }
                        let before = total.value
                        if (round + index) % 7 == 0 { await Task.yield() }   // waiters pile up behind
                        total.value = before + 1
                        inside.store(false, ordering: .releasing)
                        lock.release()
                    }
                }
            }
            XCTAssertEqual(overlaps.load(ordering: .relaxed), 0, "\(workers) workers: two holders at once")
            XCTAssertEqual(total.value, 8 * 2_000, "\(workers) workers: updates lost")
        }
    }

    /// One thread, and a client that takes the lock again and again without ever suspending: a
    /// waiter is handed the lock once the hog has taken it `takesOverWaiters` times over its head (where a
    /// lock that only woke it to try again would leave it waiting until the hog gave up).
    func testAWaiterIsHandedTheLockBeforeLongBehindAClientThatNeverSuspends() async {
        let bound = 1_000_000
        let takes = await withRuntime(workers: 1, .none) { runtime in
            let lock = AsyncLock()
            let served = Atomic<Bool>(false)
            await lock.acquire(on: runtime.pool)
            let waiter = runtime.task {
                await lock.acquire(on: runtime.pool)
                served.store(true, ordering: .releasing)
                lock.release()
            }
            while lock.waiting == 0 { await Task.yield() }   // the waiter gets the thread, and waits
            var takes = 0
            while !served.load(ordering: .acquiring) && takes < bound {
                lock.release()
                await lock.acquire(on: runtime.pool)   // suspends only if the lock went to the waiter
                takes += 1
            }
            lock.release()
            await waiter.value
            return takes
        }
        XCTAssertLessThanOrEqual(takes, AsyncLock.takesOverWaiters + 1, "the waiter waited \(takes) takes")
    }
}

/// A plain counter; the lock under test is what keeps its updates apart.
final class UnsafeCounter: @unchecked Sendable {
    var value = 0
}
