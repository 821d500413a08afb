/// countdown: the exhaustive Countdown numbers-round search of AsyncCountdown, split
/// into micro-batches at est == 5, with at most N batches outstanding.
public enum Countdown {
    /// A goal and an ordered list of input numbers; the order fixes `batches`.
    public struct Instance: Sendable, Equatable {
        public let goal: UInt32
        public let numbers: [UInt32]

        public init(goal: UInt32, numbers: [UInt32]) {
            self.goal = goal
            self.numbers = numbers
        }

        /// The spec's named instances.
        public static let named: KeyValuePairs<String, Instance> = [
            "t4a": Instance(goal: 24, numbers: [1, 2, 3, 4]),
            "t4b": Instance(goal: 1, numbers: [1, 1, 1, 1]),
            "t5": Instance(goal: 120, numbers: [1, 2, 3, 4, 5]),
            "t6a": Instance(goal: 952, numbers: [25, 50, 75, 100, 3, 6]),
            "t6b": Instance(goal: 240, numbers: [2, 2, 3, 5, 7, 10]),
            "q7": Instance(goal: 952, numbers: [100, 75, 50, 25, 10, 5, 1]),
            "p8": Instance(goal: 952, numbers: [100, 75, 50, 25, 10, 5, 1, 2]),
        ]

        /// A named instance, or one written `GOAL:N1-N2-...` (decimal, numbers >= 1).
        public static func parse(_ text: String) throws(InstanceError) -> Instance {
            if let found = named.first(where: { $0.key == text }) {
                return found.value
            }
            let known = named.map(\.key).joined(separator: " ")
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2 else {
                throw InstanceError(
                    "unknown instance '\(text)' (named: \(known), or GOAL:N1-N2-... "
                        + "such as 317:3-7-8-50-75-4)")
            }
            guard let goal = decimal(parts[0]) else {
                throw InstanceError("malformed goal in instance '\(text)'")
            }
            var numbers: [UInt32] = []
            for item in parts[1].split(separator: "-", omittingEmptySubsequences: false) {
                guard let n = decimal(item), n >= 1 else {
                    throw InstanceError(
                        "malformed number '\(item)' in instance '\(text)' (expected integers >= 1)")
                }
                numbers.append(n)
            }
            // Accumulators are 32-bit, as in the original. Every value or accumulator
            // built from the numbers is at most prod(n_i + 1) - 1, so refuse instances
            // where that bound passes 2^32 instead of computing with wrapped values.
            // Every named instance passes (p8: 4 030 636 896).
            var bound: UInt64 = 1
            for n in numbers {
                bound *= UInt64(n) + 1
                if bound > 1 << 32 {
                    throw InstanceError(
                        "instance '\(text)' could overflow 32-bit accumulators "
                            + "(the product of (n + 1) must not exceed 2^32)")
                }
            }
            return Instance(goal: goal, numbers: numbers)
        }

        /// A plain decimal in 0...UInt32.max: digits only, no sign, not empty.
        private static func decimal(_ text: Substring) -> UInt32? {
            guard !text.isEmpty,
                text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { return nil }
            return UInt32(text)
        }
    }

    /// A malformed `--param`; the executable turns it into a usage error.
    public struct InstanceError: Error, Equatable {
        public let message: String

        init(_ message: String) {
            self.message = message
        }
    }

    /// The node kinds. Kinds alternate along every path of a tree.
    enum Op: UInt8, Sendable {
        case additive
        case multiplicative

        @inline(__always)
        var neutralValue: UInt32 {
            self == .additive ? 0 : 1
        }

        @inline(__always)
        var other: Op {
            self == .additive ? .multiplicative : .additive
        }

        @inline(__always)
        func combine(_ total: UInt32, _ value: UInt32) -> UInt32 {
            self == .additive ? total + value : total * value
        }

        /// The exact inverse of `combine`: MUL accumulators are always multiples.
        @inline(__always)
        func uncombine(_ total: UInt32, _ value: UInt32) -> UInt32 {
            self == .additive ? total - value : total / value
        }

        /// Whether a node with these accumulators is valid: F > R, or R divides F.
        @inline(__always)
        func valid(forward: UInt32, reverse: UInt32) -> Bool {
            self == .additive ? forward > reverse : forward % reverse == 0
        }

        var forwardSign: String { self == .additive ? "+" : "*" }
        var reverseSign: String { self == .additive ? "-" : "/" }
    }

    /// The canonical text of a node from its operand texts: forward texts sorted by
    /// bytes and joined with + or *, then each sorted reverse text after - or /.
    static func canonical(_ op: Op, forward: [String], reverse: [String]) -> String {
        var text = forward.sorted(by: bytewise).joined(separator: op.forwardSign)
        for r in reverse.sorted(by: bytewise) {
            text += op.reverseSign + r
        }
        return text
    }

    /// The text of one operand inside its parent: a leaf bare, a node in parentheses.
    static func operandText(value: UInt32, node: String?) -> String {
        node.map { "(" + $0 + ")" } ?? String(value)
    }

    static func bytewise(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// FNV-1a 64 over the bytes of `s`.
    static func fnv1a64(_ s: String) -> UInt64 {
        var h: UInt64 = 14_695_981_039_346_656_037
        for byte in s.utf8 {
            h ^= UInt64(byte)
            h = h &* 1_099_511_628_211
        }
        return h
    }

    /// `solutions=<count> checksum=<cs>`: strings sorted by bytes, duplicates kept,
    /// cs = sum of h(s_k)·(k+1) mod 2^64. Computed after the timed region.
    static func result(_ solutions: [String]) -> String {
        var cs: UInt64 = 0
        for (k, s) in solutions.sorted(by: bytewise).enumerated() {
            cs = cs &+ fnv1a64(s) &* UInt64(k + 1)
        }
        return "solutions=\(solutions.count) checksum=\(cs)"
    }

    /// What one timed run gathered: every solution string and the batches started.
    struct Outcome: Sendable {
        var solutions: [String]
        var batches: Int
    }

    /// The Sample of one sc run: the result, and the batches as the metric.
    static func sample(ns: UInt64, _ outcome: Outcome) -> Sample {
        Sample(ns: ns, result: result(outcome.solutions), metrics: [Metric("batches", outcome.batches)])
    }
}
