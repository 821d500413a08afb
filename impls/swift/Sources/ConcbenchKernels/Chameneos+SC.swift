extension Chameneos {
    /// The Swift shapes: `rendezvous` is the spec's Swift counterpart (the default),
    /// `message` its actor-library form. `best-handoff` (not the paper's program; issue 26): the
    /// rendezvous place on an executor thread of its own, every creature's loop isolated to it, so a
    /// meeting is one suspend and one resume on that thread (Chameneos+Handoff.swift).
    public enum SCShape: String, CaseIterable, Sendable {
        case rendezvous
        case message
        case bestHandoff = "best-handoff"
    }

    public static func sc(_ shape: SCShape, _ config: Config) async -> Sample {
        switch shape {
        case .rendezvous: return await run(config, play: playRendezvous)
        case .message: return await run(config, play: playMessages)
        case .bestHandoff:
            // The executor's thread starts and ends outside the timed games.
            let executor = ThreadExecutor(name: "place")
            defer { executor.shutdown() }
            return await run(config) { await playHandoff($0, on: executor) }
        }
    }

    /// sc/rendezvous: the creatures are child tasks of one group, each looping on
    /// `await place.meet(...)`; the first arrival suspends on a continuation. The
    /// group's join is the place having every report.
    static func playRendezvous(_ game: Game) async -> Outcome {
        let place = RendezvousPlace(game)
        let reports = await creatureReports(game) { id in
            var creature = RendezvousCreature(id: id)
            while case .meet(let partner, let colour) = await place.meet(id: id, colour: creature.colour) {
                creature.met(partner, colour)
            }
            return creature.report
        }
        return Outcome(meetings: await place.meetings, reports: reports)
    }

    /// Runs every creature's life as a child task of one group (on `executor` where given) and
    /// returns their reports.
    static func creatureReports(_ game: Game, on executor: (any TaskExecutor)? = nil,
                                life: @escaping @Sendable (Int) async -> Report) async -> [Report] {
        await withTaskGroup(of: Report.self) { group in
            for id in 0..<game.creatures {
                group.addTask(executorPreference: executor) { await life(id) }
            }
            var reports: [Report] = []
            reports.reserveCapacity(game.creatures)
            for await report in group {
                reports.append(report)
            }
            return reports
        }
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

/// The rendezvous place's state, whichever actor holds it: the start gate, the one waiting
/// creature and the meetings made.
struct RendezvousDesk<Waiter: Resumable> where Waiter.Value == Chameneos.Reply {
    struct Request {
        let id: Int
        let colour: Chameneos.Colour
        let reply: Waiter
    }

    private(set) var meetings = 0
    private let limit: Int
    private var waiting: Request?
    private var gate: Chameneos.StartGate<Request>

    init(_ game: Chameneos.Game) {
        limit = game.meetings
        gate = Chameneos.StartGate(gated: game.gated, size: game.creatures)
    }

    /// The answer without suspending, when the partner is here (it is resumed with its own) or the
    /// game is over; nil when the creature must wait.
    mutating func answerAtOnce(id: Int, colour: Chameneos.Colour) -> Chameneos.Reply? {
        guard gate.isOpen else { return nil }
        if meetings == limit { return .stop }
        guard let partner = waiting else { return nil }
        waiting = nil
        meetings += 1
        let c = Chameneos.complement(colour, partner.colour)
        partner.reply.resume(returning: .meet(partner: id, colour: c))
        return .meet(partner: partner.id, colour: c)
    }

    /// A creature that waits: it is the one waiting, or held at the gate until all C have asked.
    mutating func wait(_ request: Request) {
        guard !gate.isOpen else {
            waiting = request
            return
        }
        for r in gate.admit(request) {
            answer(r)
        }
    }

    /// One held request, taken in arrival order once the gate opens.
    private mutating func answer(_ r: Request) {
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

/// A rendezvous creature's own tally: its colour, its meetings and those with itself.
struct RendezvousCreature {
    let id: Int
    private(set) var colour: Chameneos.Colour
    private var meetings = 0
    private var selfMeetings = 0

    init(id: Int) {
        self.id = id
        colour = Chameneos.initialColour(id)
    }

    mutating func met(_ partner: Int, _ newColour: Chameneos.Colour) {
        meetings += 1
        if partner == id { selfMeetings += 1 }
        colour = newColour
    }

    var report: Chameneos.Report {
        Chameneos.Report(meetings: meetings, selfMeetings: selfMeetings, colour: colour)
    }
}

/// The rendezvous meeting place: the one serialisation point, holding the waiting
/// creature's continuation.
actor RendezvousPlace {
    private var desk: RendezvousDesk<CheckedContinuation<Chameneos.Reply, Never>>

    var meetings: Int { desk.meetings }

    init(_ game: Chameneos.Game) {
        desk = RendezvousDesk(game)
    }

    /// Returns the partner's id and the new colour, or `stop` once M meetings are done.
    func meet(id: Int, colour: Chameneos.Colour) async -> Chameneos.Reply {
        if let reply = desk.answerAtOnce(id: id, colour: colour) {
            return reply
        }
        // The body runs on this actor before any other call gets in.
        return await withCheckedContinuation { desk.wait(.init(id: id, colour: colour, reply: $0)) }
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
