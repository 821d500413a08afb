// Programs that finish under SCOOP/Qs's rules (seed 001, Sec. 2–3) and must finish here, under every
// configuration: a call runs whatever its client does next, one change can satisfy several wait
// conditions, a client may reserve a handler it holds, and a call never waits for its handler.
// Each runs under a watchdog: a hang ends the test process (exit 3) and names the test.

import Foundation
import Synchronization
@testable import Separate
import XCTest

final class Flag {
    var isSet = false
}

final class Tally: Sendable {
    let count = Atomic<Int>(0)
}

final class LivenessTests: XCTestCase {
    /// Runs `body` under each configuration with a fresh runtime, each under its own deadline.
    private func everyConfiguration(_ body: @escaping @Sendable (Runtime) async -> Void) async {
        for configuration in Configuration.allCases {
            let watchdog = Watchdog(seconds: 60, "\(name) under \(configuration)")
            await withRuntime(workers: 2, configuration, body)
            watchdog.cancel()
        }
    }

    /// A call logged after a sync runs while its client waits elsewhere: the handler, parked on the
    /// block after answering the sync, is woken by the call.
    func testACallAfterASyncRunsWhileItsClientWaitsElsewhere() async {
        await everyConfiguration { runtime in
            let (x, y) = (Handler(Cell(), runtime: runtime), Handler(Flag(), runtime: runtime))
            await Client(runtime).separate(x) { x in
                _ = await x.query { $0.value }
                await x.call { _, own in await own.separate(y) { y in await y.call { $0.isSet = true } } }   // runs only when x's handler runs it
                await Client(runtime).separate(y, until: { $0.isSet }) { _ in }
            }
        }
    }

    /// The same once the handler has given up polling a silent block and parked on it.
    func testACallWakesAHandlerParkedInItsBlock() async {
        await everyConfiguration { runtime in
            let (x, y) = (Handler(Cell(), runtime: runtime), Handler(Flag(), runtime: runtime))
            await Client(runtime).separate(x) { x in
                try? await Task.sleep(nanoseconds: 20_000_000)
                await x.call { _, own in await own.separate(y) { y in await y.call { $0.isSet = true } } }   // runs only when x's handler runs it
                await Client(runtime).separate(y, until: { $0.isSet }) { _ in }
            }
        }
    }

    /// One call makes two waiting conditions true; the first waiter granted only queries (or writes
    /// through a query what the second waits for): the second is granted too.
    func testOneChangeSatisfiesEveryWaiter() async {
        for writes in [false, true] {
            await everyConfiguration { runtime in
                let cell = Handler(Cell(), runtime: runtime)
                async let first = Client(runtime).separate(cell, until: { $0.value == 1 }) { c in
                    await c.query { cell -> Int in
                        if writes { cell.value = 2 }
                        return cell.value
                    }
                }
                async let second = Client(runtime).separate(cell, until: { $0.value == (writes ? 2 : 1) }) { c in
                    await c.query { $0.value }
                }
                try? await Task.sleep(nanoseconds: 20_000_000)   // both wait before the change
                await Client(runtime).separate(cell) { c in await c.call { $0.value = 1 } }
                let seen = await [first, second]
                XCTAssertEqual(seen, writes ? [2, 2] : [1, 1])
            }
        }
    }

    /// Waiters whose conditions are false wake no one: a block that only tested a condition changed
    /// nothing, so it is no reason to test the others again (counted as one, two waiters would wake
    /// each other for as long as they wait).
    func testWaitersWhoseConditionsAreFalseDoNotWakeEachOther() async {
        await everyConfiguration { runtime in
            let cell = Handler(Cell(), runtime: runtime)
            let tests = Tally()
            let condition: @Sendable (Cell) -> Bool = { cell in
                tests.count.add(1, ordering: .relaxed)
                return cell.value == 1
            }
            async let first: Void = Client(runtime).separate(cell, until: condition) { _ in }
            async let second: Void = Client(runtime).separate(cell, until: condition) { _ in }
            try? await Task.sleep(nanoseconds: 50_000_000)
            let seen = tests.count.load(ordering: .relaxed)
            await Client(runtime).separate(cell) { c in await c.call { $0.value = 1 } }
            _ = await (first, second)
            XCTAssertLessThan(seen, 20, "\(runtime.configuration): conditions tested while nothing changed")
        }
    }

    /// A block on a handler its client holds already is part of the outer block: no other client's
    /// call runs inside it, and none of its calls is lost, whether the inner block reserves that
    /// handler alone or with another.
    func testReservingAHeldHandlerKeepsTheBlockWhole() async {
        for withOther in [false, true] {
            await everyConfiguration { runtime in
                let journal = Handler(Journal(), runtime: runtime)
                let other = Handler(Cell(), runtime: runtime)
                await withTaskGroup(of: Void.self) { group in
                    for index in 0..<2 {
                        group.addTask {
                            let client = Client(runtime)
                            for block in 0..<200 {
                                await client.separate(journal) { j in
                                    await j.call { $0.entries.append(.init(client: index, block: block, seq: 0)) }
                                    if withOther {
                                        await client.separate(journal, other) { j, o in
                                            await j.call { $0.entries.append(.init(client: index, block: block, seq: 1)) }
                                            await o.call { $0.value += 1 }
                                        }
                                    } else {
                                        await client.separate(journal) { j in
                                            await j.call { $0.entries.append(.init(client: index, block: block, seq: 1)) }
                                        }
                                    }
                                    await j.call { $0.entries.append(.init(client: index, block: block, seq: 2)) }
                                }
                            }
                        }
                    }
                }
                let entries = await Client(runtime).separate(journal) { j in await j.query { $0.entries } }
                XCTAssertEqual(entries.count, 1_200, "\(runtime.configuration)")
                for start in stride(from: 0, to: entries.count - 2, by: 3) {
                    let block = entries[start..<start + 3]
                    XCTAssertEqual(block.map(\.seq), [0, 1, 2], "\(runtime.configuration): a block split at \(start)")
                    XCTAssertEqual(Set(block.map(\.client)).count, 1, "\(runtime.configuration): clients mixed at \(start)")
                }
            }
        }
    }

    /// A wait condition on a handler the client holds is tested at once, inside the outer block.
    func testAWaitConditionOnAHeldHandlerThatHoldsRunsAtOnce() async {
        await everyConfiguration { runtime in
            let cell = Handler(Cell(), runtime: runtime)
            let client = Client(runtime)
            let seen = await client.separate(cell) { c in
                await c.call { $0.value = 1 }
                return await client.separate(cell, until: { $0.value == 1 }) { c in await c.query { $0.value } }
            }
            XCTAssertEqual(seen, 1)
        }
    }

    /// A call never waits for its handler: a client logs more calls than any ring starts with on a
    /// handler busy with an act that waits for what the client does after them.
    func testACallNeverWaitsForItsHandler() async {
        await everyConfiguration { runtime in
            let (x, y) = (Handler(Cell(), runtime: runtime), Handler(Flag(), runtime: runtime))
            let client = Client(runtime)
            await client.separate(x) { x in
                await x.call { _, own in await own.separate(y, until: { $0.isSet }) { _ in } }
                for _ in 0..<5_000 { await x.call { $0.value += 1 } }
            }
            await client.separate(y) { y in await y.call { $0.isSet = true } }
            let count = await client.separate(x) { x in await x.query { $0.value } }
            XCTAssertEqual(count, 5_000)
        }
    }

    /// Two handlers' acts, each a client of the other: x's act logs 5 000 calls on z while z's act
    /// waits for x. No call waits for room, so no cycle closes. (The count is read once x's act is
    /// over: a block on z reserved earlier would come before its calls, and under `none` and
    /// `dynamic` would hold z's lock against it.)
    func testActsLoggingOnEachOthersHandlersFinish() async {
        await everyConfiguration { runtime in
            let (x, z) = (Handler(Cell(), runtime: runtime), Handler(Cell(), runtime: runtime))
            await Client(runtime).separate(z) { z in
                await z.call { _, own in await own.separate(x, until: { $0.value == 1 }) { _ in } }
            }
            try? await Task.sleep(nanoseconds: 20_000_000)   // z's act waits
            await Client(runtime).separate(x) { x in
                await x.call { object, own in
                    await own.separate(z) { z in for _ in 0..<5_000 { await z.call { $0.value += 1 } } }
                    object.value = 1
                }
            }
            await Client(runtime).separate(x, until: { $0.value == 1 }) { _ in }
            let count = await Client(runtime).separate(z) { z in await z.query { $0.value } }
            XCTAssertEqual(count, 5_000)
        }
    }

    /// Calls that only log (Logging.swift), each logging on the other handler the next one, and two
    /// calls beside it: every block runs whole and in order, under every configuration; under the
    /// queue of queues the handlers run them in their loops (no runner is started), under the block
    /// lock as acts.
    func testLoggingCallsBouncingBetweenHandlersFinishInOrder() async {
        for configuration in Configuration.allCases {
            let watchdog = Watchdog(seconds: 60, "\(name) under \(configuration)")
            let (seenA, seenB, runners) = await withRuntime(workers: 2, configuration) { runtime in
                let (a, b, done) = (Handler(Pings(), runtime: runtime), Handler(Pings(), runtime: runtime),
                                    Handler(Flag(), runtime: runtime))
                await Client(runtime).separate(a) { a0 in
                    await a0.call(logging: { _, logger in Self.bounce(200, from: a, to: b, done: done, logger) })
                }
                await Client(runtime).separate(done, until: { $0.isSet }) { _ in }
                let seenA = await Client(runtime).separate(a) { a in await a.query { $0.seen } }
                let seenB = await Client(runtime).separate(b) { b in await b.query { $0.seen } }
                return (seenA, seenB, runtime.runnersStarted)
            }
            watchdog.cancel()
            XCTAssertEqual(seenB, stride(from: 200, to: 0, by: -2).flatMap { [$0, -$0] }, "\(configuration)")
            XCTAssertEqual(seenA, stride(from: 199, to: 0, by: -2).flatMap { [$0, -$0] }, "\(configuration)")
            if configuration.locksBlocks {
                XCTAssertGreaterThan(runners, 0, "\(configuration): a logging call under the block lock is an act")
            } else {
                XCTAssertEqual(runners, 0, "\(configuration): a logging call needed a runner")
            }
        }
    }

    private static func bounce(_ k: Int, from here: Handler<Pings>, to there: Handler<Pings>, done: Handler<Flag>,
                               _ logger: Logger) {
        guard k > 0 else { return logger.separate(done) { d in d.call { $0.isSet = true } } }
        logger.separate(there) { t in
            t.call(with: k) { $0.seen.append($1) }
            t.call(with: -k) { $0.seen.append($1) }
            t.call(logging: { _, logger in bounce(k - 1, from: there, to: here, done: done, logger) })
        }
    }
}

final class Pings {
    var seen: [Int] = []
}
