// A call that is a client itself but only logs: it opens blocks on other handlers and logs calls
// in them, and queries nothing (SCOOP's `separate broker do broker.request (…) end` inside a
// routine, as chameneos's creatures and broker do). Under the queue of queues (`qoq`, `all`)
// reserving and logging never wait, so the handler runs such a call in its loop like a plain one,
// reserving and ending its blocks on its own thread: no runner, no suspension. Under the block lock
// (`none`, `dynamic`, `static`) reserving may wait: the blocks are collected as the call logs them
// and then reserved, in the same order and each with its calls in order, by the handler in a
// runner, as an act's blocks are. Either way the calls run where and in the order SCOOP's rules say;
// only the moment the blocks are reserved differs, which nothing in such a call can observe.

/// What a logging call opens its blocks with.
public struct Logger {
    @usableFromInline let client: Client
    /// Under the block lock: where the blocks are collected, to be reserved after the call.
    @usableFromInline let collected: Collected?

    @usableFromInline
    init(_ client: Client, collecting collected: Collected?) {
        self.client = client
        self.collected = collected
    }

    /// `separate h do … end` with only calls inside.
    @inlinable
    public func separate<B>(_ handler: Handler<B>, _ body: (Logged<B>) -> Void) {
        if let collected {
            collected.blocks.append((handler, []))
            body(Logged(handler, .collect(collected, collected.blocks.count - 1)))
            return
        }
        let queue = client.reserveLinking(handler)
        body(Logged(handler, .queue(queue)))
        client.end(queue)
    }
}

/// The blocks a logging call opened under the block lock, with their requests.
@usableFromInline
final class Collected {
    @usableFromInline var blocks: [(HandlerCore, [Request])] = []
    @usableFromInline init() {}
}

/// A handler as a logging call's block has it: calls only.
public struct Logged<Object: AnyObject> {
    @usableFromInline enum Sink {
        case queue(Unmanaged<PrivateQueue>)
        case collect(Collected, Int)
    }

    @usableFromInline let handler: Handler<Object>
    @usableFromInline let sink: Sink

    @inlinable
    init(_ handler: Handler<Object>, _ sink: Sink) {
        self.handler = handler
        self.sink = sink
    }

    @inlinable
    func log(_ request: Request) {
        switch sink {
        case .queue(let queue): queue.logCall(request)
        case .collect(let collected, let index): collected.blocks[index].1.append(request)
        }
    }

    /// A command, as `Reserved.call`.
    @inlinable
    public func call(_ command: @escaping @Sendable (Object) -> Void) {
        log(.call(Handler<Object>.erase(command)))
    }

    /// A command with one argument beside it, as `Reserved.call(with:_:)`.
    @inlinable
    public func call(with argument: Int, _ command: @escaping @Sendable (Object, Int) -> Void) {
        log(.callWith(Handler<Object>.erase(command), argument))
    }

    /// A command that is itself a logging call, as `Reserved.call(logging:)`.
    @inlinable
    public func call(logging command: @escaping @Sendable (Object, Logger) -> Void) {
        log(.logs(Handler<Object>.erase(command)))
    }
}

extension Client {
    /// A logging call under the block lock, in a runner: it runs, collecting its blocks, and they
    /// are reserved after it, in order, each with its calls (see the top of this file).
    nonisolated(nonsending) func reserveCollected(_ call: @Sendable (AnyObject, Logger) -> Void, on target: AnyObject) async {
        let collected = Collected()
        call(target, Logger(self, collecting: collected))
        for (handler, requests) in collected.blocks {
            let queue = await reserve(handler)
            for request in requests { queue.logCall(request) }
            end(queue)
        }
    }
}
