import Separate

/// chameneos/qs (chameneos.md, SCOOP/Qs): every creature and the broker is an object on its own
/// handler, and a signal object collects the reports that end the run. A request is a call on the
/// broker logged inside a `separate broker` block; the broker, a client itself, completes a meeting
/// with a `meet_with` call on each of the two creatures, each in a block of its own (the stored
/// program's `send_cham`), the newcomer first; each creature, in turn a client, logs its next
/// request from its `meet_with`. Nothing waits but main, on the signal's wait condition. The
/// paper's program ran redux's 10-creature game only; this one plays both games, as the spec's
/// result has them. Every routine that opens blocks only logs calls in them, so each is a logging
/// call (`call(logging:)`): under the queue of queues its handler runs it in its loop like a plain
/// call, with no runner task.
extension Chameneos {
    public static nonisolated(nonsending) func qs(_ runtime: Runtime, _ config: Config) async -> Sample {
        // Main is a client too: it runs on the runtime's threads.
        await runtime.run { await run(config) { game in await playSeparate(runtime, game) } }
    }

    static nonisolated(nonsending) func playSeparate(_ runtime: Runtime, _ game: Game) async -> Outcome {
        let signal = Handler(Signal(), runtime: runtime)
        let broker = Handler(Broker(game, signal: signal), runtime: runtime)
        let creatures = (0..<game.creatures).map { Handler(Creature(id: $0, broker: broker), runtime: runtime) }
        let main = Client(runtime)
        await main.separate(broker) { b in await b.call { $0.creatures = creatures } }
        for creature in creatures {
            await main.separate(creature) { c in await c.call(logging: { creature, logger in creature.ask(logger) }) }
        }
        let reports = await main.separate(signal, until: { $0.reports.count == game.creatures }) { s in
            await s.query { $0.reports }
        }
        let meetings = await main.separate(broker) { b in await b.query { $0.matchmaker.meetings } }
        return Outcome(meetings: meetings, reports: reports)
    }

    final class Creature {
        let id: Int
        let broker: Handler<Broker>
        var colour: Colour
        var meetings = 0
        var selfMeetings = 0

        init(id: Int, broker: Handler<Broker>) {
            self.id = id
            self.broker = broker
            colour = initialColour(id)
        }

        /// `separate broker do broker.request (id, colour) end`
        func ask(_ logger: Logger) {
            let (id, colour) = (id, colour)
            logger.separate(broker) { b in b.call(logging: { broker, logger in broker.request(id, colour, logger) }) }
        }

        func meet(with partner: Int, colour: Colour, _ logger: Logger) {
            meetings += 1
            if partner == id { selfMeetings += 1 }
            self.colour = colour
            ask(logger)
        }

        func stop(_ logger: Logger, signal: Handler<Signal>) {
            let report = Report(meetings: meetings, selfMeetings: selfMeetings, colour: colour)
            logger.separate(signal) { s in s.call { $0.reports.append(report) } }
        }
    }

    final class Broker {
        let signal: Handler<Signal>
        var creatures: [Handler<Creature>] = []
        var matchmaker: Matchmaker<Handler<Creature>>

        init(_ game: Game, signal: Handler<Signal>) {
            self.signal = signal
            matchmaker = Matchmaker(game)
        }

        func request(_ id: Int, _ colour: Colour, _ logger: Logger) {
            let signal = signal
            matchmaker.request(.init(creature: creatures[id], id: id, colour: colour)) { answer in
                switch answer {
                case .stop(let creature):
                    logger.separate(creature) { c in c.call(logging: { creature, logger in creature.stop(logger, signal: signal) }) }
                case .meet(let r, let partner, let c):
                    send(r.creature, mate: partner.id, colour: c, logger)
                    send(partner.creature, mate: r.id, colour: c, logger)
                }
            }
        }

        /// `send_cham`: `separate cham do cham.meet_with (c, n) end`, a block of its own per creature.
        func send(_ creature: Handler<Creature>, mate: Int, colour: Colour, _ logger: Logger) {
            logger.separate(creature) { c in
                c.call(logging: { creature, logger in creature.meet(with: mate, colour: colour, logger) })
            }
        }
    }

    final class Signal {
        var reports: [Report] = []
    }
}
