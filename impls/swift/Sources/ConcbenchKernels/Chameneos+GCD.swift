import Dispatch

extension Chameneos {
    /// The gcd shapes. `message` uses plain serial queues, which libdispatch points at
    /// its overcommit root queue: a queue with work gets a thread even when every
    /// core is busy, so the pool grows to its cap. `message-global` points every
    /// queue at `DispatchQueue.global()`, whose pool stays near the core count.
    public enum GCDShape: String, CaseIterable, Sendable {
        case message
        case messageGlobal = "message-global"
    }

    /// gcd/message: a serial queue per creature and one for the meeting place; every
    /// send is an `async` block on the receiver's queue; the place signals a
    /// semaphore when it has all C reports.
    public static func gcd(_ shape: GCDShape, _ config: Config) -> Sample {
        let target: DispatchQueue? = shape == .messageGlobal ? .global() : nil
        return run(config) { game in
            let place = QueuePlace(game, target: target)
            let creatures = (0..<game.creatures).map { QueueCreature(id: $0, place: place, target: target) }
            for creature in creatures {
                creature.queue.async { creature.run() }
            }
            place.done.wait()
            return place.outcome()
        }
    }
}

/// A creature: its state is only touched in blocks on its own queue.
final class QueueCreature: @unchecked Sendable {
    let queue: DispatchQueue
    private let id: Int
    private var colour: Chameneos.Colour
    private var meetings = 0
    private var selfMeetings = 0
    private let place: QueuePlace

    init(id: Int, place: QueuePlace, target: DispatchQueue?) {
        queue = DispatchQueue(label: "chameneos.creature", target: target)
        self.id = id
        colour = Chameneos.initialColour(id)
        self.place = place
    }

    /// `place ! request(self, id, colour)`
    func run() {
        let (place, id, colour) = (place, id, colour)
        place.queue.async { place.request(from: self, id: id, colour: colour) }
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
        place.queue.async { place.report(report) }
    }
}

/// The meeting place: its state is only touched in blocks on its queue, and read by
/// `outcome()` after `done` has been signalled.
final class QueuePlace: @unchecked Sendable {
    let queue: DispatchQueue
    let done = DispatchSemaphore(value: 0)
    private var matchmaker: Chameneos.Matchmaker<QueueCreature>
    private let creatures: Int
    private var reports: [Chameneos.Report] = []

    init(_ game: Chameneos.Game, target: DispatchQueue?) {
        queue = DispatchQueue(label: "chameneos.place", target: target)
        matchmaker = Chameneos.Matchmaker(game)
        creatures = game.creatures
        reports.reserveCapacity(game.creatures)
    }

    func request(from creature: QueueCreature, id: Int, colour: Chameneos.Colour) {
        matchmaker.request(.init(creature: creature, id: id, colour: colour)) { answer in
            switch answer {
            case .stop(let creature):
                creature.queue.async { creature.stop() }
            case .meet(let r, let partner, let c):
                let (creature, mate) = (r.creature, partner.creature)
                let (id, mateId) = (r.id, partner.id)
                creature.queue.async { creature.meet(partner: mateId, colour: c) }
                mate.queue.async { mate.meet(partner: id, colour: c) }
            }
        }
    }

    func report(_ report: Chameneos.Report) {
        reports.append(report)
        if reports.count == creatures {
            done.signal()
        }
    }

    /// The place's count and the reports, read on its queue once `done` is signalled.
    func outcome() -> Chameneos.Outcome {
        queue.sync { Chameneos.Outcome(meetings: matchmaker.meetings, reports: reports) }
    }
}
