/// chameneos: creatures ask one meeting place for meetings until M have happened;
/// contention on one receiver, and how fairly the meetings spread.
public enum Chameneos {
    public enum Variant: String, CaseIterable, Sendable {
        /// C creatures (`--param`), M meetings (option `meetings`), start gate.
        case encore
        /// Game A (3 creatures) then game B (10), n meetings each (`--param`).
        case redux
    }

    public struct Config: Sendable, Equatable {
        public var variant: Variant
        /// C for encore, n for redux.
        public var param: Int
        /// M, encore only (redux ignores it).
        public var meetings: Int

        public init(variant: Variant, param: Int, meetings: Int = 8_000_000) {
            self.variant = variant
            self.param = param
            self.meetings = meetings
        }

        /// The games to play one after the other.
        var games: [Game] {
            switch variant {
            case .encore: [Game(creatures: param, meetings: meetings, gated: true)]
            case .redux: [3, 10].map { Game(creatures: $0, meetings: param, gated: false) }
            }
        }
    }

    struct Game: Sendable {
        let creatures: Int
        let meetings: Int
        /// The start gate: no meeting before all C first requests are in (encore only).
        let gated: Bool
    }

    /// The encore variant's start gate: the first request of every creature is held until all C
    /// have asked, then answered in arrival order. One piece for every meeting place.
    struct StartGate<Request> {
        private var held: [Request]?
        private let size: Int

        init(gated: Bool, size: Int) {
            held = gated ? [] : nil
            self.size = size
        }

        var isOpen: Bool { held == nil }

        /// The requests to answer now, in arrival order: this one alone once the gate is open,
        /// none while it fills, and every held one at the moment it opens.
        mutating func admit(_ request: Request) -> [Request] {
            guard held != nil else { return [request] }
            held!.append(request)
            guard held!.count == size else { return [] }
            defer { held = nil }
            return held!
        }
    }

    /// The meeting place of the message form, whatever carries its messages (actors, serial
    /// queues, handlers): requests pass the start gate in arrival order, and each one is told to
    /// stop once M meetings are made, meets the waiting one (both take the complement of their
    /// colours) or waits for a partner.
    struct Matchmaker<Creature> {
        struct Request {
            let creature: Creature
            let id: Int
            let colour: Colour
        }

        enum Answer {
            case stop(Creature)
            case meet(Request, partner: Request, colour: Colour)
        }

        private let limit: Int
        private(set) var meetings = 0
        private var waiting: Request?
        private var gate: StartGate<Request>

        init(_ game: Game) {
            limit = game.meetings
            gate = StartGate(gated: game.gated, size: game.creatures)
        }

        /// Takes a request; `send` gets each answer it makes possible now, in order.
        mutating func request(_ request: Request, _ send: (Answer) -> Void) {
            for r in gate.admit(request) {
                if meetings == limit {
                    send(.stop(r.creature))
                } else if let partner = waiting {
                    waiting = nil
                    meetings += 1
                    send(.meet(r, partner: partner, colour: complement(r.colour, partner.colour)))
                } else {
                    waiting = r
                }
            }
        }
    }

    public enum Colour: UInt8, Sendable {
        case blue = 0, red = 1, yellow = 2
    }

    /// a if a = b, else the third colour (the three raw values sum to 3).
    @inline(__always)
    static func complement(_ a: Colour, _ b: Colour) -> Colour {
        a == b ? a : Colour(rawValue: 3 &- a.rawValue &- b.rawValue)!
    }

    static let ten: [Colour] = [.blue, .red, .yellow, .red, .yellow, .blue, .red, .yellow, .red, .blue]

    static func initialColour(_ creature: Int) -> Colour {
        ten[creature % 10]
    }

    /// The meeting place's answer to a request.
    enum Reply: Sendable {
        case meet(partner: Int, colour: Colour)
        case stop
    }

    /// What a refused creature reports.
    struct Report: Sendable {
        let meetings: Int
        let selfMeetings: Int
        let colour: Colour
    }

    /// One finished game: the place's own meeting count and the C reports it received.
    struct Outcome: Sendable {
        let meetings: Int
        let reports: [Report]
    }

    /// Plays the games of `config` in order inside the timed region, then formats.
    static func run(_ config: Config, play: (Game) -> Outcome) -> Sample {
        let t0 = monotonicNanos()
        let outcomes = config.games.map(play)
        let t1 = monotonicNanos()
        return sample(config, ns: t1 &- t0, outcomes)
    }

    /// Async twin of `run`.
    static func run(_ config: Config, play: (Game) async -> Outcome) async -> Sample {
        let t0 = monotonicNanos()
        var outcomes: [Outcome] = []
        for game in config.games {
            outcomes.append(await play(game))
        }
        let t1 = monotonicNanos()
        return sample(config, ns: t1 &- t0, outcomes)
    }

    static func sample(_ config: Config, ns: UInt64, _ outcomes: [Outcome]) -> Sample {
        // encore's keys are bare; redux names each game by its creature count.
        let redux = config.variant == .redux
        let result = zip(config.games, outcomes).map { game, o in
            let tag = redux ? "\(game.creatures)" : ""
            let sum = o.reports.reduce(0) { $0 + $1.meetings }
            return "meetings\(tag)=\(o.meetings) creature_meetings\(tag)=\(sum)"
        }.joined(separator: " ")
        guard redux else {
            return Sample(ns: ns, result: result, metrics: metrics(outcomes[0], suffix: ""))
        }
        let selfMeetings = outcomes.reduce(0) { $0 + $1.reports.reduce(0) { $0 + $1.selfMeetings } }
        let perGame = zip(config.games, outcomes).flatMap { game, o in
            metrics(o, suffix: "_\(game.creatures)")
        }
        return Sample(ns: ns, result: result, metrics: [Metric("self_meetings", selfMeetings)] + perGame)
    }

    /// The spec's fairness figures for one game; redux names them per game (`_3`, `_10`).
    static func metrics(_ o: Outcome, suffix: String) -> [Metric] {
        let counts = o.reports.map(\.meetings)
        let c = Double(counts.count)
        // Around the ideal 2M/C, which is also the true mean: the counts sum to 2M.
        let mean = 2 * Double(o.meetings) / c
        let std = (counts.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / c).squareRoot()
        // No meetings: no coefficient of variation, so none is reported (docs/describe.md).
        let cv = mean > 0 ? [Metric("cv" + suffix, std / mean)] : []
        return [Metric("fairness_std" + suffix, std)] + cv + [
            Metric("min_meetings" + suffix, counts.min() ?? 0),
            Metric("max_meetings" + suffix, counts.max() ?? 0),
            Metric("self_meetings" + suffix, o.reports.reduce(0) { $0 + $1.selfMeetings }),
            Metric("colour_sum_mod3" + suffix, o.reports.reduce(0) { $0 + Int($1.colour.rawValue) } % 3),
        ]
    }
}
