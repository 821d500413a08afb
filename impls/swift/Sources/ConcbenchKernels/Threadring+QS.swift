import Separate

/// threadring/qs (threadring.md, SCOOP/Qs source): R workers, each a node object on its own
/// handler. Worker i waits with the wait condition `require node.has_token`, takes the token with
/// a query, and re-arms its neighbour with a call; at 0 it reports. Only one handler is busy at a
/// time: the cost is the switch from handler to handler.
extension Threadring {
    final class Node {
        var token: Int?          // nil: no token; -1: the ring has finished
        init() {}
    }

    static let finished = -1

    public static nonisolated(nonsending) func qs(_ runtime: Runtime, tokens: Int, ring: Int) async -> Sample {
        await Sample.timing({
            let nodes = (0..<ring).map { _ in Handler(Node(), runtime: runtime) }
            let winner = Winner()
            let starter = Client(runtime)
            await starter.separate(nodes[0]) { first in first.call { $0.token = tokens } }
            await runtime.clients(ring) { index, client in
                let next = nodes[(index + 1) % ring]
                while true {
                    let token = await client.separate(nodes[index], until: { $0.token != nil }) { node in
                        let token = await node.query { $0.token! }
                        if token != finished { node.call { $0.token = nil } }
                        return token
                    }
                    if token == finished { return }
                    if token == 0 {
                        winner.set(index + 1)      // the Benchmarks Game numbers entities from 1
                        for other in nodes { await client.separate(other) { o in o.call { $0.token = finished } } }
                        return
                    }
                    await client.separate(next) { n in n.call { $0.token = token - 1 } }
                }
            }
            return winner.value
        }, format: result)
    }
}

final class Winner: @unchecked Sendable {
    // Written by the one winner before the group ends, read after it.
    private(set) var value = 0
    func set(_ id: Int) { value = id }
}
