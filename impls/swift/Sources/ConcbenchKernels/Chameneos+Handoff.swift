/// chameneos/sc/best-handoff (not the paper's program; issue 26): the rendezvous place as an actor
/// on a `ThreadExecutor`, and every creature a child task that prefers that executor and lives its
/// whole loop isolated to the place. A `meet` is a plain call, with no hop onto the actor and back;
/// the first arrival suspends on an `UnsafeContinuation`, and the partner that resumes it has it
/// queued on the same thread, where it runs as soon as the partner suspends in its own next `meet`.
/// A meeting is one suspend and one resume on one thread, and no thread is woken.
actor HandoffPlace: ThreadExecutorActor {
    private var desk: RendezvousDesk<UnsafeContinuation<Chameneos.Reply, Never>>
    nonisolated let executor: ThreadExecutor

    var meetings: Int { desk.meetings }

    init(_ game: Chameneos.Game, executor: ThreadExecutor) {
        desk = RendezvousDesk(game)
        self.executor = executor
    }

    func meet(id: Int, colour: Chameneos.Colour) async -> Chameneos.Reply {
        if let reply = desk.answerAtOnce(id: id, colour: colour) {
            return reply
        }
        return await withUnsafeContinuation { desk.wait(.init(id: id, colour: colour, reply: $0)) }
    }

    /// Creature `id`'s whole life on this actor.
    func creature(_ id: Int) async -> Chameneos.Report {
        var creature = RendezvousCreature(id: id)
        while case .meet(let partner, let colour) = await meet(id: id, colour: creature.colour) {
            creature.met(partner, colour)
        }
        return creature.report
    }
}

extension Chameneos {
    static func playHandoff(_ game: Game, on executor: ThreadExecutor) async -> Outcome {
        let place = HandoffPlace(game, executor: executor)
        let reports = await creatureReports(game, on: executor) { await place.creature($0) }
        return Outcome(meetings: await place.meetings, reports: reports)
    }
}
