extension Countdown {
    /// sc/nodict: stage C of the thread, "Swift without dictionaries". Stage A with
    /// the dictionary replaced by two struct fields, the state grouped into two
    /// structs passed inout, and the phase loop turned into two calls of a nested
    /// function. Chains are still closures, and "empty" and "at least two operands"
    /// are still found by calling them.
    enum NoDict {
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

        /// avail and its two counters (cur and prev).
        struct ResolveCoreCtx: Sendable {
            var l: [ReadyValue] = []
            var composedCount = 0
            var otherComposedCount = 0
        }

        /// The node being built: its accumulators and where its siblings start.
        struct ExploreAdditionOfRightNodeCtx: Sendable {
            var forwardValue: UInt32
            var reverseValue: UInt32
            var downstreamSiblingsRecruitmentSkip: Int
        }

        typealias Dispatcher = (
            _ resolveCoreCtx: inout ResolveCoreCtx,
            _ exploreAdditionOfRightNodeCtx: inout ExploreAdditionOfRightNodeCtx,
            _ kind: Op, _ startingFrom: Int, _ walkOperands: @escaping Walker
        ) -> Void

        typealias DispatcherAsync = (
            _ resolveCoreCtx: inout ResolveCoreCtx,
            _ exploreAdditionOfRightNodeCtx: inout ExploreAdditionOfRightNodeCtx,
            _ kind: Op, _ startingFrom: Int, _ walkOperands: @escaping Walker
        ) async -> Void

        struct Batch: Sendable {
            let resolveCoreCtx: ResolveCoreCtx
            let exploreAdditionOfRightNodeCtx: ExploreAdditionOfRightNodeCtx
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
                    func dispatch(
                        _ resolveCoreCtx: inout ResolveCoreCtx,
                        _ exploreAdditionOfRightNodeCtx: inout ExploreAdditionOfRightNodeCtx,
                        _ kind: Op, _ startingFrom: Int, _ walkOperands: @escaping Walker
                    ) async {
                        guard startingFrom < resolveCoreCtx.l.count - resolveCoreCtx.composedCount,
                            resolveCoreCtx.l.count + (walkOperands({ _, _ in () }) != nil ? 1 : 0) == 5
                        else {
                            await iteratePossibleLeftNodesAsync(
                                &resolveCoreCtx, &exploreAdditionOfRightNodeCtx, report, goal, kind,
                                startingFrom, walkOperands, dispatch)
                            return
                        }
                        await channel.send(
                            Batch(
                                resolveCoreCtx: resolveCoreCtx,
                                exploreAdditionOfRightNodeCtx: exploreAdditionOfRightNodeCtx,
                                kind: kind, startingFrom: startingFrom, walkOperands: walkOperands))
                    }
                    var reference = ResolveCoreCtx()
                    reference.l = primitives.map { ReadyValue($0) }
                    await exploreAdditionOfFloorAsync(&reference, report, goal, dispatch, kind: .additive)
                    await exploreAdditionOfFloorAsync(
                        &reference, report, goal, dispatch, kind: .multiplicative)
                },
                run: { (batch: Batch, report: (String) -> Void) in
                    var childResolveCoreCtx = batch.resolveCoreCtx
                    var childExploreAdditionOfRightNodeCtx = batch.exploreAdditionOfRightNodeCtx
                    func fakeDispatch(
                        _ resolveCoreCtx: inout ResolveCoreCtx,
                        _ exploreAdditionOfRightNodeCtx: inout ExploreAdditionOfRightNodeCtx,
                        _ kind: Op, _ startingFrom: Int, _ walkOperands: @escaping Walker
                    ) {
                        iteratePossibleLeftNodes(
                            &resolveCoreCtx, &exploreAdditionOfRightNodeCtx, report, goal, kind,
                            startingFrom, walkOperands, fakeDispatch)
                    }
                    fakeDispatch(
                        &childResolveCoreCtx, &childExploreAdditionOfRightNodeCtx, batch.kind,
                        batch.startingFrom, batch.walkOperands)
                })
        }

        // MARK: the main exploration (async)

        static func exploreAdditionOfFloorAsync(
            _ resolveCoreCtx: inout ResolveCoreCtx, _ resultReceiver: (String) -> Void,
            _ goal: UInt32, _ dispatcher: DispatcherAsync, kind: Op
        ) async {
            guard resolveCoreCtx.otherComposedCount == 0 else { return }
            resolveCoreCtx.otherComposedCount = resolveCoreCtx.composedCount
            resolveCoreCtx.composedCount = 0
            await exploreAdditionOfRightNodeAsync(
                &resolveCoreCtx, resultReceiver, goal, dispatcher, kind: kind, skip: 0)
            resolveCoreCtx.composedCount = resolveCoreCtx.otherComposedCount
            resolveCoreCtx.otherComposedCount = 0
        }

        static func exploreAdditionOfRightNodeAsync(
            _ resolveCoreCtx: inout ResolveCoreCtx, _ resultReceiver: (String) -> Void,
            _ goal: UInt32, _ dispatcher: DispatcherAsync, kind: Op, skip: Int
        ) async {
            var reference = ExploreAdditionOfRightNodeCtx(
                forwardValue: kind.neutralValue, reverseValue: kind.neutralValue,
                downstreamSiblingsRecruitmentSkip: 0)  // placeholder
            await dispatcher(&resolveCoreCtx, &reference, kind, skip, { _ in nil })
        }

        static func iteratePossibleLeftNodesAsync(
            _ resolveCoreCtx: inout ResolveCoreCtx,
            _ exploreAdditionOfRightNodeCtx: inout ExploreAdditionOfRightNodeCtx,
            _ resultReceiver: (String) -> Void, _ goal: UInt32, _ kind: Op, _ startingFrom: Int,
            _ walkOperands: @escaping Walker, _ dispatcher: DispatcherAsync
        ) async {
            let emptyComposition = walkOperands({ _, _ in () }) == nil
            let stop = (emptyComposition && resolveCoreCtx.otherComposedCount > 0)
                ? startingFrom + 1 : resolveCoreCtx.l.count - resolveCoreCtx.composedCount
            for candidateReverseOffset in startingFrom..<max(startingFrom, stop) {
                if emptyComposition {
                    exploreAdditionOfRightNodeCtx.downstreamSiblingsRecruitmentSkip = candidateReverseOffset
                }
                let rightChild = resolveCoreCtx.l.remove(
                    at: resolveCoreCtx.l.count - resolveCoreCtx.composedCount - 1 - candidateReverseOffset)
                if rightChild.expr != nil {
                    resolveCoreCtx.otherComposedCount -= 1
                }

                func combine(_ total: inout UInt32) {
                    total = kind.combine(total, rightChild.value)
                }

                func uncombine(_ total: inout UInt32) {
                    total = kind.uncombine(total, rightChild.value)
                }

                func commonAsync(
                    _ innerResolveCoreCtx: inout ResolveCoreCtx,
                    _ innerExploreAdditionOfRightNodeCtx: inout ExploreAdditionOfRightNodeCtx,
                    isReverse: Bool, _ innerDispatcher: DispatcherAsync
                ) async {
                    let selfNode: Walker = { action in
                        action(rightChild, isReverse) ?? walkOperands(action)
                    }
                    await innerDispatcher(
                        &innerResolveCoreCtx, &innerExploreAdditionOfRightNodeCtx, kind,
                        candidateReverseOffset, selfNode)
                    var num = 0
                    if selfNode({ _, _ in
                        guard num == 0 else { return () }
                        num += 1
                        return nil
                    }) != nil,
                        kind.valid(
                            forward: innerExploreAdditionOfRightNodeCtx.forwardValue,
                            reverse: innerExploreAdditionOfRightNodeCtx.reverseValue)
                    {
                        let realizedValue = kind.uncombine(
                            innerExploreAdditionOfRightNodeCtx.forwardValue,
                            innerExploreAdditionOfRightNodeCtx.reverseValue)
                        let readyValue = ReadyValue(
                            value: realizedValue, expr: .init(op: kind, operatorsBrowser: selfNode))
                        if innerResolveCoreCtx.l.count == 0 {
                            if realizedValue == goal {
                                resultReceiver(readyValue.description())
                            }
                        } else {
                            innerResolveCoreCtx.composedCount += 1
                            innerResolveCoreCtx.l.append(readyValue)
                            await exploreAdditionOfRightNodeAsync(
                                &innerResolveCoreCtx, resultReceiver, goal, innerDispatcher, kind: kind,
                                skip: innerExploreAdditionOfRightNodeCtx.downstreamSiblingsRecruitmentSkip)
                            await exploreAdditionOfFloorAsync(
                                &innerResolveCoreCtx, resultReceiver, goal, innerDispatcher,
                                kind: kind.other)
                            innerResolveCoreCtx.l.remove(at: innerResolveCoreCtx.l.count - 1)
                            innerResolveCoreCtx.composedCount -= 1
                        }
                    }
                }

                combine(&exploreAdditionOfRightNodeCtx.forwardValue)
                await commonAsync(
                    &resolveCoreCtx, &exploreAdditionOfRightNodeCtx, isReverse: false, dispatcher)
                uncombine(&exploreAdditionOfRightNodeCtx.forwardValue)

                combine(&exploreAdditionOfRightNodeCtx.reverseValue)
                await commonAsync(
                    &resolveCoreCtx, &exploreAdditionOfRightNodeCtx, isReverse: true, dispatcher)
                uncombine(&exploreAdditionOfRightNodeCtx.reverseValue)

                if rightChild.expr != nil {
                    resolveCoreCtx.otherComposedCount += 1
                }
                resolveCoreCtx.l.insert(
                    rightChild,
                    at: resolveCoreCtx.l.count - resolveCoreCtx.composedCount - candidateReverseOffset)
            }
        }

        // MARK: inside a micro-batch (synchronous)

        static func exploreAdditionOfFloor(
            _ resolveCoreCtx: inout ResolveCoreCtx, _ resultReceiver: (String) -> Void,
            _ goal: UInt32, _ dispatcher: Dispatcher, kind: Op
        ) {
            guard resolveCoreCtx.otherComposedCount == 0 else { return }
            resolveCoreCtx.otherComposedCount = resolveCoreCtx.composedCount
            resolveCoreCtx.composedCount = 0
            exploreAdditionOfRightNode(&resolveCoreCtx, resultReceiver, goal, dispatcher, kind: kind, skip: 0)
            resolveCoreCtx.composedCount = resolveCoreCtx.otherComposedCount
            resolveCoreCtx.otherComposedCount = 0
        }

        static func exploreAdditionOfRightNode(
            _ resolveCoreCtx: inout ResolveCoreCtx, _ resultReceiver: (String) -> Void,
            _ goal: UInt32, _ dispatcher: Dispatcher, kind: Op, skip: Int
        ) {
            var reference = ExploreAdditionOfRightNodeCtx(
                forwardValue: kind.neutralValue, reverseValue: kind.neutralValue,
                downstreamSiblingsRecruitmentSkip: 0)  // placeholder
            dispatcher(&resolveCoreCtx, &reference, kind, skip, { _ in nil })
        }

        static func iteratePossibleLeftNodes(
            _ resolveCoreCtx: inout ResolveCoreCtx,
            _ exploreAdditionOfRightNodeCtx: inout ExploreAdditionOfRightNodeCtx,
            _ resultReceiver: (String) -> Void, _ goal: UInt32, _ kind: Op, _ startingFrom: Int,
            _ walkOperands: @escaping Walker, _ dispatcher: Dispatcher
        ) {
            let emptyComposition = walkOperands({ _, _ in () }) == nil
            let stop = (emptyComposition && resolveCoreCtx.otherComposedCount > 0)
                ? startingFrom + 1 : resolveCoreCtx.l.count - resolveCoreCtx.composedCount
            for candidateReverseOffset in startingFrom..<max(startingFrom, stop) {
                if emptyComposition {
                    exploreAdditionOfRightNodeCtx.downstreamSiblingsRecruitmentSkip = candidateReverseOffset
                }
                let rightChild = resolveCoreCtx.l.remove(
                    at: resolveCoreCtx.l.count - resolveCoreCtx.composedCount - 1 - candidateReverseOffset)
                if rightChild.expr != nil {
                    resolveCoreCtx.otherComposedCount -= 1
                }

                func combine(_ total: inout UInt32) {
                    total = kind.combine(total, rightChild.value)
                }

                func uncombine(_ total: inout UInt32) {
                    total = kind.uncombine(total, rightChild.value)
                }

                func common(
                    _ innerResolveCoreCtx: inout ResolveCoreCtx,
                    _ innerExploreAdditionOfRightNodeCtx: inout ExploreAdditionOfRightNodeCtx,
                    isReverse: Bool, _ innerDispatcher: Dispatcher
                ) {
                    let selfNode: Walker = { action in
                        action(rightChild, isReverse) ?? walkOperands(action)
                    }
                    innerDispatcher(
                        &innerResolveCoreCtx, &innerExploreAdditionOfRightNodeCtx, kind,
                        candidateReverseOffset, selfNode)
                    var num = 0
                    if selfNode({ _, _ in
                        guard num == 0 else { return () }
                        num += 1
                        return nil
                    }) != nil,
                        kind.valid(
                            forward: innerExploreAdditionOfRightNodeCtx.forwardValue,
                            reverse: innerExploreAdditionOfRightNodeCtx.reverseValue)
                    {
                        let realizedValue = kind.uncombine(
                            innerExploreAdditionOfRightNodeCtx.forwardValue,
                            innerExploreAdditionOfRightNodeCtx.reverseValue)
                        let readyValue = ReadyValue(
                            value: realizedValue, expr: .init(op: kind, operatorsBrowser: selfNode))
                        if innerResolveCoreCtx.l.count == 0 {
                            if realizedValue == goal {
                                resultReceiver(readyValue.description())
                            }
                        } else {
                            innerResolveCoreCtx.composedCount += 1
                            innerResolveCoreCtx.l.append(readyValue)
                            exploreAdditionOfRightNode(
                                &innerResolveCoreCtx, resultReceiver, goal, innerDispatcher, kind: kind,
                                skip: innerExploreAdditionOfRightNodeCtx.downstreamSiblingsRecruitmentSkip)
                            exploreAdditionOfFloor(
                                &innerResolveCoreCtx, resultReceiver, goal, innerDispatcher,
                                kind: kind.other)
                            innerResolveCoreCtx.l.remove(at: innerResolveCoreCtx.l.count - 1)
                            innerResolveCoreCtx.composedCount -= 1
                        }
                    }
                }

                combine(&exploreAdditionOfRightNodeCtx.forwardValue)
                common(&resolveCoreCtx, &exploreAdditionOfRightNodeCtx, isReverse: false, dispatcher)
                uncombine(&exploreAdditionOfRightNodeCtx.forwardValue)

                combine(&exploreAdditionOfRightNodeCtx.reverseValue)
                common(&resolveCoreCtx, &exploreAdditionOfRightNodeCtx, isReverse: true, dispatcher)
                uncombine(&exploreAdditionOfRightNodeCtx.reverseValue)

                if rightChild.expr != nil {
                    resolveCoreCtx.otherComposedCount += 1
                }
                resolveCoreCtx.l.insert(
                    rightChild,
                    at: resolveCoreCtx.l.count - resolveCoreCtx.composedCount - candidateReverseOffset)
            }
        }
    }
}
