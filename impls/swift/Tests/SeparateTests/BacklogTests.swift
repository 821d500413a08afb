// The private queues are rings that grow: a client that logs faster than its handler runs never
// waits, and nothing it logged is lost, reordered or run twice.

import Separate
import XCTest

final class BacklogTests: XCTestCase {
    /// One block far longer than any ring, then many one-call blocks logged without ever waiting
    /// for an answer: the handler sees every call once, in order, under every configuration.
    func testLongBlocksAndBackloggedClientsKeepTheirOrder() async {
        let watchdog = Watchdog(seconds: 120, "backlog")
        defer { watchdog.cancel() }
        for configuration in Configuration.allCases {
            let seen = await withRuntime(workers: 2, configuration) { runtime in
                let handler = Handler(Journal(), runtime: runtime)
                await runtime.clients(3) { index, client in
                    await client.separate(handler) { h in
                        for seq in 0..<5_000 { await h.call { $0.entries.append(.init(client: index, block: 0, seq: seq)) } }
                    }
                    for block in 1...20_000 {
                        await client.separate(handler) { h in await h.call { $0.entries.append(.init(client: index, block: block, seq: 0)) } }
                    }
                }
                return await Client(runtime).separate(handler) { h in await h.query { UncheckedEntries($0.entries) } }
            }
            XCTAssertEqual(seen.entries.count, 3 * 25_000, "\(configuration)")
            for client in 0..<3 {
                let mine = seen.entries.filter { $0.client == client }
                let expected = (0..<5_000).map { Journal.Entry(client: client, block: 0, seq: $0) }
                    + (1...20_000).map { Journal.Entry(client: client, block: $0, seq: 0) }
                XCTAssertEqual(mine, expected, "\(configuration) client \(client)")
            }
        }
    }
}
