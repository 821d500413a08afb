import Separate

/// threadring/qs (threadring.md, SCOOP/Qs source): R workers, each a node object on its own
/// handler. Worker i waits with the wait condition `require node.has_token`, takes the token with
/// a query, and re-arms its neighbour with a call; at 0 it reports to a separate report object.
/// Only one handler is busy at a time: the cost is the switch from handler to handler. The timer
/// stops at the report; stopping the other workers comes after it, untimed, as the spec says.
extension Threadring {
    final class Node {
        var token: Int?          // nil: no token; -1: the ring has finished
        init() {}
    }

    final class Report {
        var id: Int?
    }

    static let finished = -1

    public static nonisolated(nonsending) func qs(_ runtime: Runtime, tokens: Int, ring: Int) async -> Sample {
        await runtime.run { await ringOnRuntime(runtime, tokens: tokens, ring: ring) }   // main is a client too
    }

    static nonisolated(nonsending) func ringOnRuntime(_ runtime: Runtime, tokens: Int, ring: Int) async -> Sample {
        let t0 = monotonicNanos()
        let nodes = (0..<ring).map { _ in Handler(Node(), runtime: runtime) }
        let report = Handler(Report(), runtime: runtime)
        let main = Client(runtime)
        let workers = runtime.task {
            await runtime.clients(ring) { index, client in
                let next = nodes[(index + 1) % ring]
                while true {
                    let token = await client.separate(nodes[index], until: { $0.token != nil }) { node in
                        let token = await node.query { $0.token! }
                        if token != finished { await node.call { $0.token = nil } }
                        return token
                    }
                    if token == finished { return }
                    if token == 0 {
                        // The Benchmarks Game numbers entities from 1.
                        await client.separate(report) { r in await r.call { $0.id = index + 1 } }
                        return
                    }
                    await client.separate(next) { n in await n.call(with: token - 1) { $0.token = $1 } }
                }
            }
        }
        await main.separate(nodes[0]) { first in await first.call { $0.token = tokens } }
        let id = await main.separate(report, until: { $0.id != nil }) { r in await r.query { $0.id! } }
        let t1 = monotonicNanos()
        for node in nodes { await main.separate(node) { n in await n.call { $0.token = finished } } }
        await workers.value
        return Sample(ns: t1 &- t0, result: result(id))
    }
}
