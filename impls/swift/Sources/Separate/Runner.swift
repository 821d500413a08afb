// A runner: a long-lived task that carries a handler through an act (a call that is a client
// itself, which may suspend) and through the rest of the handler's loop after it, until the handler
// parks; then it waits, suspended, for the next act of any handler. So no act creates a task once
// the runtime has as many runners as acts in flight, and a handler with plain calls only never needs
// one: the pool runs it as a plain work item.

/// What a runner carries a handler through: an act, or, under the block lock, a logging call
/// whose blocks it reserves once the call has collected them (Logging.swift).
enum Act {
    case act(@Sendable (AnyObject, Client) async -> Void)
    case logging(@Sendable (AnyObject, Logger) -> Void)

    nonisolated(nonsending) func run(on target: AnyObject, as client: Client) async {
        switch self {
        case .act(let act): await act(target, client)
        case .logging(let call): await client.reserveCollected(call, on: target)
        }
    }
}

final class Runner: @unchecked Sendable {
    typealias Work = (HandlerCore, Act)
    let runtime: Runtime
    // Written before the runner is resumed (or started), read after: the resumption orders them.
    private var next: Work?
    private var continuation: UnsafeContinuation<Void, Never>?

    init(runtime: Runtime, first: Work) {
        self.runtime = runtime
        next = first
    }

    /// Carries each handler handed to it through its act and on. While it waits it holds no
    /// handler and no act (whose closure may hold other handlers): nothing of the work it did
    /// outlives it.
    nonisolated(nonsending) func serve() async {
        while let work = await take() { await carry(work.0, work.1) }
    }

    private nonisolated(nonsending) func carry(_ handler: HandlerCore, _ first: Act) async {
        var act = first
        while true {
            await act.run(on: handler.target, as: handler.actingClient())
            guard case .act(let following) = handler.proceed() else { return }
            act = following
        }
    }

    /// The next work: the first at once, then whatever this runner is resumed with (nil: the
    /// runtime shut down).
    private nonisolated(nonsending) func take() async -> Work? {
        if next == nil {
            await _unsafeInheritExecutor_withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                runtime.pool.whenSuspended {
                    self.continuation = continuation
                    self.runtime.keep(self)
                }
            }
        }
        defer { next = nil }
        return next
    }

    func resume(with work: Work?) {
        next = work
        let continuation = self.continuation!
        self.continuation = nil
        continuation.resume()
    }
}
