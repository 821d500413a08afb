/// The portable input generator of the specs: s' = (1664525·s + 1013904223) mod 2^32.
public struct LCG32: Sendable {
    public private(set) var state: UInt32

    public init(seed: UInt32) {
        state = seed
    }

    /// One step; returns the new state.
    @inline(__always)
    public mutating func step() -> UInt32 {
        state = 1_664_525 &* state &+ 1_013_904_223
        return state
    }

    /// A draw in [0, m): one step, then the new state mod m.
    @inline(__always)
    public mutating func draw(_ m: UInt32) -> UInt32 {
        step() % m
    }
}
