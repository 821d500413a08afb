// The execution model's guarantees (seed 001, Sec. 2), each checked over many randomized
// schedules: random pool widths, client counts, block lengths and suspension points, under every
// configuration. A failing trial prints its seed.

import Foundation
@testable import Separate
import Synchronization
import XCTest

/// A small seeded generator, so a failing schedule can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

final class Journal {
    var entries: [Entry] = []
    struct Entry: Equatable { let client: Int, block: Int, seq: Int }
}

final class Cell {
    var value = 0
}

final class Row {
    var values: [Int]
    init(_ width: Int) { values = Array(repeating: 0, count: width) }
}

/// Runs `body` with a fresh runtime and shuts it down afterwards. Every other runtime's pool is
/// the process's global executor (its clients are tasks with no executor preference), so that
/// each guarantee is checked both ways.
func withRuntime<T: Sendable>(workers: Int, _ configuration: Configuration,
                              _ body: @escaping @Sendable (Runtime) async throws -> T) async rethrows -> T {
    let global = runtimesMade.wrappingAdd(1, ordering: .relaxed).oldValue % 2 == 1
    let runtime = Runtime(workers: workers, configuration: configuration, global: global)
    precondition(runtime.ownsGlobalExecutor == global, "another runtime still owns the global executor")
    defer { runtime.shutdown() }
    return try await runtime.run { try await body(runtime) }
}

let runtimesMade = Atomic<Int>(0)

/// Ends the test process if a test outlives its deadline: a deadlock fails the suite instead of
/// hanging it. Cancel it when the test is done.
final class Watchdog: @unchecked Sendable {
    private let task: Task<Void, Never>

    init(seconds: Double, _ label: String) {
        task = Task.detached {
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            if Task.isCancelled { return }
            FileHandle.standardError.write(Data("timed out after \(seconds) s: \(label)\n".utf8))
            exit(3)
        }
    }

    func cancel() { task.cancel() }
}

final class GuaranteeTests: XCTestCase {
    private var watchdog: Watchdog?

    // Every test here gets a deadline; the slowest takes a few seconds.
    override func setUp() { watchdog = Watchdog(seconds: 120, name) }
    override func tearDown() { watchdog?.cancel() }

    /// The calls of one block run in the order logged, with no other client's call between them.
    func testBlocksRunInOrderWithoutInterleaving() async {
        for trial in 0..<200 {
            var random = SplitMix(state: UInt64(trial))
            let configuration = Configuration.allCases[trial % Configuration.allCases.count]
            let workers = Int.random(in: 1...4, using: &random)
            let clientCount = Int.random(in: 2...6, using: &random)
            let seed = random.next()
            let logged = Counter()
            let journal = await withRuntime(workers: workers, configuration) { runtime in
                let handler = Handler(Journal(), runtime: runtime)
                await runtime.clients(clientCount) { index, client in
                    var random = SplitMix(state: seed &+ UInt64(index))
                    for block in 0..<25 {
                        let length = Int.random(in: 1...8, using: &random)
                        let queryAt = Int.random(in: 0...length, using: &random)
                        let yields = Bool.random(using: &random)
                        await client.separate(handler) { h in
                            for seq in 0..<length {
                                await h.call { $0.entries.append(.init(client: index, block: block, seq: seq)) }
                                logged.add()
                                if seq == queryAt { _ = await h.query { $0.entries.count } }
                                if yields { await Task.yield() }
                            }
                        }
                    }
                }
                return await Client(runtime).separate(handler) { h in await h.query { UncheckedEntries($0.entries) } }
            }.entries
            let context = "trial \(trial) (\(configuration), \(workers) workers, \(clientCount) clients)"
            XCTAssertEqual(journal.count, logged.value, "\(context): calls lost or run twice")
            var index = 0
            var lastBlock = [Int: Int]()
            while index < journal.count {
                let first = journal[index]
                XCTAssertEqual(first.seq, 0, "\(context): a block starts mid-way at \(index)")
                var seq = 0
                while index < journal.count && journal[index].client == first.client && journal[index].block == first.block {
                    XCTAssertEqual(journal[index].seq, seq, "\(context): out of order at \(index)")
                    seq += 1
                    index += 1
                }
                XCTAssertGreaterThan(first.block, lastBlock[first.client] ?? -1,
                                     "\(context): block \(first.block) of client \(first.client) split or repeated")
                lastBlock[first.client] = first.block
            }
            XCTAssertEqual(lastBlock.count, clientCount, context)
            XCTAssertTrue(lastBlock.values.allSatisfy { $0 == 24 }, context)
        }
    }

    /// Fig. 5: blocks reserving x and y together see them consistently: never one client's colour
    /// on x and another's on y.
    func testMultiReservationSeesConsistentState() async {
        for trial in 0..<60 {
            var random = SplitMix(state: 1000 + UInt64(trial))
            let configuration = Configuration.allCases[trial % Configuration.allCases.count]
            let workers = Int.random(in: 1...4, using: &random)
            let seed = random.next()
            let mismatches = await withRuntime(workers: workers, configuration) { runtime in
                let x = Handler(Cell(), runtime: runtime), y = Handler(Cell(), runtime: runtime)
                let seen = Counter()
                await runtime.clients(6) { index, client in
                    var random = SplitMix(state: seed &+ UInt64(index))
                    for _ in 0..<150 {
                        let pause = Bool.random(using: &random)
                        if index < 3 {        // writers: both to this client's colour
                            await client.separate(x, y) { a, b in
                                await a.call { $0.value = index + 1 }
                                if pause { await Task.yield() }
                                await b.call { $0.value = index + 1 }
                            }
                        } else {              // readers: both must agree
                            let pair = await client.separate(x, y) { a, b in
                                (await a.query { $0.value }, await b.query { $0.value })
                            }
                            if pair.0 != pair.1 { seen.add() }
                        }
                    }
                }
                return seen.value
            }
            XCTAssertEqual(mismatches, 0, "trial \(trial) (\(configuration), \(workers) workers)")
        }
    }

    /// Fig. 6: two clients nesting blocks on x and y in opposite orders, logging commands only, never
    /// deadlock under the queue of queues: 10 000 times each.
    func testOppositeNestedReservationsNeverDeadlock() async {
        for configuration in [Configuration.qoq, .all] {
            let totals = await withRuntime(workers: 2, configuration) { runtime in
                let x = Handler(Cell(), runtime: runtime), y = Handler(Cell(), runtime: runtime)
                await runtime.clients(2) { index, client in
                    let (outer, inner) = index == 0 ? (x, y) : (y, x)
                    for _ in 0..<10_000 {
                        await client.separate(outer) { o in
                            await o.call { $0.value += 1 }
                            await client.separate(inner) { i in await i.call { $0.value += 1 } }
                        }
                    }
                }
                return await Client(runtime).separate(x, y) { a, b in (await a.query { $0.value }, await b.query { $0.value }) }
            }
            XCTAssertEqual(totals.0, 20_000, "\(configuration)")
            XCTAssertEqual(totals.1, 20_000, "\(configuration)")
        }
    }

    /// resMany: every two multi-reservations are in the same order on every handler they share.
    /// Clients reserving the same two handlers as fast as they can leave the same journal on both.
    func testMultiReservationsAreOrderedAlikeEverywhere() async {
        for configuration in Configuration.allCases {
            let (first, second) = await withRuntime(workers: 2, configuration) { runtime in
                let x = Handler(Journal(), runtime: runtime), y = Handler(Journal(), runtime: runtime)
                await runtime.clients(4) { index, client in
                    for block in 0..<10_000 {
                        let entry = Journal.Entry(client: index, block: block, seq: 0)
                        if index % 2 == 0 {
                            await client.separate(x, y) { a, b in await a.call { $0.entries.append(entry) }; await b.call { $0.entries.append(entry) } }
                        } else {
                            await client.separate(y, x) { b, a in await b.call { $0.entries.append(entry) }; await a.call { $0.entries.append(entry) } }
                        }
                    }
                }
                return await Client(runtime).separate(x, y) { a, b in
                    (await a.query { UncheckedEntries($0.entries) }, await b.query { UncheckedEntries($0.entries) })
                }
            }
            XCTAssertEqual(first.entries.count, 40_000, "\(configuration)")
            XCTAssertTrue(first.entries == second.entries, "\(configuration): two handlers saw the blocks in different orders")
        }
    }

    /// Handlers whose acts reserve each other do not keep each other alive: a client's queue holds
    /// its handler without a reference, so once the program drops them, both are freed.
    func testHandlersWhoseActsReserveEachOtherAreFreed() async {
        let seen = WeakHandlers()
        await withRuntime(workers: 2, .all) { runtime in
            let a = Handler(Cell(), runtime: runtime), b = Handler(Cell(), runtime: runtime)
            seen.keep(a, b)
            let main = Client(runtime)
            for (from, to) in [(a, b), (b, a)] {
                await main.separate(from) { f in
                    await f.call { _, client in await client.separate(to) { t in await t.call { $0.value += 1 } } }
                }
            }
            for handler in [a, b] { _ = await main.separate(handler) { h in await h.query { $0.value } } }
        }
        XCTAssertTrue(seen.allFreed, "a handler outlived the program that used it")
    }

    /// A client that goes away while its handler still has its blocks to run: the blocks all run
    /// (its queue outlives it), and the queue is freed once they have, not before and not never.
    func testAClientGoneBeforeItsBlocksRanLeavesThemToRun() async {
        let runtime = Runtime(workers: 2, configuration: .all)
        let value = await runtime.run { () -> Int in
            let data = Handler(Cell(), runtime: runtime)
            let gate = Gate()
            let blocker = Client(runtime)
            // The handler's first call holds it (and one thread) until the gate opens.
            await blocker.separate(data) { d in await d.call { _ in gate.wait() } }
            await Self.logAndGo(runtime, data, blocks: 300)
            XCTAssertEqual(runtime.liveQueues, 2, "the gone client's queue was freed with blocks still to run")
            gate.open()
            return await blocker.separate(data) { d in await d.query { $0.value } }
        }
        XCTAssertEqual(value, 300, "blocks of a client that went away were lost")
        runtime.shutdown()
        XCTAssertEqual(runtime.liveQueues, 0, "a queue outlived its client and its handler's work")
    }

    /// A client may run on and go away, with its handler, the moment its sync is answered or its
    /// wait condition granted, while the thread that logged the sync (or linked the reservation, or
    /// parked the handler) has not returned yet: that thread must touch neither after. Short-lived
    /// clients and handlers, with those threads paused at each of those moments in turn
    /// (Interleaving, debug builds), make any such touch a touch of freed memory in every run.
    func testClientsAndHandlersGoneOnceAnsweredAreNotTouched() async {
        defer { Interleaving.pausing.store(0, ordering: .relaxed) }
        let moments: [Interleaving.Moment] = [.syncLogged, .reservationLinked, .parkedInBlock, .parkedBetweenBlocks]
        for moment in moments {
            Interleaving.pausing.store(moment.rawValue, ordering: .relaxed)
            await Self.comeAndGo(moment)
        }
    }

    private static func comeAndGo(_ moment: Interleaving.Moment) async {
        for configuration in [Configuration.qoq, .all] {
            let total = await withRuntime(workers: 4, configuration) { runtime in
                let total = Counter()
                let shared = [Handler(Cell(), runtime: runtime), Handler(Cell(), runtime: runtime)]
                await runtime.clients(8) { index, _ in
                    for round in 0..<200 {
                        // Alternately a handler others keep busy (it runs on another thread when
                        // this client logs) and one of its own, gone with it.
                        let data = round % 2 == 0 ? shared[index % 2] : Handler(Cell(), runtime: runtime)
                        if index % 4 < 2 {
                            _ = await Client(runtime).separate(data) { d in
                                await d.call { $0.value += 1 }
                                return await d.query { $0.value }
                            }
                        } else {
                            await Client(runtime).separate(data, until: { $0.value >= 0 }) { d in await d.call { $0.value += 1 } }
                        }
                        total.add()
                    }
                }
                let values = await Client(runtime).separate(shared[0], shared[1]) { a, b in
                    (await a.query { $0.value }, await b.query { $0.value })
                }
                return total.value + values.0 + values.1
            }
            XCTAssertEqual(total, 1_600 + 800, "\(configuration), paused \(moment)")
        }
    }

    /// A client that logs `blocks` increments on `data` and goes away at once.
    private static func logAndGo(_ runtime: Runtime, _ data: Handler<Cell>, blocks: Int) async {
        let client = Client(runtime)
        for _ in 0..<blocks { await client.separate(data) { d in await d.call { $0.value += 1 } } }
    }

    /// Multi-reservations of the same two handlers given in opposite orders never deadlock: the
    /// reservation locks are taken in handler order whatever order the block names them in.
    func testOppositeMultiReservationsNeverDeadlock() async {
        for configuration in Configuration.allCases {
            let totals = await withRuntime(workers: 2, configuration) { runtime in
                let x = Handler(Cell(), runtime: runtime), y = Handler(Cell(), runtime: runtime)
                await runtime.clients(4) { index, client in
                    for _ in 0..<5_000 {
                        if index % 2 == 0 {
                            await client.separate(x, y) { a, b in await a.call { $0.value += 1 }; await b.call { $0.value += 1 } }
                        } else {
                            await client.separate(y, x) { a, b in await a.call { $0.value += 1 }; await b.call { $0.value += 1 } }
                        }
                    }
                }
                return await Client(runtime).separate(x, y) { a, b in (await a.query { $0.value }, await b.query { $0.value }) }
            }
            XCTAssertEqual(totals.0, 20_000, "\(configuration)")
            XCTAssertEqual(totals.1, 20_000, "\(configuration)")
        }
    }

    /// What remains: a cycle of queries. Client 1 holds x and queries y inside; client 2 holds y and
    /// queries x inside. Forced into that interleaving, neither query returns.
    func testAQueryCycleDeadlocks() async throws {
        let runtime = Runtime(workers: 2, configuration: .all)
        let x = Handler(Cell(), runtime: runtime), y = Handler(Cell(), runtime: runtime)
        let both = Counter(), done = Counter()
        for (outer, inner) in [(x, y), (y, x)] {
            Task(executorPreference: runtime.pool) {
                let client = Client(runtime)
                await client.separate(outer) { o in
                    _ = await o.query { $0.value }   // the handler now waits on this block
                    both.add()
                    while both.value < 2 { await Task.yield() }
                    _ = await client.separate(inner) { i in await i.query { $0.value } }
                    done.add()
                }
            }
        }
        try await Task.sleep(nanoseconds: 500_000_000)
        XCTAssertEqual(both.value, 2)
        XCTAssertEqual(done.value, 0, "a query cycle should deadlock")
        // The two clients stay suspended for good; the runtime's threads are idle, so it is left as it is.
    }

    /// Wait conditions: workers take turns on one counter, each waiting for its own residue (the
    /// condition benchmark has two turns; four make a block granted out of turn far likelier).
    func testWaitConditionsLetWorkersTakeTurns() async {
        for configuration in Configuration.allCases {
            let (value, wrong) = await withRuntime(workers: 2, configuration) { runtime in
                let data = Handler(Cell(), runtime: runtime)
                let wrong = Counter()
                await runtime.clients(8) { index, client in
                    let turn = index % 4
                    for _ in 0..<100 {
                        await client.separate(data, until: { $0.value % 4 == turn }) { d in
                            // The condition still holds here: nobody ran between its test and this block.
                            if await d.query({ $0.value }) % 4 != turn { wrong.add() }
                            await d.call { $0.value += 1 }
                        }
                    }
                }
                let value = await Client(runtime).separate(data) { d in await d.query { $0.value } }
                return (value, wrong.value)
            }
            XCTAssertEqual(value, 800, "\(configuration)")
            XCTAssertEqual(wrong, 0, "\(configuration): a block ran while its condition was false")
        }
    }

    /// A wait condition's test and the block it guards run under one reservation: consumers wait
    /// for a non-empty stack and pop, and no two of them ever see the same item or an empty stack.
    func testAWaitConditionHoldsThroughItsBlock() async {
        for configuration in Configuration.allCases {
            let (taken, wrong) = await withRuntime(workers: 2, configuration) { runtime in
                let stack = Handler(Journal(), runtime: runtime)
                let wrong = Counter(), taken = Counter()
                await runtime.clients(8) { index, client in
                    if index < 4 {
                        for seq in 0..<300 {
                            await client.separate(stack) { s in await s.call { $0.entries.append(.init(client: index, block: 0, seq: seq)) } }
                        }
                    } else {
                        for _ in 0..<300 {
                            await client.separate(stack, until: { !$0.entries.isEmpty }) { s in
                                let count = await s.query { $0.entries.count }
                                if count == 0 { wrong.add() }
                                await s.call { if !$0.entries.isEmpty { $0.entries.removeLast() } }
                                taken.add()
                            }
                        }
                    }
                }
                let left = await Client(runtime).separate(stack) { s in await s.query { $0.entries.count } }
                if left != 0 { wrong.add() }
                return (taken.value, wrong.value)
            }
            XCTAssertEqual(taken, 1_200, "\(configuration)")
            XCTAssertEqual(wrong, 0, "\(configuration): a consumer ran on an empty stack")
        }
    }

    /// A block with a wait condition queued behind the same client's plain block, both waiting
    /// while another client holds the handler: the condition belongs to the second block only, and
    /// the first, which makes it true, runs first.
    func testAWaitQueuedBehindItsClientsOwnBlock() async {
        for configuration in Configuration.allCases {
            let value = await withRuntime(workers: 2, configuration) { runtime in
                let handler = Handler(Cell(), runtime: runtime)
                let logged = Counter()
                let holder = Task(executorPreference: runtime.pool) {
                    await Client(runtime).separate(handler) { h in
                        _ = await h.query { $0.value }            // the handler now waits on this block
                        while logged.value == 0 { await Task.yield() }
                        try? await Task.sleep(nanoseconds: 20_000_000)
                    }
                }
                let main = Client(runtime)
                await main.separate(handler) { await $0.call { $0.value += 1 } }
                logged.add()
                let seen = await main.separate(handler, until: { $0.value == 1 }) { h in await h.query { $0.value } }
                await holder.value
                return seen
            }
            XCTAssertEqual(value, 1, "\(configuration)")
        }
    }

    /// A wait condition that holds on a handler parked between blocks costs its client no suspension:
    /// the client takes the handler over, tests the condition and grants the block to itself (under
    /// `qoq` and `all`; the lock modes test it under the block lock). One that does not hold gives the
    /// handler back as it was, and the block waits like any other until a change makes it true.
    func testAWaitConditionThatHoldsOnAnIdleHandlerIsGrantedWithoutSuspending() async {
        for configuration in Configuration.allCases where !configuration.locksBlocks {
            let (granted, seen) = await withRuntime(workers: 2, configuration) { runtime in
                let cell = Handler(Cell(), runtime: runtime)
                let client = Client(runtime)
                for _ in 0..<20 {
                    while cell.state.load(ordering: .acquiring) != HandlerCore.betweenBlocks { await Task.yield() }
                    await client.separate(cell, until: { $0.value >= 0 }) { c in await c.call { $0.value += 1 } }
                }
                while cell.state.load(ordering: .acquiring) != HandlerCore.betweenBlocks { await Task.yield() }
                async let waiter = Client(runtime).separate(cell, until: { $0.value == 21 }) { c in await c.query { $0.value } }
                await client.separate(cell) { c in await c.call { $0.value += 1 } }
                let seen = await waiter
                return (cell.grantsWithoutSuspending, seen)
            }
            // The waiter may find the handler idle after the change too, and be granted in place: 20 or 21.
            XCTAssertGreaterThanOrEqual(granted, 20, "\(configuration): a condition that held on an idle handler suspended its client")
            XCTAssertEqual(seen, 21, "\(configuration)")
        }
    }

    /// A sync that finds the handler parked on its block (it has run every call) costs its client no
    /// suspension where syncs coalesce (`dynamic`, `all`): the client takes the handler over, runs
    /// whatever it had not taken, and parks it again. Elsewhere every sync is a round trip, as the
    /// paper's configurations without dynamic coalescing have it. Each query sees the calls before it.
    func testASyncOnAHandlerParkedOnItsBlockIsServedWithoutSuspending() async {
        for configuration in Configuration.allCases {
            let (inPlace, seen) = await withRuntime(workers: 2, configuration) { runtime in
                let cell = Handler(Cell(), runtime: runtime)
                let client = Client(runtime)
                var seen: [Int] = []
                for _ in 0..<20 {
                    let value = await client.separate(cell) { c in
                        await c.call { $0.value += 1 }
                        while cell.state.load(ordering: .acquiring) == HandlerCore.running { await Task.yield() }
                        return await c.query { $0.value }
                    }
                    seen.append(value)
                }
                return (cell.syncsWithoutSuspending, seen)
            }
            XCTAssertEqual(inPlace, configuration.coalescesSyncs ? 20 : 0, "\(configuration)")
            XCTAssertEqual(seen, Array(1...20), "\(configuration): a query missed a call before it")
        }
    }

    /// The configurations differ where the paper says: with dynamic sync coalescing a synced
    /// handler is not synced again, so the same program performs fewer syncs (counted by the handler).
    func testCoalescingSavesSyncs() async {
        var syncs: [Configuration: Int] = [:]
        for configuration in Configuration.allCases {
            syncs[configuration] = await withRuntime(workers: 2, configuration) { runtime in
                let handler = Handler(Cell(), runtime: runtime)
                let client = Client(runtime)
                for _ in 0..<50 {
                    await client.separate(handler) { h in
                        await h.call { $0.value += 1 }
                        for _ in 0..<4 { _ = await h.query { $0.value } }
                    }
                }
                return handler.syncsServed
            }
        }
        XCTAssertEqual(syncs[.none], 200, "none: every query syncs")
        XCTAssertEqual(syncs[.qoq], 200, "qoq: every query syncs")
        XCTAssertEqual(syncs[.dynamic], 50, "dynamic: one sync per block, the queries after it coalesce")
        XCTAssertEqual(syncs[.static], 200, "static: queries outside a query loop sync as under none")
        XCTAssertEqual(syncs[.all], 50, "all: one sync per block")
    }

    /// A query loop sees every call its client logged before it, whatever the configuration; under
    /// static coalescing (`static`, `all`) it syncs once, under `dynamic` its first query syncs and
    /// the rest coalesce, under `none` and `qoq` every query syncs (counted by the handler).
    func testAQueryLoopSeesEveryEarlierCallAndSyncsAsItsConfigurationSays() async {
        let (rounds, width) = (20, 64)
        for configuration in Configuration.allCases {
            let (seen, syncs) = await withRuntime(workers: 2, configuration) { runtime in
                let handler = Handler(Row(width), runtime: runtime)
                let client = Client(runtime)
                var seen: [[Int]] = []
                for round in 1...rounds {
                    seen.append(await client.separate(handler) { h -> [Int] in
                        // A slow call: a read that overtook it would see the round before's row.
                        await h.call { row in
                            usleep(200)
                            row.values = Array(repeating: round, count: width)
                        }
                        var out: [Int] = []
                        await h.query(each: 0..<width, into: &out) { $0.values[$1] }
                        return out
                    })
                }
                return (seen, handler.syncsServed)
            }
            XCTAssertEqual(seen, (1...rounds).map { Array(repeating: $0, count: width) }, "\(configuration)")
            let perLoop: [Configuration: Int] = [.none: width, .qoq: width, .dynamic: 1, .static: 1, .all: 1]
            XCTAssertEqual(syncs, rounds * perLoop[configuration]!, "\(configuration)")
        }
    }

    /// `queryIfSynced` reads only where `query` would not sync: after a sync under the coalescing
    /// configurations, and never after a call logged since (which the read must not overtake).
    func testAQueryWithoutAWaitReadsOnlyWhenSynced() async {
        for configuration in Configuration.allCases {
            let seen = await withRuntime(workers: 2, configuration) { runtime in
                let handler = Handler(Cell(), runtime: runtime)
                return await Client(runtime).separate(handler) { h -> [Int?] in
                    var seen: [Int?] = []
                    await h.call { $0.value += 1 }
                    seen.append(h.queryIfSynced { $0.value })
                    seen.append(await h.query { $0.value })
                    seen.append(h.queryIfSynced { $0.value })
                    await h.call { $0.value += 1 }
                    seen.append(h.queryIfSynced { $0.value })
                    seen.append(await h.query { $0.value })
                    return seen
                }
            }
            let coalesces = configuration == .dynamic || configuration == .all
            XCTAssertEqual(seen, [nil, 1, coalesces ? 1 : nil, nil, 2], "\(configuration)")
        }
    }

    /// A call with an argument carries its own: each runs with the argument it was logged with, in
    /// its place among the block's other calls, whichever client logged it.
    func testACallWithAnArgumentRunsWithItsArgumentInItsPlace() async {
        for configuration in Configuration.allCases {
            let entries = await withRuntime(workers: 2, configuration) { runtime in
                let journal = Handler(Journal(), runtime: runtime)
                await runtime.clients(3) { index, client in
                    for block in 0..<200 {
                        await client.separate(journal) { j in
                            await j.call(with: block) { $0.entries.append(.init(client: index, block: $1, seq: 0)) }
                            await j.call { $0.entries.append(.init(client: index, block: block, seq: 1)) }
                        }
                    }
                }
                return await Client(runtime).separate(journal) { j in await j.query { UncheckedEntries($0.entries) } }
            }.entries
            XCTAssertEqual(entries.count, 1200, "\(configuration)")
            for client in 0..<3 {
                let own = entries.filter { $0.client == client }
                let expected = (0..<200).flatMap { [Journal.Entry(client: client, block: $0, seq: 0), .init(client: client, block: $0, seq: 1)] }
                XCTAssertEqual(own, expected, "\(configuration): client \(client)")
            }
        }
    }

    /// A client whose code is isolated to an actor is back on that actor after every way the
    /// runtime suspends it (a wait condition granted, a sync): the continuation
    /// resumes on the pool, and the hop back to the caller's isolation must follow it.
    func testAnActorsClientStaysOnItsActorWhereverItWaits() async {
        for configuration in Configuration.allCases {
            let (taken, checked) = await withRuntime(workers: 2, configuration) { runtime in
                let cell = Handler(Cell(), runtime: runtime)
                let desk = Desk(runtime)
                async let taken = desk.take(from: cell)
                // The desk's condition holds only once this client has logged its call.
                await Client(runtime).separate(cell) { c in await c.call { $0.value = 7 } }
                return (await taken, await desk.checked)
            }
            XCTAssertEqual(taken, 7 + PrivateQueue.initialCapacity * 64, "\(configuration)")
            XCTAssertEqual(checked, 4, "\(configuration)")
        }
    }

    /// A call may be a client itself: it reserves another handler, logs there and queries, while
    /// its own handler serves nothing else, so the blocks around it still do not interleave.
    func testACallThatIsAClientKeepsItsBlockWhole() async {
        for trial in 0..<60 {
            var random = SplitMix(state: UInt64(trial))
            let configuration = Configuration.allCases[trial % Configuration.allCases.count]
            let workers = Int.random(in: 1...4, using: &random)
            let (clientCount, blocks) = (Int.random(in: 2...5, using: &random), 20)
            let (entries, total) = await withRuntime(workers: workers, configuration) { runtime in
                let journal = Handler(Journal(), runtime: runtime)
                let tally = Handler(Cell(), runtime: runtime)
                await runtime.clients(clientCount) { index, client in
                    for block in 0..<blocks {
                        await client.separate(journal) { j in
                            await j.call { $0.entries.append(.init(client: index, block: block, seq: 0)) }
                            await j.call { journal, handler in
                                // The handler's own client: its count comes back from the other handler.
                                let seen = await handler.separate(tally) { t in
                                    await t.call { $0.value += 1 }
                                    return await t.query { $0.value }
                                }
                                journal.entries.append(.init(client: index, block: block, seq: seen))
                            }
                            await j.call { $0.entries.append(.init(client: index, block: block, seq: -1)) }
                        }
                    }
                }
                let main = Client(runtime)
                let entries = await main.separate(journal) { j in await j.query { UncheckedEntries($0.entries) } }
                return (entries, await main.separate(tally) { t in await t.query { $0.value } })
            }
            let label = "trial \(trial) (\(configuration), \(workers) threads)"
            XCTAssertEqual(total, clientCount * blocks, label)
            XCTAssertEqual(entries.entries.count, 3 * clientCount * blocks, label)
            var counts: [Int] = []
            for start in stride(from: 0, to: entries.entries.count, by: 3) {
                let three = entries.entries[start..<start + 3]
                let first = three.first!
                XCTAssertTrue(three.allSatisfy { $0.client == first.client && $0.block == first.block }, label)
                XCTAssertEqual([first.seq, three.last!.seq], [0, -1], label)
                counts.append(three[start + 1].seq)
            }
            // Every act saw its own increment: the counts are 1...total, each once, rising.
            XCTAssertEqual(counts, Array(1...clientCount * blocks), label)
        }
    }

    /// A runtime whose pool is the global executor runs every task with no actor and no executor
    /// preference on its threads, one runtime at a time, and only until it shuts down.
    func testAGlobalRuntimeRunsTasksWithoutPreferenceUntilItShutsDown() async {
        let runtime = Runtime(workers: 2, global: true)
        XCTAssertTrue(runtime.ownsGlobalExecutor, "the pool did not become the global executor")
        let other = Runtime(workers: 1, global: true)
        XCTAssertFalse(other.ownsGlobalExecutor, "two pools own the global executor")
        other.shutdown()
        let pool = runtime.pool
        let onPool = await Task.detached { pool.runsCaller }.value
        XCTAssertTrue(onPool, "a task with no preference ran off the pool that owns the global executor")
        runtime.shutdown()
        let afterwards = await Task.detached { pool.runsCaller }.value
        XCTAssertFalse(afterwards, "a stopped pool still took global jobs")
        let next = Runtime(workers: 1, global: true)
        XCTAssertTrue(next.ownsGlobalExecutor, "shutting down did not give the global executor back")
        next.shutdown()
    }

    /// Handlers are lightweight: 10 000 of them on a pool of 2 threads add no thread.
    func testTenThousandHandlersCostNoThreads() async {
        let runtime = Runtime(workers: 2)
        defer { runtime.shutdown() }
        let before = threadCount(), allBefore = allThreads()
        XCTAssertGreaterThanOrEqual(before, 2, "the pool's own threads are counted")
        let sum = await runtime.run {
            let handlers = (0..<10_000).map { _ in Handler(Cell(), runtime: runtime) }
            let client = Client(runtime)
            for (i, handler) in handlers.enumerated() {
                await client.separate(handler) { h in await h.call { $0.value = i } }
            }
            var sum = 0
            for handler in handlers { sum += await client.separate(handler) { h in await h.query { $0.value } } }
            return sum
        }
        XCTAssertEqual(sum, (0..<10_000).reduce(0, +))
        XCTAssertLessThanOrEqual(threadCount(), before, "handlers must not start pool threads")
        // Other threads of the process (XCTest's, Dispatch's) may come and go, but not one per handler.
        XCTAssertLessThan(allThreads(), allBefore + 100, "handlers must not start threads")
    }
}

func allThreads() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
}

/// The process's pool threads (named "separate-<i>"), whichever runtime they serve: other threads
/// (XCTest's, Dispatch's) come and go on their own.
func threadCount() -> Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.filter { task in
        let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
        return name.hasPrefix("separate-")
    }.count
}

/// Weak references to handlers, to see whether they are freed.
final class WeakHandlers: @unchecked Sendable {
    private let lock = NSLock()
    private var handlers: [WeakHandler] = []
    private struct WeakHandler { weak var handler: HandlerCore? }

    func keep(_ more: HandlerCore...) {
        lock.lock()
        handlers += more.map { WeakHandler(handler: $0) }
        lock.unlock()
    }

    var allFreed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return handlers.allSatisfy { $0.handler == nil }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

/// An actor using the runtime as a client: it checks that it is on itself after each suspension.
actor Desk {
    let client: Client
    var checked = 0

    init(_ runtime: Runtime) { client = Client(runtime) }

    /// Waits for the cell to be set (a granted wait condition), logs more calls than a ring starts
    /// with (it grows several times), then queries (a sync).
    func take(from cell: Handler<Cell>) async -> Int {
        let first = await client.separate(cell, until: { $0.value != 0 }) { c -> Int in
            self.preconditionIsolated("after a granted wait condition")
            return await c.query { $0.value }
        }
        checked += 1
        await client.separate(cell) { c in
            for _ in 0..<(PrivateQueue.initialCapacity * 64) { await c.call { $0.value += 1 } }
            self.preconditionIsolated("after the calls")
        }
        checked += 1
        let last = await client.separate(cell) { c -> Int in
            let value = await c.query { $0.value }
            self.preconditionIsolated("after a sync")
            return value
        }
        checked += 1
        preconditionIsolated("after the blocks")
        checked += 1
        return first == 7 ? last : -1
    }
}

/// The journal's entries leave the handler after a query, as a copy.
struct UncheckedEntries: @unchecked Sendable {
    let entries: [Journal.Entry]
    init(_ entries: [Journal.Entry]) { self.entries = entries }
}

/// A latch a handler's call waits on, blocking its thread, as a long call would hold it.
final class Gate: @unchecked Sendable {
    private let opened = NSCondition()
    private var isOpen = false

    func open() {
        opened.lock()
        isOpen = true
        opened.broadcast()
        opened.unlock()
    }

    func wait() {
        opened.lock()
        while !isOpen { opened.wait() }
        opened.unlock()
    }
}
