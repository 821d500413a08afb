extension Chameneos {
    /// The Swift shapes: `rendezvous` is the spec's Swift counterpart (the default),
    /// `message` its actor-library form.
    public enum SCShape: String, CaseIterable, Sendable {
        case rendezvous
        case message
    }

    public static func sc(_ shape: SCShape, _ config: Config) async -> Sample {
        switch shape {
        case .rendezvous: await run(config, play: playRendezvous)
        case .message: await run(config, play: playMessages)
        }
    }

    /// sc/rendezvous: the creatures are child tasks of one group, each looping on
    /// `await place.meet(...)`; the first arrival suspends on a continuation. The
    /// group's join is the place having every report.
    static func playRendezvous(_ game: Game) async -> Outcome {
        let place = RendezvousPlace(game)
        let reports = await withTaskGroup(of: Report.self) { group in
            for id in 0..<game.creatures {
                group.addTask {
                    var colour = initialColour(id)
                    var meetings = 0
                    var selfMeetings = 0
                    while case .meet(let partner, let newColour) = await place.meet(id: id, colour: colour) {
                        meetings += 1
                        if partner == id { selfMeetings += 1 }
                        colour = newColour
                    }
                    return Report(meetings: meetings, selfMeetings: selfMeetings, colour: colour)
                }
            }
            var reports: [Report] = []
            reports.reserveCapacity(game.creatures)
            for await report in group {
                reports.append(report)
            }
            return reports
        }
        return Outcome(meetings: await place.meetings, reports: reports)
    }

    /// sc/message: the creatures and the place are actors, and every send is a new
    /// Task making one call (`post`), fire-and-forget as in the thesis's pseudo-code.
    static func playMessages(_ game: Game) async -> Outcome {
        let place = MessagePlace(game)
        let creatures = (0..<game.creatures).map { MessageCreature(id: $0, place: place) }
        for creature in creatures {
            post { await creature.run() }
        }
        return await place.outcome()
    }
}

/// The rendezvous meeting place: the one serialisation point, holding the waiting
/// creature's continuation.
actor RendezvousPlace {
    struct Request {
        let id: Int
        let colour: Chameneos.Colour
        let reply: CheckedContinuation<Chameneos.Reply, Never>
    }

    private(set) var meetings = 0
    private let limit: Int
    private var waiting: Request?
    private var gate: Chameneos.StartGate<Request>

    init(_ game: Chameneos.Game) {
        limit = game.meetings
        gate = Chameneos.StartGate(gated: game.gated, size: game.creatures)
    }

    /// Returns the partner's id and the new colour, or `stop` once M meetings are done.
    func meet(id: Int, colour: Chameneos.Colour) async -> Chameneos.Reply {
        // The partner is here, or the game is over: answer without suspending.
        if gate.isOpen {
            if meetings == limit { return .stop }
            if let partner = waiting {
                waiting = nil
                meetings += 1
                let c = Chameneos.complement(colour, partner.colour)
                partner.reply.resume(returning: .meet(partner: id, colour: c))
                return .meet(partner: partner.id, colour: c)
            }
        }
        // The body runs on this actor before any other call gets in.
        return await withCheckedContinuation { reply in
            let request = Request(id: id, colour: colour, reply: reply)
            guard !gate.isOpen else {
                waiting = request
                return
            }
            for r in gate.admit(request) {
                answer(r)
            }
        }
    }

    /// One held request, taken in arrival order once the gate opens.
    private func answer(_ r: Request) {
        if meetings == limit {
            r.reply.resume(returning: .stop)
        } else if let partner = waiting {
            waiting = nil
            meetings += 1
            let c = Chameneos.complement(r.colour, partner.colour)
            partner.reply.resume(returning: .meet(partner: r.id, colour: c))
            r.reply.resume(returning: .meet(partner: partner.id, colour: c))
        } else {
            waiting = r
        }
    }
}

actor MessageCreature {
    private let id: Int
    private var colour: Chameneos.Colour
    private var meetings = 0
    private var selfMeetings = 0
    private let place: MessagePlace

    init(id: Int, place: MessagePlace) {
        self.id = id
        colour = Chameneos.initialColour(id)
        self.place = place
    }

    /// `place ! request(self, id, colour)`
    func run() {
        let (place, id, colour) = (place, id, colour)
        post { await place.request(from: self, id: id, colour: colour) }
    }

    func meet(partner: Int, colour: Chameneos.Colour) {
        meetings += 1
        if partner == id { selfMeetings += 1 }
        self.colour = colour
        run()
    }

    /// `place ! report(count, selfMeet, colour)`
    func stop() {
        let place = place
        let report = Chameneos.Report(meetings: meetings, selfMeetings: selfMeetings, colour: colour)
        post { await place.report(report) }
    }
}

actor MessagePlace {
    private var matchmaker: Chameneos.Matchmaker<MessageCreature>
    private let creatures: Int
    private var reports: [Chameneos.Report] = []
    private var finished: CheckedContinuation<Chameneos.Outcome, Never>?

    init(_ game: Chameneos.Game) {
        matchmaker = Chameneos.Matchmaker(game)
        creatures = game.creatures
        reports.reserveCapacity(game.creatures)
    }

    func request(from creature: MessageCreature, id: Int, colour: Chameneos.Colour) {
        matchmaker.request(.init(creature: creature, id: id, colour: colour)) { answer in
            switch answer {
            case .stop(let creature):
                post { await creature.stop() }
            case .meet(let r, let partner, let c):
                let (creature, mate) = (r.creature, partner.creature)
                let (id, mateId) = (r.id, partner.id)
                post { await creature.meet(partner: mateId, colour: c) }
                post { await mate.meet(partner: id, colour: c) }
            }
        }
    }

    func report(_ report: Chameneos.Report) {
        reports.append(report)
        if reports.count == creatures {
            finished?.resume(returning: Chameneos.Outcome(meetings: matchmaker.meetings, reports: reports))
            finished = nil
        }
    }

    /// Returns once all C reports are in, whether they came before this call or after.
    func outcome() async -> Chameneos.Outcome {
        if reports.count == creatures {
            return Chameneos.Outcome(meetings: matchmaker.meetings, reports: reports)
        }
        return await withCheckedContinuation { finished = $0 }
    }
}
