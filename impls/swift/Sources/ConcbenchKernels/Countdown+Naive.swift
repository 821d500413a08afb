extension Countdown {
    /// sc/naive: stage A of the thread, "Naive Swift". Values are structs whose
    /// expression holds the operand chain as an escaping @Sendable closure, the only
    /// data batches share; `avail` is an Array changed with remove(at:)/insert(at:);
    /// the state travels as five loose inout parameters; the two accumulators live in
    /// a [Bool: UInt32] picked by a `for phase in 0...1` loop; "empty" and "at least
    /// two operands" are found by calling the chain; the dispatcher is a function value.
    /// The main exploration is async, the batches run a synchronous copy of the same
    /// code, as the original's pseudo-reasync variant did.
    enum Naive {
        /// Calls `action` on each operand, newest first, until one returns non-nil.
        typealias Walker = @Sendable (_ action: (_ value: ReadyValue, _ reverse: Bool) -> Void?) -> Void?

        struct ReadyValue: Sendable {
            struct Expr: Sendable {
                var op: Op
                var operatorsBrowser: Walker
            }

            let value: UInt32
            var expr: Expr?

            init(_ value: UInt32) {
                self.value = value
                expr = nil
            }

            init(value: UInt32, expr: Expr) {
                self.value = value
                self.expr = expr
            }

            /// The canonical text, built by walking the closures.
            func description() -> String {
                guard let localExpr = expr else { return String(value) }
                var forward: [String] = []
                var reverse: [String] = []
                _ = localExpr.operatorsBrowser { operand, isReverse in
                    let text = operandText(
                        value: operand.value, node: operand.expr == nil ? nil : operand.description())
                    if isReverse { reverse.append(text) } else { forward.append(text) }
                    return nil
                }
                return canonical(localExpr.op, forward: forward, reverse: reverse)
            }
        }

        typealias Dispatcher = (
            _ l: inout [ReadyValue], _ composedCount: inout Int, _ otherComposedCount: inout Int,
            _ decomposedValue: inout [Bool: UInt32], _ downstreamSiblingsRecruitmentSkip: inout Int,
            _ kind: Op, _ startingFrom: Int, _ walkOperands: @escaping Walker
        ) -> Void

        typealias DispatcherAsync = (
            _ l: inout [ReadyValue], _ composedCount: inout Int, _ otherComposedCount: inout Int,
            _ decomposedValue: inout [Bool: UInt32], _ downstreamSiblingsRecruitmentSkip: inout Int,
            _ kind: Op, _ startingFrom: Int, _ walkOperands: @escaping Walker
        ) async -> Void

        /// A micro-batch: the five state values and the dispatch arguments, captured
        /// by value (the arrays and the dictionary are copied on first write).
        struct Batch: Sendable {
            let l: [ReadyValue]
            let composedCount: Int
            let otherComposedCount: Int
            let decomposedValue: [Bool: UInt32]
            let downstreamSiblingsRecruitmentSkip: Int
            let kind: Op
            let startingFrom: Int
            let walkOperands: Walker
        }

        static func run(_ instance: Instance, window: Int) async -> Outcome {
            let goal = instance.goal
            let primitives = instance.numbers
            return await capped(
                window: window,
                explore: { (channel: BatchChannel<Batch>, report: (String) -> Void) async in
                    // DISPATCH_main: at est == 5, hand a copy of the state to a batch.
                    func dispatch(
                        _ l: inout [ReadyValue], _ composedCount: inout Int,
                        _ otherComposedCount: inout Int, _ decomposedValue: inout [Bool: UInt32],
                        _ downstreamSiblingsRecruitmentSkip: inout Int, _ kind: Op,
                        _ startingFrom: Int, _ walkOperands: @escaping Walker
                    ) async {
                        guard startingFrom < l.count - composedCount,
                            l.count + (walkOperands({ _, _ in () }) != nil ? 1 : 0) == 5
                        else {
                            await iteratePossibleLeftNodesAsync(
                                &l, &composedCount, &otherComposedCount, &decomposedValue,
                                &downstreamSiblingsRecruitmentSkip, report, goal, kind, startingFrom,
                                walkOperands, dispatch)
                            return
                        }
                        await channel.send(
                            Batch(
                                l: l, composedCount: composedCount,
                                otherComposedCount: otherComposedCount, decomposedValue: decomposedValue,
                                downstreamSiblingsRecruitmentSkip: downstreamSiblingsRecruitmentSkip,
                                kind: kind, startingFrom: startingFrom, walkOperands: walkOperands))
                    }
                    await resolveAsync(primitives, report, goal, dispatch)
                },
                run: { (batch: Batch, report: (String) -> Void) in
                    var childL = batch.l
                    var childComposedCount = batch.composedCount
                    var childOtherComposedCount = batch.otherComposedCount
                    var childDecomposedValue = batch.decomposedValue
                    var childSkip = batch.downstreamSiblingsRecruitmentSkip
                    // Inside a batch DISPATCH is extend itself: it never splits again.
                    func fakeDispatch(
                        _ l: inout [ReadyValue], _ composedCount: inout Int,
                        _ otherComposedCount: inout Int, _ decomposedValue: inout [Bool: UInt32],
                        _ downstreamSiblingsRecruitmentSkip: inout Int, _ kind: Op,
                        _ startingFrom: Int, _ walkOperands: @escaping Walker
                    ) {
                        iteratePossibleLeftNodes(
                            &l, &composedCount, &otherComposedCount, &decomposedValue,
                            &downstreamSiblingsRecruitmentSkip, report, goal, kind, startingFrom,
                            walkOperands, fakeDispatch)
                    }
                    fakeDispatch(
                        &childL, &childComposedCount, &childOtherComposedCount, &childDecomposedValue,
                        &childSkip, batch.kind, batch.startingFrom, batch.walkOperands)
                })
        }

        // MARK: the main exploration (async)

        static func resolveAsync(
            _ primitives: [UInt32], _ resultReceiver: (String) -> Void, _ goal: UInt32,
            _ dispatcher: DispatcherAsync
        ) async {
            var l = primitives.map { ReadyValue($0) }
            var composedCount = 0
            var otherComposedCount = 0
            await exploreAdditionOfFloorAsync(
                &l, &composedCount, &otherComposedCount, resultReceiver, goal, dispatcher,
                kind: .additive)
            await exploreAdditionOfFloorAsync(
                &l, &composedCount, &otherComposedCount, resultReceiver, goal, dispatcher,
                kind: .multiplicative)
        }

        static func exploreAdditionOfFloorAsync(
            _ l: inout [ReadyValue], _ composedCount: inout Int, _ otherComposedCount: inout Int,
            _ resultReceiver: (String) -> Void, _ goal: UInt32, _ dispatcher: DispatcherAsync,
            kind: Op
        ) async {
            guard otherComposedCount == 0 else { return }
            otherComposedCount = composedCount
            composedCount = 0
            await exploreAdditionOfRightNodeAsync(
                &l, &composedCount, &otherComposedCount, resultReceiver, goal, dispatcher,
                kind: kind, skip: 0)
            composedCount = otherComposedCount
            otherComposedCount = 0
        }

        static func exploreAdditionOfRightNodeAsync(
            _ l: inout [ReadyValue], _ composedCount: inout Int, _ otherComposedCount: inout Int,
            _ resultReceiver: (String) -> Void, _ goal: UInt32, _ dispatcher: DispatcherAsync,
            kind: Op, skip: Int
        ) async {
            var decomposedValue: [Bool: UInt32] = [false: kind.neutralValue, true: kind.neutralValue]
            var downstreamSiblingsRecruitmentSkip = 0  // placeholder, set by the first operand
            await dispatcher(
                &l, &composedCount, &otherComposedCount, &decomposedValue,
                &downstreamSiblingsRecruitmentSkip, kind, skip, { _ in nil })
        }

        /// extend(): the candidate loop of one node, async twin of the batch version.
        static func iteratePossibleLeftNodesAsync(
            _ l: inout [ReadyValue], _ composedCount: inout Int, _ otherComposedCount: inout Int,
            _ decomposedValue: inout [Bool: UInt32], _ downstreamSiblingsRecruitmentSkip: inout Int,
            _ resultReceiver: (String) -> Void, _ goal: UInt32, _ kind: Op, _ startingFrom: Int,
            _ walkOperands: @escaping Walker, _ dispatcher: DispatcherAsync
        ) async {
            let emptyComposition = walkOperands({ _, _ in () }) == nil
            // An empty node must first take the next value of the previous floor.
            let stop = (emptyComposition && otherComposedCount > 0)
                ? startingFrom + 1 : l.count - composedCount
            for candidateReverseOffset in startingFrom..<max(startingFrom, stop) {
                if emptyComposition {
                    downstreamSiblingsRecruitmentSkip = candidateReverseOffset
                }
                let rightChild = l.remove(at: l.count - composedCount - 1 - candidateReverseOffset)
                if rightChild.expr != nil {
                    otherComposedCount -= 1
                }
                for phase in 0...1 {
                    let reverse = phase == 1
                    decomposedValue[reverse] = kind.combine(decomposedValue[reverse]!, rightChild.value)
                    let selfNode: Walker = { action in
                        action(rightChild, reverse) ?? walkOperands(action)
                    }
                    await dispatcher(
                        &l, &composedCount, &otherComposedCount, &decomposedValue,
                        &downstreamSiblingsRecruitmentSkip, kind, candidateReverseOffset, selfNode)
                    // Close the node: it needs a second operand and valid accumulators.
                    var num = 0
                    if selfNode({ _, _ in
                        guard num == 0 else { return () }
                        num += 1
                        return nil
                    }) != nil,
                        kind.valid(forward: decomposedValue[false]!, reverse: decomposedValue[true]!)
                    {
                        let realizedValue = kind.uncombine(decomposedValue[false]!, decomposedValue[true]!)
                        let readyValue = ReadyValue(
                            value: realizedValue, expr: .init(op: kind, operatorsBrowser: selfNode))
                        if l.count == 0 {
                            if realizedValue == goal {
                                resultReceiver(readyValue.description())
                            }
                        } else {
                            composedCount += 1
                            l.append(readyValue)
                            await exploreAdditionOfRightNodeAsync(
                                &l, &composedCount, &otherComposedCount, resultReceiver, goal,
                                dispatcher, kind: kind, skip: downstreamSiblingsRecruitmentSkip)
                            await exploreAdditionOfFloorAsync(
                                &l, &composedCount, &otherComposedCount, resultReceiver, goal,
                                dispatcher, kind: kind.other)
                            l.remove(at: l.count - 1)
                            composedCount -= 1
                        }
                    }
                    decomposedValue[reverse] = kind.uncombine(decomposedValue[reverse]!, rightChild.value)
                }
                if rightChild.expr != nil {
                    otherComposedCount += 1
                }
                l.insert(rightChild, at: l.count - composedCount - candidateReverseOffset)
            }
        }

        // MARK: inside a micro-batch (synchronous)

        static func exploreAdditionOfFloor(
            _ l: inout [ReadyValue], _ composedCount: inout Int, _ otherComposedCount: inout Int,
            _ resultReceiver: (String) -> Void, _ goal: UInt32, _ dispatcher: Dispatcher,
            kind: Op
        ) {
            guard otherComposedCount == 0 else { return }
            otherComposedCount = composedCount
            composedCount = 0
            exploreAdditionOfRightNode(
                &l, &composedCount, &otherComposedCount, resultReceiver, goal, dispatcher,
                kind: kind, skip: 0)
            composedCount = otherComposedCount
            otherComposedCount = 0
        }

        static func exploreAdditionOfRightNode(
            _ l: inout [ReadyValue], _ composedCount: inout Int, _ otherComposedCount: inout Int,
            _ resultReceiver: (String) -> Void, _ goal: UInt32, _ dispatcher: Dispatcher,
            kind: Op, skip: Int
        ) {
            var decomposedValue: [Bool: UInt32] = [false: kind.neutralValue, true: kind.neutralValue]
            var downstreamSiblingsRecruitmentSkip = 0  // placeholder, set by the first operand
            dispatcher(
                &l, &composedCount, &otherComposedCount, &decomposedValue,
                &downstreamSiblingsRecruitmentSkip, kind, skip, { _ in nil })
        }

        /// extend(): the same candidate loop as the async version, line for line.
        static func iteratePossibleLeftNodes(
            _ l: inout [ReadyValue], _ composedCount: inout Int, _ otherComposedCount: inout Int,
            _ decomposedValue: inout [Bool: UInt32], _ downstreamSiblingsRecruitmentSkip: inout Int,
            _ resultReceiver: (String) -> Void, _ goal: UInt32, _ kind: Op, _ startingFrom: Int,
            _ walkOperands: @escaping Walker, _ dispatcher: Dispatcher
        ) {
            let emptyComposition = walkOperands({ _, _ in () }) == nil
            let stop = (emptyComposition && otherComposedCount > 0)
                ? startingFrom + 1 : l.count - composedCount
            for candidateReverseOffset in startingFrom..<max(startingFrom, stop) {
                if emptyComposition {
                    downstreamSiblingsRecruitmentSkip = candidateReverseOffset
                }
                let rightChild = l.remove(at: l.count - composedCount - 1 - candidateReverseOffset)
                if rightChild.expr != nil {
                    otherComposedCount -= 1
                }
                for phase in 0...1 {
                    let reverse = phase == 1
                    decomposedValue[reverse] = kind.combine(decomposedValue[reverse]!, rightChild.value)
                    let selfNode: Walker = { action in
                        action(rightChild, reverse) ?? walkOperands(action)
                    }
                    dispatcher(
                        &l, &composedCount, &otherComposedCount, &decomposedValue,
                        &downstreamSiblingsRecruitmentSkip, kind, candidateReverseOffset, selfNode)
                    var num = 0
                    if selfNode({ _, _ in
                        guard num == 0 else { return () }
                        num += 1
                        return nil
                    }) != nil,
                        kind.valid(forward: decomposedValue[false]!, reverse: decomposedValue[true]!)
                    {
                        let realizedValue = kind.uncombine(decomposedValue[false]!, decomposedValue[true]!)
                        let readyValue = ReadyValue(
                            value: realizedValue, expr: .init(op: kind, operatorsBrowser: selfNode))
                        if l.count == 0 {
                            if realizedValue == goal {
                                resultReceiver(readyValue.description())
                            }
                        } else {
                            composedCount += 1
                            l.append(readyValue)
                            exploreAdditionOfRightNode(
                                &l, &composedCount, &otherComposedCount, resultReceiver, goal,
                                dispatcher, kind: kind, skip: downstreamSiblingsRecruitmentSkip)
                            exploreAdditionOfFloor(
                                &l, &composedCount, &otherComposedCount, resultReceiver, goal,
                                dispatcher, kind: kind.other)
                            l.remove(at: l.count - 1)
                            composedCount -= 1
                        }
                    }
                    decomposedValue[reverse] = kind.uncombine(decomposedValue[reverse]!, rightChild.value)
                }
                if rightChild.expr != nil {
                    otherComposedCount += 1
                }
                l.insert(rightChild, at: l.count - composedCount - candidateReverseOffset)
            }
        }
    }
}
