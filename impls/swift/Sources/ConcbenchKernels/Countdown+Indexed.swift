extension Countdown {
    /// sc/indexed: stage G of the thread, "indexed storage". Value types only: `avail`
    /// is a singly linked list kept in an array, the node under construction sits in
    /// it as a placeholder, and operand chains are nodes of a per-task arena addressed
    /// by typed UInt32 indexes with 0xFFFFFFFF as the sentinel. Slots and links are
    /// recycled, and the hot loop has no closures, optionals or heap allocation (the
    /// forward/reverse body is folded back into the phase loop). A batch copies the
    /// reachable part of the parent's arena into its own, so nothing is shared.
    /// The sequential baseline (seq/plain) runs the same synchronous code.
    enum Indexed {
        /// An index into one task's arena of `Element`s; 0xFFFFFFFF means none.
        struct Ref<Element>: Equatable, Sendable {
            var raw: UInt32

            static var none: Ref { Ref(raw: 0xFFFF_FFFF) }

            @inline(__always)
            var isNone: Bool { raw == 0xFFFF_FFFF }

            @inline(__always)
            var index: Int { Int(raw) }
        }

        /// An entry of `avail`: a leaf (no operands) or a composed value.
        struct Slot: Sendable {
            var value: UInt32
            var op: Op
            var operands: Ref<Link>
            /// The next older entry.
            var next: Ref<Slot>
        }

        /// One operand of a node: a copy of the value it took, its side, and the
        /// node's older operands. A chain is never changed once linked.
        struct Link: Sendable {
            var value: UInt32
            var op: Op
            var operands: Ref<Link>
            var reverse: Bool
            var next: Ref<Link>
        }

        /// The mutable state of one exploration (the main one, or a batch's copy).
        struct Core: Sendable {
            /// Storage of the avail list, newest first: the placeholder of the node
            /// under construction, then the `composedCount` values of the current
            /// floor, then the eligible ones (offset 0 first).
            var slots: [Slot]
            var head: Ref<Slot>
            /// Recycled slots, chained through `next`.
            var free: Ref<Slot>
            /// len(avail): live values, the placeholder excluded.
            var count: Int
            var composedCount: Int
            var otherComposedCount: Int
            /// The operand arena, used as a stack: a chain lives exactly as long as
            /// the branch that built it.
            var links: [Link]
            var top: UInt32

            init(_ numbers: [UInt32]) {
                let k = numbers.count
                // k leaves, at most k - 1 composed values and one placeholder.
                slots = []
                slots.reserveCapacity(2 * k + 1)
                for (i, n) in numbers.enumerated() {
                    slots.append(
                        Slot(value: n, op: .additive, operands: .none, next: Ref(raw: UInt32(i) &- 1)))
                }
                for i in k..<(2 * k + 1) {
                    let next = i == 2 * k ? Ref<Slot>.none : Ref(raw: UInt32(i + 1))
                    slots.append(Slot(value: 0, op: .additive, operands: .none, next: next))
                }
                head = k == 0 ? .none : Ref(raw: UInt32(k - 1))
                free = Ref(raw: UInt32(k))
                count = k
                composedCount = 0
                otherComposedCount = 0
                // Each value is an operand at most once along a branch: < 2k links.
                links = Array(repeating: Link.unused, count: max(2 * k, 1))
                top = 0
            }

            /// A private deep copy: fresh buffers, and only the live prefix of the
            /// arena (everything below `top` is reachable from `avail` or the chain
            /// being built).
            func privateCopy() -> Core {
                var copy = self
                copy.slots = slots.withUnsafeBufferPointer { Array($0) }
                copy.links = Array(unsafeUninitializedCapacity: links.count) { buffer, initialized in
                    for i in 0..<links.count {
                        buffer[i] = i < Int(top) ? links[i] : .unused
                    }
                    initialized = links.count
                }
                return copy
            }

            /// Pushes the placeholder of a new node at the head of `avail`.
            @inline(__always)
            mutating func pushPlaceholder() {
                let p = free
                free = slots[p.index].next
                slots[p.index].operands = .none
                slots[p.index].next = head
                head = p
            }

            @inline(__always)
            mutating func popPlaceholder() {
                let p = head
                head = slots[p.index].next
                slots[p.index].next = free
                free = p
            }

            /// The entry just before offset `offset` (the placeholder for offset 0
            /// when no value of the current floor exists).
            @inline(__always)
            func before(offset: Int) -> Ref<Slot> {
                var at = head
                for _ in 0..<(composedCount + offset) {
                    at = slots[at.index].next
                }
                return at
            }

            /// Chains a new operand link in front of `older`.
            @inline(__always)
            mutating func pushLink(_ x: Slot, reverse: Bool, older: Ref<Link>) -> Ref<Link> {
                let link = Ref<Link>(raw: top)
                links[link.index] = Link(
                    value: x.value, op: x.op, operands: x.operands, reverse: reverse, next: older)
                top += 1
                return link
            }

            /// The canonical text of a node from its operand chain.
            func describe(_ op: Op, _ chain: Ref<Link>) -> String {
                var forward: [String] = []
                var reverse: [String] = []
                var at = chain
                while !at.isNone {
                    let link = links[at.index]
                    let text = operandText(
                        value: link.value,
                        node: link.operands.isNone ? nil : describe(link.op, link.operands))
                    if link.reverse { reverse.append(text) } else { forward.append(text) }
                    at = link.next
                }
                return canonical(op, forward: forward, reverse: reverse)
            }
        }

        /// The node's two accumulators and where its siblings start.
        struct Acc: Sendable {
            var forwardValue: UInt32
            var reverseValue: UInt32
            var downstreamSiblingsRecruitmentSkip: Int
        }

        struct Batch: Sendable {
            let core: Core
            let acc: Acc
            let kind: Op
            let startingFrom: Int
            let walkOperands: Ref<Link>
        }

        static func run(_ instance: Instance, window: Int) async -> Outcome {
            let goal = instance.goal
            let numbers = instance.numbers
            return await capped(
                window: window,
                explore: { (channel: BatchChannel<Batch>, report: (String) -> Void) async in
                    var core = Core(numbers)
                    let main = Main(channel: channel, goal: goal)
                    await main.floor(&core, report, kind: .additive)
                    await main.floor(&core, report, kind: .multiplicative)
                },
                run: { (batch: Batch, report: (String) -> Void) in
                    var core = batch.core
                    var acc = batch.acc
                    extend(&core, &acc, report, batch.kind, batch.startingFrom, batch.walkOperands, goal)
                })
        }

        /// The whole sequential enumeration: DISPATCH = extend from the root.
        static func solve(_ numbers: [UInt32], goal: UInt32, _ report: (String) -> Void) {
            var core = Core(numbers)
            floor(&core, report, kind: .additive, goal)
            floor(&core, report, kind: .multiplicative, goal)
        }

        // MARK: synchronous: inside a batch, and the sequential baseline

        static func floor(_ core: inout Core, _ report: (String) -> Void, kind: Op, _ goal: UInt32) {
            guard core.otherComposedCount == 0 else { return }
            core.otherComposedCount = core.composedCount
            core.composedCount = 0
            node(&core, report, kind: kind, skip: 0, goal)
            core.composedCount = core.otherComposedCount
            core.otherComposedCount = 0
        }

        static func node(_ core: inout Core, _ report: (String) -> Void, kind: Op, skip: Int, _ goal: UInt32) {
            core.pushPlaceholder()
            var acc = Acc(
                forwardValue: kind.neutralValue, reverseValue: kind.neutralValue,
                downstreamSiblingsRecruitmentSkip: 0)
            extend(&core, &acc, report, kind, skip, .none, goal)
            core.popPlaceholder()
        }

        /// extend(): the candidate loop; DISPATCH is a direct recursive call.
        static func extend(
            _ core: inout Core, _ acc: inout Acc, _ report: (String) -> Void, _ kind: Op,
            _ startingFrom: Int, _ walkOperands: Ref<Link>, _ goal: UInt32
        ) {
            let emptyComposition = walkOperands.isNone
            let stop = (emptyComposition && core.otherComposedCount > 0)
                ? startingFrom + 1 : core.count - core.composedCount
            guard startingFrom < stop else { return }
            var before = core.before(offset: startingFrom)
            for candidateReverseOffset in startingFrom..<stop {
                if emptyComposition {
                    acc.downstreamSiblingsRecruitmentSkip = candidateReverseOffset
                }
                let taken = core.slots[before.index].next
                let rightChild = core.slots[taken.index]
                core.slots[before.index].next = rightChild.next
                core.count -= 1
                let composed = !rightChild.operands.isNone
                if composed {
                    core.otherComposedCount -= 1
                }
                for phase in 0..<2 {
                    let reverse = phase == 1
                    if reverse {
                        acc.reverseValue = kind.combine(acc.reverseValue, rightChild.value)
                    } else {
                        acc.forwardValue = kind.combine(acc.forwardValue, rightChild.value)
                    }
                    let selfNode = core.pushLink(rightChild, reverse: reverse, older: walkOperands)
                    extend(&core, &acc, report, kind, candidateReverseOffset, selfNode, goal)
                    // Close the node: a second operand (!empty) and valid accumulators.
                    if !emptyComposition,
                        kind.valid(forward: acc.forwardValue, reverse: acc.reverseValue)
                    {
                        let realizedValue = kind.uncombine(acc.forwardValue, acc.reverseValue)
                        if core.count == 0 {
                            if realizedValue == goal {
                                report(core.describe(kind, selfNode))
                            }
                        } else {
                            let placeholder = core.head
                            core.slots[placeholder.index].value = realizedValue
                            core.slots[placeholder.index].op = kind
                            core.slots[placeholder.index].operands = selfNode
                            core.count += 1
                            core.composedCount += 1
                            node(&core, report, kind: kind, skip: acc.downstreamSiblingsRecruitmentSkip, goal)
                            floor(&core, report, kind: kind.other, goal)
                            core.count -= 1
                            core.composedCount -= 1
                            core.slots[placeholder.index].operands = .none
                        }
                    }
                    core.top -= 1
                    if reverse {
                        acc.reverseValue = kind.uncombine(acc.reverseValue, rightChild.value)
                    } else {
                        acc.forwardValue = kind.uncombine(acc.forwardValue, rightChild.value)
                    }
                }
                if composed {
                    core.otherComposedCount += 1
                }
                core.slots[taken.index].next = core.slots[before.index].next
                core.slots[before.index].next = taken
                core.count += 1
                before = taken
            }
        }

        // MARK: the main exploration (async), which splits at est == 5

        struct Main {
            let channel: BatchChannel<Batch>
            let goal: UInt32

            func floor(_ core: inout Core, _ report: (String) -> Void, kind: Op) async {
                guard core.otherComposedCount == 0 else { return }
                core.otherComposedCount = core.composedCount
                core.composedCount = 0
                await node(&core, report, kind: kind, skip: 0)
                core.composedCount = core.otherComposedCount
                core.otherComposedCount = 0
            }

            func node(_ core: inout Core, _ report: (String) -> Void, kind: Op, skip: Int) async {
                core.pushPlaceholder()
                var acc = Acc(
                    forwardValue: kind.neutralValue, reverseValue: kind.neutralValue,
                    downstreamSiblingsRecruitmentSkip: 0)
                await dispatch(&core, &acc, report, kind, skip, .none)
                core.popPlaceholder()
            }

            /// DISPATCH_main: at est == 5 a batch gets a private copy; else extend.
            func dispatch(
                _ core: inout Core, _ acc: inout Acc, _ report: (String) -> Void, _ kind: Op,
                _ startingFrom: Int, _ walkOperands: Ref<Link>
            ) async {
                guard startingFrom < core.count - core.composedCount,
                    core.count + (walkOperands.isNone ? 0 : 1) == 5
                else {
                    await extend(&core, &acc, report, kind, startingFrom, walkOperands)
                    return
                }
                await channel.send(
                    Batch(
                        core: core.privateCopy(), acc: acc, kind: kind, startingFrom: startingFrom,
                        walkOperands: walkOperands))
            }

            /// extend(), async twin of the batch version.
            func extend(
                _ core: inout Core, _ acc: inout Acc, _ report: (String) -> Void, _ kind: Op,
                _ startingFrom: Int, _ walkOperands: Ref<Link>
            ) async {
                let emptyComposition = walkOperands.isNone
                let stop = (emptyComposition && core.otherComposedCount > 0)
                    ? startingFrom + 1 : core.count - core.composedCount
                guard startingFrom < stop else { return }
                var before = core.before(offset: startingFrom)
                for candidateReverseOffset in startingFrom..<stop {
                    if emptyComposition {
                        acc.downstreamSiblingsRecruitmentSkip = candidateReverseOffset
                    }
                    let taken = core.slots[before.index].next
                    let rightChild = core.slots[taken.index]
                    core.slots[before.index].next = rightChild.next
                    core.count -= 1
                    let composed = !rightChild.operands.isNone
                    if composed {
                        core.otherComposedCount -= 1
                    }
                    for phase in 0..<2 {
                        let reverse = phase == 1
                        if reverse {
                            acc.reverseValue = kind.combine(acc.reverseValue, rightChild.value)
                        } else {
                            acc.forwardValue = kind.combine(acc.forwardValue, rightChild.value)
                        }
                        let selfNode = core.pushLink(rightChild, reverse: reverse, older: walkOperands)
                        await dispatch(&core, &acc, report, kind, candidateReverseOffset, selfNode)
                        if !emptyComposition,
                            kind.valid(forward: acc.forwardValue, reverse: acc.reverseValue)
                        {
                            let realizedValue = kind.uncombine(acc.forwardValue, acc.reverseValue)
                            if core.count == 0 {
                                if realizedValue == goal {
                                    report(core.describe(kind, selfNode))
                                }
                            } else {
                                let placeholder = core.head
                                core.slots[placeholder.index].value = realizedValue
                                core.slots[placeholder.index].op = kind
                                core.slots[placeholder.index].operands = selfNode
                                core.count += 1
                                core.composedCount += 1
                                await node(&core, report, kind: kind, skip: acc.downstreamSiblingsRecruitmentSkip)
                                await floor(&core, report, kind: kind.other)
                                core.count -= 1
                                core.composedCount -= 1
                                core.slots[placeholder.index].operands = .none
                            }
                        }
                        core.top -= 1
                        if reverse {
                            acc.reverseValue = kind.uncombine(acc.reverseValue, rightChild.value)
                        } else {
                            acc.forwardValue = kind.uncombine(acc.forwardValue, rightChild.value)
                        }
                    }
                    if composed {
                        core.otherComposedCount += 1
                    }
                    core.slots[taken.index].next = core.slots[before.index].next
                    core.slots[before.index].next = taken
                    core.count += 1
                    before = taken
                }
            }
        }
    }
}

extension Countdown.Indexed.Link {
    /// Filler for arena cells above `top`.
    static let unused = Self(value: 0, op: .additive, operands: .none, reverse: false, next: .none)
}
