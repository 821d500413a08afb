/// threadring/sc/actors: one entity. Its state is the successor's mailbox; `receive`
/// handles one token and never awaits the successor.
actor ThreadringNode {
    let id: Int
    private var next: AsyncStream<Int>.Continuation?
    private let report: AsyncStream<Int>.Continuation

    init(id: Int, report: AsyncStream<Int>.Continuation) {
        self.id = id
        self.report = report
    }

    func link(_ next: AsyncStream<Int>.Continuation) {
        self.next = next
    }

    func receive(_ t: Int) {
        if t == 0 {
            report.yield(id)
        } else {
            next!.yield(t - 1)
        }
    }
}

extension Threadring {
    public static func sc(_ shape: SCShape, tokens: Int, ring: Int) async -> Sample {
        if shape == .bestHandoff {
            // The executor's thread starts before the clock and ends after it, as in every best-handoff shape.
            let executor = ThreadExecutor(name: "ring")
            defer { executor.shutdown() }
            let t0 = monotonicNanos()
            let (id, t1) = await handoff(tokens: tokens, ring: ring, on: executor)
            return Sample(ns: t1 &- t0, result: result(id))
        }
        let t0 = monotonicNanos()
        let (reports, report) = AsyncStream.makeStream(of: Int.self)
        let mailboxes = (0..<ring).map { _ in AsyncStream.makeStream(of: Int.self) }
        let (id, t1) = await withDiscardingTaskGroup { group in
            switch shape {
            case .streams:
                for k in 0..<ring {
                    let inbox = mailboxes[k].stream
                    let next = mailboxes[(k + 1) % ring].continuation
                    group.addTask {
                        for await t in inbox {
                            if t == 0 {
                                report.yield(k + 1)
                            } else {
                                next.yield(t - 1)
                            }
                        }
                    }
                }
            case .bestHandoff:
                preconditionFailure("best-handoff runs on its own ring actor")
            case .actors:
                let nodes = (0..<ring).map { ThreadringNode(id: $0 + 1, report: report) }
                for k in 0..<ring {
                    await nodes[k].link(mailboxes[(k + 1) % ring].continuation)
                    let inbox = mailboxes[k].stream
                    let node = nodes[k]
                    group.addTask {
                        for await t in inbox {
                            await node.receive(t)
                        }
                    }
                }
            }
            mailboxes[0].continuation.yield(tokens)
            var answers = reports.makeAsyncIterator()
            let id = await answers.next()!
            let t1 = monotonicNanos()
            // Untimed teardown: ending every mailbox ends every loop, and the group joins them.
            for mailbox in mailboxes {
                mailbox.continuation.finish()
            }
            return (id, t1)
        }
        return Sample(ns: t1 &- t0, result: result(id))
    }
}
