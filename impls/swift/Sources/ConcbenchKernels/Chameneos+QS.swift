import Separate

/// chameneos/qs (chameneos.md, SCOOP/Qs): every creature and the broker is an object on its own
/// handler, and a signal object collects the reports that end the run. A request is a call on the
/// broker logged inside a `separate broker` block; the broker, a client itself, completes a meeting
/// with a `meet_with` call on each of the two creatures, each in a block of its own (the stored
/// program's `send_cham`), the newcomer first; each creature, in turn a client, logs its next
/// request from its `meet_with`. Nothing waits but main, on the signal's wait condition. The
/// paper's program ran redux's 10-creature game only; this one plays both games, as the spec's
/// result has them.
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
            await main.separate(creature) { c in await c.call { creature, client in await creature.ask(client) } }
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
        nonisolated(nonsending) func ask(_ client: Client) async {
            let (id, colour) = (id, colour)
            await client.separate(broker) { b in await b.call { broker, client in await broker.request(id, colour, client) } }
        }

        nonisolated(nonsending) func meet(with partner: Int, colour: Colour, _ client: Client) async {
            meetings += 1
            if partner == id { selfMeetings += 1 }
            self.colour = colour
            await ask(client)
        }

        nonisolated(nonsending) func stop(_ client: Client, signal: Handler<Signal>) async {
            let report = Report(meetings: meetings, selfMeetings: selfMeetings, colour: colour)
            await client.separate(signal) { s in await s.call { $0.reports.append(report) } }
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

        /// The answers are collected, then logged: logging a call may suspend (it reserves).
        nonisolated(nonsending) func request(_ id: Int, _ colour: Colour, _ client: Client) async {
            var answers: [Matchmaker<Handler<Creature>>.Answer] = []
            matchmaker.request(.init(creature: creatures[id], id: id, colour: colour)) { answers.append($0) }
            for answer in answers {
                switch answer {
                case .stop(let creature):
                    let signal = signal
                    await client.separate(creature) { c in
                        await c.call { creature, client in await creature.stop(client, signal: signal) }
                    }
                case .meet(let r, let partner, let c):
                    await send(r.creature, mate: partner.id, colour: c, client)
                    await send(partner.creature, mate: r.id, colour: c, client)
                }
            }
        }

        /// `send_cham`: `separate cham do cham.meet_with (c, n) end`, a block of its own per creature.
        nonisolated(nonsending) func send(_ creature: Handler<Creature>, mate: Int, colour: Colour, _ client: Client) async {
            await client.separate(creature) { c in
                await c.call { creature, client in await creature.meet(with: mate, colour: colour, client) }
            }
        }
    }

    final class Signal {
        var reports: [Report] = []
    }
}
