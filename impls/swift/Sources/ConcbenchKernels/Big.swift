/// big: N workers ping random neighbours in neighbourhoods of H, P pings each, one ping
/// outstanding at a time; a sink counts the workers' exits. Pure message passing.
public enum Big {
    public struct Config: Sendable, Equatable {
        /// N, `--param`.
        public var workers: Int
        /// P, option `pings` (the thesis's 16 000 by default).
        public var pings = 16_000
        /// H, option `hood` (1000 by default).
        public var hood = 1000

        public init(workers: Int, pings: Int = 16_000, hood: Int = 1000) {
            self.workers = workers
            self.pings = pings
            self.hood = hood
        }

        /// The worker ids of each neighbourhood; the last one may be ragged.
        var neighbourhoods: [Range<Int>] {
            stride(from: 0, to: workers, by: hood).map { $0..<min(workers, $0 + hood) }
        }
    }

    /// The sender of the first pong: distinct from every local id.
    static let start = -1

    /// A worker's counters once the system is quiescent.
    struct Counts: Sendable {
        var pingsReceived = 0
        var pongsReceived = 0
    }

    static func result(_ counts: [Counts]) -> String {
        var messages = 0
        var cs: UInt64 = 0
        for (w, c) in counts.enumerated() {
            messages += c.pingsReceived + c.pongsReceived
            cs = cs &+ UInt64(c.pingsReceived) &* UInt64(w + 1)
        }
        return "messages=\(messages) checksum=\(cs)"
    }
}

/// One worker's state and handlers, the same in every model; the model only delivers
/// the messages and carries out the send each handler asks for.
struct BigWorker: Sendable {
    enum Send {
        /// `table[target] ! ping(j)`
        case ping(target: Int)
        /// `sink ! exit`
        case exit
    }

    /// j, the id within the neighbourhood.
    let localID: Int
    private let hoodSize: UInt32
    private let pings: Int
    private var rng: LCG32
    private var expected = Big.start
    private var sent = 0
    private(set) var counts = Big.Counts()

    init(worker w: Int, localID: Int, hoodSize: Int, pings: Int) {
        self.localID = localID
        self.hoodSize = UInt32(hoodSize)
        self.pings = pings
        rng = LCG32(seed: UInt32(truncatingIfNeeded: w))
    }

    /// `on pong(from)`: count it, then ping the next random neighbour or exit.
    mutating func pong(from: Int) -> Send {
        if from != expected {
            // A correct run never gets here; a wrong pong means the delivery is broken.
            fatalError("big: WrongPinger (local id \(localID) expected \(expected), got \(from))")
        }
        if from != Big.start {
            counts.pongsReceived += 1
        }
        if sent == pings {
            return .exit
        }
        let target = Int(rng.draw(hoodSize))
        expected = target
        sent += 1
        return .ping(target: target)
    }

    /// `on ping(from)`: count it; the pong goes back to `from`.
    mutating func ping(from: Int) -> Int {
        counts.pingsReceived += 1
        return from
    }
}

/// One neighbourhood's table (local id -> worker), shared by its members: pitfall 5's
/// "one immutable table per neighbourhood". Filled while the workers are created,
/// before the first message, and only read afterwards (the first send of each run
/// orders the fill before every read); emptied after the run to break the cycle
/// worker -> table -> worker.
final class Neighbourhood<Member>: @unchecked Sendable {
    var members: [Member] = []

    init(capacity: Int) {
        members.reserveCapacity(capacity)
    }
}
