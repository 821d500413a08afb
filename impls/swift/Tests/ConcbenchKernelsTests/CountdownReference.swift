/// Two independent computations of countdown, written from the spec's text and
/// sharing no code with the kernels: the declarative definition by brute force over
/// set partitions (which trees are solutions), and a plain transliteration of the
/// spec's enumeration pseudo-code with the main dispatcher (how many micro-batches).
enum CountdownReference {
    enum Kind {
        case add, mul
    }

    /// Bytewise order of the canonical strings.
    static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    static func canonical(_ kind: Kind, forward: [String], reverse: [String]) -> String {
        var text = forward.sorted(by: precedes).joined(separator: kind == .add ? "+" : "*")
        for r in reverse.sorted(by: precedes) {
            text += (kind == .add ? "-" : "/") + r
        }
        return text
    }

    /// `solutions=<count> checksum=<cs>` with FNV-1a 64 and rank weights, per the spec.
    static func result(_ solutions: [String]) -> String {
        var cs: UInt64 = 0
        for (k, s) in solutions.sorted(by: precedes).enumerated() {
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in s.utf8 {
                h = (h ^ UInt64(byte)) &* 0x100_0000_01b3
            }
            cs = cs &+ h &* UInt64(k + 1)
        }
        return "solutions=\(solutions.count) checksum=\(cs)"
    }

    // MARK: The declarative definition, by brute force

    /// A tree over some input positions: its value, its text as an operand (a leaf
    /// bare, a node in parentheses) and its kind (nil for a leaf).
    private struct Tree {
        let value: UInt64
        let operandText: String
        let kind: Kind?
    }

    /// Every tree whose leaves are all the numbers and whose value is the goal, as
    /// canonical strings: every set partition of the positions into >= 2 operands,
    /// every choice of subtrees of the other kind and of forward/reverse sides.
    static func bruteForce(goal: UInt64, numbers: [UInt64]) -> [String] {
        var memo: [String: [Tree]] = [:]

        func partitions(_ items: ArraySlice<Int>) -> [[Int]] {
            guard let first = items.first else { return [[]] }
            var out: [[Int]] = []
            for p in partitions(items.dropFirst()) {
                for i in p.indices {
                    var q = p
                    q[i] |= 1 << first
                    out.append(q)
                }
                out.append(p + [1 << first])
            }
            return out
        }

        /// Nodes of `kind` over the positions in `mask`, or (kind nil) every tree: a
        /// leaf for one position, else nodes of either kind.
        func trees(_ mask: Int, _ kind: Kind?) -> [Tree] {
            let key = "\(mask) \(String(describing: kind))"
            if let known = memo[key] { return known }
            let items = numbers.indices.filter { mask & (1 << $0) != 0 }
            var out: [Tree] = []
            if items.count == 1 {
                out = kind == nil ? [Tree(value: numbers[items[0]], operandText: String(numbers[items[0]]), kind: nil)] : []
            } else if let kind {
                for blocks in partitions(items[...]) where blocks.count >= 2 {
                    let choices = blocks.map { trees($0, nil).filter { $0.kind != kind } }
                    // Depth-first over the blocks: a subtree and a side for each.
                    func choose(_ b: Int, _ f: UInt64, _ r: UInt64, _ fw: [String], _ rv: [String]) {
                        if b == blocks.count {
                            let valid = kind == .add ? f > r : f % r == 0
                            if valid {
                                let text = canonical(kind, forward: fw, reverse: rv)
                                out.append(Tree(value: kind == .add ? f - r : f / r, operandText: text, kind: kind))
                            }
                            return
                        }
                        for t in choices[b] {
                            if kind == .add {
                                choose(b + 1, f + t.value, r, fw + [t.operandText], rv)
                                choose(b + 1, f, r + t.value, fw, rv + [t.operandText])
                            } else {
                                choose(b + 1, f * t.value, r, fw + [t.operandText], rv)
                                choose(b + 1, f, r * t.value, fw, rv + [t.operandText])
                            }
                        }
                    }
                    choose(0, kind == .add ? 0 : 1, kind == .add ? 0 : 1, [], [])
                }
            } else {
                // Any tree: nodes of both kinds, written as operands.
                out = (trees(mask, .add) + trees(mask, .mul)).map {
                    Tree(value: $0.value, operandText: "(" + $0.operandText + ")", kind: $0.kind)
                }
            }
            memo[key] = out
            return out
        }

        let all = (1 << numbers.count) - 1
        return (trees(all, .add) + trees(all, .mul)).filter { $0.value == goal }.map(\.operandText)
    }

    // MARK: The spec's enumeration order, transliterated

    private struct Value {
        let value: UInt64
        let operandText: String
        let composed: Bool
    }

    private struct Acc {
        var forward: UInt64
        var reverse: UInt64
        var skip = 0
    }

    private enum Dispatcher {
        case main, extend
    }

    /// The spec's `solve()` with `DISPATCH_main`; each micro-batch is explored at once
    /// on a copy of the state with `DISPATCH = extend`. Returns the solution strings
    /// and the number of micro-batches emitted.
    static func enumerate(goal: UInt64, numbers: [UInt64]) -> (solutions: [String], batches: Int) {
        var avail = numbers.map { Value(value: $0, operandText: String($0), composed: false) }
        var cur = 0
        var prev = 0
        var solutions: [String] = []
        var batches = 0

        func text(_ kind: Kind, _ ops: [(Value, Bool)]) -> String {
            canonical(
                kind, forward: ops.filter { !$0.1 }.map(\.0.operandText),
                reverse: ops.filter { $0.1 }.map(\.0.operandText))
        }

        func floor(_ kind: Kind, _ d: Dispatcher) {
            if prev != 0 { return }
            prev = cur
            cur = 0
            node(kind, 0, d)
            cur = prev
            prev = 0
        }

        func node(_ kind: Kind, _ start: Int, _ d: Dispatcher) {
            var acc = kind == .add ? Acc(forward: 0, reverse: 0) : Acc(forward: 1, reverse: 1)
            dispatch(&acc, kind, start, [], d)
        }

        func dispatch(_ acc: inout Acc, _ kind: Kind, _ start: Int, _ ops: [(Value, Bool)], _ d: Dispatcher) {
            if d == .main {
                let est = avail.count + (ops.isEmpty ? 0 : 1)
                if start < avail.count - cur && est == 5 {
                    batches += 1
                    let saved = (avail, cur, prev, acc)
                    extend(&acc, kind, start, ops, .extend)
                    (avail, cur, prev, acc) = saved
                    return
                }
            }
            extend(&acc, kind, start, ops, d)
        }

        func extend(_ acc: inout Acc, _ kind: Kind, _ start: Int, _ ops: [(Value, Bool)], _ d: Dispatcher) {
            let empty = ops.isEmpty
            let stop = empty && prev > 0 ? start + 1 : avail.count - cur
            var off = start
            while off < stop {
                if empty { acc.skip = off }
                let x = avail.remove(at: avail.count - cur - 1 - off)
                if x.composed { prev -= 1 }
                func combine(_ a: UInt64, _ b: UInt64) -> UInt64 { kind == .add ? a + b : a * b }
                func uncombine(_ a: UInt64, _ b: UInt64) -> UInt64 { kind == .add ? a - b : a / b }
                for reverse in [false, true] {
                    if reverse { acc.reverse = combine(acc.reverse, x.value) } else { acc.forward = combine(acc.forward, x.value) }
                    let ops2 = [(x, reverse)] + ops
                    dispatch(&acc, kind, off, ops2, d)
                    let valid = kind == .add ? acc.forward > acc.reverse : acc.forward % acc.reverse == 0
                    if !empty && valid {
                        let v = kind == .add ? acc.forward - acc.reverse : acc.forward / acc.reverse
                        if avail.isEmpty {
                            if v == goal { solutions.append(text(kind, ops2)) }
                        } else {
                            avail.append(Value(value: v, operandText: "(" + text(kind, ops2) + ")", composed: true))
                            cur += 1
                            node(kind, acc.skip, d)
                            floor(kind == .add ? .mul : .add, d)
                            avail.removeLast()
                            cur -= 1
                        }
                    }
                    if reverse { acc.reverse = uncombine(acc.reverse, x.value) } else { acc.forward = uncombine(acc.forward, x.value) }
                }
                if x.composed { prev += 1 }
                avail.insert(x, at: avail.count - cur - off)
                off += 1
            }
        }

        floor(.add, .main)
        floor(.mul, .main)
        return (solutions, batches)
    }
}
